/**
 * A real terminal to judge simnet's against: tmux, run detached on a socket of its own (no user
 * configuration, no status line), its server in a network namespace with loopback only when one
 * can be made. A test starts a command in a pane of a given size, resizes it, sends keys by tmux's
 * names, and reads the pane as tmux shows it (`capture-pane`), waiting on what tmux answers, never
 * on a clock.
 */
import { execFile, spawnSync } from "node:child_process"
import { mkdtempSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { promisify } from "node:util"
import { namespaces } from "./agentJudge.ts"

const run = promisify(execFile)

/** Whether tmux is installed here. */
export const tmuxAvailable = spawnSync("tmux", ["-V"]).status === 0

/** A command running in a tmux pane. */
export interface TmuxPane {
  /** The pane's lines as tmux shows them, trailing blanks trimmed, one per row. */
  readonly capture: () => Promise<Array<string>>
  /** The pane's size and cursor, as tmux reports them. */
  readonly state: () => Promise<{ cols: number; rows: number; cursor: { x: number; y: number } }>
  /** Resizes the window (and so the pane, and the program gets SIGWINCH); resolves once tmux says the pane has that size. */
  readonly resize: (cols: number, rows: number) => Promise<void>
  /** Sends one key by tmux's name (`Up`, `C-x`, `F5`). */
  readonly sendKey: (key: string) => Promise<void>
  /** Waits until the pane's lines satisfy `done` (read again after each answer of tmux's), at most `timeoutMs`. */
  readonly until: (done: (lines: ReadonlyArray<string>) => boolean, timeoutMs?: number) => Promise<Array<string>>
  readonly kill: () => Promise<void>
}

let panes = 0

/** Starts `command` (argv) in a detached tmux session of `cols`×`rows`. */
export const startTmux = async (command: ReadonlyArray<string>, cols: number, rows: number): Promise<TmuxPane> => {
  const dir = mkdtempSync(join(tmpdir(), "simnet-tmux-"))
  const conf = join(dir, "tmux.conf")
  writeFileSync(conf, "set -g status off\nset -g history-limit 2000\n")
  const socket = `simnet-test-${process.pid}-${++panes}`
  const tmux = (...args: Array<string>) => run("tmux", ["-L", socket, "-f", conf, ...args], { encoding: "utf8" })
  const shell = command.map((part) => `'${part.replace(/'/g, "'\\''")}'`).join(" ")
  const start = [
    "-L",
    socket,
    "-f",
    conf,
    "new-session",
    "-d",
    "-s",
    "s",
    "-x",
    String(cols),
    "-y",
    String(rows),
    shell
  ]
  if (namespaces) await run("unshare", ["-n", "tmux", ...start])
  else await run("tmux", start)
  const capture = async () => {
    const { rows: height } = await state()
    const lines = (await tmux("capture-pane", "-p", "-t", "s")).stdout
      .replace(/\n$/, "")
      .split("\n")
      .map((line) => line.trimEnd())
    while (lines.length < height) lines.push("")
    return lines.slice(0, height)
  }
  const state = async () => {
    const [width, height, x, y] = (
      await tmux("display", "-p", "-t", "s", "#{pane_width} #{pane_height} #{cursor_x} #{cursor_y}")
    ).stdout
      .trim()
      .split(" ")
      .map(Number)
    return { cols: width!, rows: height!, cursor: { x: x!, y: y! } }
  }
  const until = async (done: (lines: ReadonlyArray<string>) => boolean, timeoutMs = 20_000) => {
    const deadline = Date.now() + timeoutMs
    for (;;) {
      const lines = await capture()
      if (done(lines)) return lines
      if (Date.now() > deadline) throw new Error(`tmux: waited ${timeoutMs} ms; the pane shows:\n${lines.join("\n")}`)
    }
  }
  return {
    capture,
    state,
    resize: async (width, height) => {
      await tmux("resize-window", "-t", "s", "-x", String(width), "-y", String(height))
      const deadline = Date.now() + 20_000
      for (;;) {
        const now = await state()
        if (now.cols === width && now.rows === height) return
        if (Date.now() > deadline) throw new Error(`tmux: the pane did not become ${width}x${height}`)
      }
    },
    sendKey: async (key) => void (await tmux("send-keys", "-t", "s", key)),
    until,
    kill: async () => void (await tmux("kill-server").catch(() => undefined))
  }
}
