/**
 * The headless terminal emulator simnet reads screens with (`@xterm/headless`, with
 * `@xterm/addon-serialize` to copy a screen into a fresh emulator), loaded on first use, and the
 * one place that reaches past its public API. Three things simnet needs have no public form:
 *
 * - parsing a chunk synchronously (`_core.writeSync`): the public `write` parses in a timer, where
 *   an exception of the emulator's own (xterm.js#6063) is uncaught and ends the process; parsed
 *   here, inside a `try`, it is simnet's to contain;
 * - the target of an OSC 8 hyperlink on a cell (the cell's `extended.urlId`, looked up in
 *   `_core._oscLinkService`);
 * - how many cells a text takes (`_core.unicodeService.getStringCellWidth`), so that a place in a
 *   screen's line (a string) is told as the column a person sees it at, wide characters included.
 *
 * `test/terminal.emulator.test.ts` fails when an upgrade of `@xterm/headless` removes any of them.
 */
import { createRequire } from "node:module"
import type * as Xterm from "@xterm/headless"

/** The serialize addon, as simnet uses it (its typings name the browser package, which simnet does not install). */
export interface SerializeAddon {
  readonly serialize: () => string
  readonly dispose: () => void
}

interface Loaded {
  readonly Terminal: typeof Xterm.Terminal
  readonly SerializeAddon: new () => SerializeAddon & Xterm.ITerminalAddon
}

let loaded: Loaded | undefined

/** The emulator's classes, loaded once. */
export const xterm = (): Loaded => {
  if (loaded !== undefined) return loaded
  const require = createRequire(import.meta.url)
  const headless = require("@xterm/headless") as typeof Xterm
  const serialize = require("@xterm/addon-serialize") as { readonly SerializeAddon: Loaded["SerializeAddon"] }
  return (loaded = { Terminal: headless.Terminal, SerializeAddon: serialize.SerializeAddon })
}

interface Core {
  readonly writeSync: (data: string) => void
  readonly _oscLinkService: { readonly getLinkData: (id: number) => { readonly uri: string } | undefined }
  readonly unicodeService: { readonly getStringCellWidth: (text: string) => number }
}

const core = (terminal: Xterm.Terminal): Core => (terminal as unknown as { readonly _core: Core })._core

/** Parses `data` now, on this call's stack: an exception of the emulator's is thrown here. */
export const parseNow = (terminal: Xterm.Terminal, data: string): void => core(terminal).writeSync(data)

/** The target of the OSC 8 hyperlink `cell` is part of, if any. */
export const linkOf = (terminal: Xterm.Terminal, cell: Xterm.IBufferCell): string | undefined => {
  // A cell read into a reused object keeps the previous cell's extended attributes: they are read
  // only when this cell has its own.
  const data = cell as unknown as {
    readonly hasExtendedAttrs: () => number
    readonly extended: { readonly urlId: number }
  }
  if (!data.hasExtendedAttrs()) return undefined
  const id = data.extended.urlId
  return id === 0 ? undefined : core(terminal)._oscLinkService.getLinkData(id)?.uri
}

let measure: Xterm.Terminal | undefined

/**
 * How many cells `text` takes on a line, as the emulator lays it out (wide characters take two,
 * combining marks none): the width of the emulator's Unicode tables, from one idle emulator.
 */
export const cellWidth = (text: string): number => {
  // Printable ASCII is one cell a character: most lines never reach the tables.
  if (/^[\x20-\x7e]*$/.test(text)) return text.length
  measure ??= new (xterm().Terminal)({ cols: 1, rows: 1, scrollback: 0, logLevel: "off" })
  return core(measure).unicodeService.getStringCellWidth(text)
}

/** The column a string offset of a screen's line is shown at: the cells of the text before it. */
export const columnOf = (line: string, index: number): number => cellWidth(line.slice(0, index))
