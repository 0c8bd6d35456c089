/**
 * The terminal under simnet's screens (`src/terminal/`): what reading interactables costs per
 * screen, beside reading the screen itself (which `ui.screen` and every wait already pay), on the
 * screens of `test/fixtures/tty/screens.mjs` (60×16) and on a busy 200×50 one; and a resize storm
 * (300 resizes, each followed by a full redraw, as `test/terminal.emulator.test.ts` does) parsed
 * by the emulator with simnet's 1 000 rows of scrollback beside none — the setting that made
 * `@xterm/headless` 6.0.0 throw (xterm.js#6063) — counting the exceptions contained and the time
 * per resize; then the same storm through a real PTY at a program that redraws on SIGWINCH.
 */
import { join } from "node:path"
import { Effect } from "effect"
import { Emulator } from "../src/terminal/emulator.ts"
import { interactables } from "../src/terminal/interactables.ts"
import type { TerminalScreen } from "../src/terminal/screen.ts"
import { spawnTerminal } from "../src/terminal/terminal.ts"
import { footer, REDRAW, resizeStorm, seeded } from "../test/support/storm.ts"
import { measure, report } from "./harness.ts"

const quick = process.argv.includes("--quick")
const minMs = quick ? 300 : 1_000
const fixtures = join(import.meta.dirname, "..", "test", "fixtures", "tty")

/** The screen `screens.mjs NAME` draws, read from a real terminal. */
const drawn = (name: string): Promise<TerminalScreen> =>
  Effect.runPromise(
    Effect.scoped(
      Effect.gen(function* () {
        const terminal = yield* spawnTerminal(process.execPath, [join(fixtures, "screens.mjs"), name], {
          cols: 60,
          rows: 16
        })
        // Drawn in one write: once anything is on screen, all of it is.
        let screen = yield* terminal.wait({ quietMs: 100 })
        while (screen.lines.every((line) => line === "")) screen = yield* terminal.wait({ quietMs: 100 })
        return screen
      })
    )
  )

/** A busy 200×50 screen: a 40-row menu with one row lit, paragraphs with links, a footer of hints. */
const busy = (): { emulator: Emulator; screen: TerminalScreen } => {
  const emulator = new Emulator(200, 50, { reply: () => {} })
  let text = "\x1b[1mPick a model\x1b[0m\r\n"
  for (let i = 0; i < 40; i++)
    text += i === 7 ? `  \x1b[7m model-${i} (fast, cheap) \x1b[0m\r\n` : `  model-${i} (fast, cheap)\r\n`
  for (let i = 0; i < 5; i++)
    text += `see https://example.com/docs/${i} and \x1b]8;;https://example.org/${i}\x1b\\the guide\x1b]8;;\x1b\\ [ OK ] < Cancel >\r\n`
  text += "\x1b[2m? for shortcuts · ctrl+p commands · esc to cancel · ^X exit · F1 help\x1b[0m\r\n> write a poem"
  emulator.feed(text)
  return { emulator, screen: emulator.screen() }
}

const names = ["menu", "dialog", "footer", "links", "form", "table", "status"]
const screens = await Promise.all(names.map(drawn))
const big = busy()
const per = (ops: number) => `${(1000 / ops).toFixed(3)} ms`
const measures = [
  await measure("read the 200x50 screen (ui.screen)", () => big.emulator.screen(), {
    warmup: 50,
    minMs,
    minIterations: 50
  }),
  await measure("interactables of the 200x50 screen", () => interactables(big.screen), {
    warmup: 50,
    minMs,
    minIterations: 50
  }),
  await measure(
    "interactables of the 7 60x16 screens",
    () =>
      screens.forEach((screen) => {
        interactables(screen)
      }),
    { warmup: 50, minMs, minIterations: 50 }
  )
]
report("interactables per screen", measures, "read the 200x50 screen (ui.screen)")
console.log(
  `  per screen: 200x50 ${per(measures[1]!.opsPerSec)} (reading it: ${per(measures[0]!.opsPerSec)}); 60x16 ${per(measures[2]!.opsPerSec * screens.length)}`
)

/** A storm of `resizes` at an emulator with `scrollback` rows: exceptions contained, ms per resize (with its redraw). */
const storm = (scrollback: number, seed: number, resizes: number) => {
  const rnd = seeded(seed)
  const emulator = new Emulator(100, 30, { reply: () => {}, scrollback })
  const t0 = performance.now()
  for (let i = 0; i < resizes; i++) {
    const [cols, rows] = [40 + rnd(121), 12 + rnd(39)]
    emulator.resize(cols, rows)
    let frame = "\x1b[H\x1b[2J"
    for (let y = 0; y < rows; y++)
      frame += `line${y} \x1b[7mx\x1b[0m 日本🙂 `.repeat(30).slice(0, cols + rnd(20)) + (y < rows - 1 ? "\r\n" : "")
    emulator.feed(frame)
  }
  const ms = (performance.now() - t0) / resizes
  const failures = emulator.failures.count
  emulator.dispose()
  return { failures, ms }
}

const seeds = quick ? [1, 2, 3] : [1, 2, 3, 4, 5, 6, 7, 8]
console.log(`\nresize storm, emulator alone: ${seeds.length} seeds x 300 resizes, each with a full redraw`)
for (const scrollback of [1_000, 0]) {
  const runs = seeds.map((seed) => storm(scrollback, seed, 300))
  const crashed = runs.filter((run) => run.failures > 0).length
  const contained = runs.reduce((sum, run) => sum + run.failures, 0)
  const ms = runs.map((run) => run.ms)
  console.log(
    `  scrollback ${String(scrollback).padStart(4)}: storms with an exception ${crashed}/${runs.length}, exceptions contained ${contained}, ${Math.min(...ms).toFixed(3)}-${Math.max(...ms).toFixed(3)} ms per resize`
  )
}

console.log(
  "\nresize storm through a PTY: 300 resizes at test/fixtures/tty/redraw.mjs, two of three waiting for its redraw"
)
for (const seed of quick ? [1] : [1, 2, 3]) {
  await Effect.runPromise(
    Effect.scoped(
      Effect.gen(function* () {
        const terminal = yield* spawnTerminal(process.execPath, [REDRAW], { cols: 100, rows: 30 })
        yield* terminal.wait({ text: footer(100, 30) })
        const t0 = performance.now()
        const { screen } = yield* resizeStorm(terminal, seed, 300)
        const ms = performance.now() - t0
        console.log(
          `  seed ${seed}: ${(ms / 1000).toFixed(2)} s (${(ms / 300).toFixed(1)} ms per resize), exceptions ${terminal.failures().count}, last row ${JSON.stringify(screen.lines.at(-1))}`
        )
      })
    )
  )
}
