/**
 * A resize storm at `test/fixtures/tty/redraw.mjs` (a program that redraws its whole screen on
 * SIGWINCH, its size in a footer on the last row), as `test/terminal.emulator.test.ts` and
 * `bench/terminal.bench.ts` drive it: seeded sizes from 40×12 to 160×50, two resizes of three
 * waiting for the redraw, the rest coming while one is on its way; then the last redraw.
 */
import { join } from "node:path"
import { Effect } from "effect"
import type { Terminal, TerminalError, TerminalScreen } from "../../src/terminal/terminal.ts"

/** The program the storm resizes. */
export const REDRAW = join(import.meta.dirname, "..", "fixtures", "tty", "redraw.mjs")

/** What `redraw.mjs` shows on its last row at `cols`×`rows`. */
export const footer = (cols: number, rows: number): string => `${cols}x${rows} ctrl+c quit`

/** A seeded sequence of whole numbers below `k` (the same every run). */
export const seeded =
  (seed: number) =>
  (k: number): number => {
    seed = (seed * 1103515245 + 12345) & 0x7fffffff
    return seed % k
  }

/** Resizes `terminal` (running `REDRAW`) `count` times from `seed`: the screen after the last redraw, and its size. */
export const resizeStorm = (
  terminal: Terminal,
  seed: number,
  count: number
): Effect.Effect<{ readonly screen: TerminalScreen; readonly cols: number; readonly rows: number }, TerminalError> =>
  Effect.gen(function* () {
    const rnd = seeded(seed)
    let [cols, rows] = [terminal.screen().cols, terminal.screen().rows]
    for (let i = 0; i < count; i++) {
      ;[cols, rows] = [40 + rnd(121), 12 + rnd(39)]
      yield* terminal.resize(cols, rows)
      if (rnd(3) !== 0) yield* terminal.wait({ text: footer(cols, rows) })
    }
    return { screen: yield* terminal.wait({ text: footer(cols, rows) }), cols, rows }
  })
