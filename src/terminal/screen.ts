/**
 * Reading a terminal's screen as a person reads it: where a text is on it, and how its program
 * ended, said in words with the screen it left. `ui.wait`, explore's `--ready`, explore's
 * properties (`shows`) and every message about an exited program go through here, so a text
 * matches the same way, and an exit reads the same, whichever door asked.
 *
 * The rule for text: a screen's lines carry no trailing blanks (a blank cell is not something a
 * person sees at the end of a line), so a text's trailing spaces — at its end, or before one of
 * its line breaks — match spaces that are there or the end of the line. `"agent> "` matches a
 * prompt `agent>` at the end of its line as it matches `agent> hello`; `"done \nnext"` matches a
 * line ending in `done` followed by a line starting with `next`. Every other character, leading
 * spaces included, matches itself.
 */
import { constants } from "node:os"

/**
 * A run of cells drawn alike other than in the terminal's default style: where it starts (row
 * `y`, column `x`), its text, and its colours — a palette index (0–255: the 16 ANSI colours, the
 * 256-colour cube and greys) or `#rrggbb` — and attributes; `href`, the target of an OSC 8
 * hyperlink the cells are; what is default is left out.
 */
export interface StyledRun {
  readonly y: number
  readonly x: number
  readonly text: string
  readonly fg?: number | string
  readonly bg?: number | string
  readonly bold?: true
  readonly dim?: true
  readonly italic?: true
  readonly underline?: true
  readonly inverse?: true
  readonly strikethrough?: true
  readonly href?: string
}

/**
 * What the terminal shows: its lines (trailing blanks trimmed), the cursor, its size, and the
 * styled runs (`styles`: colours and attributes, in reading order; what is plain is not listed).
 */
export interface TerminalScreen {
  readonly lines: ReadonlyArray<string>
  readonly cursor: { readonly x: number; readonly y: number }
  readonly cols: number
  readonly rows: number
  readonly styles: ReadonlyArray<StyledRun>
}

/** Where a text starts on a screen: its line, and its offset in that line's string. */
export interface TextPlace {
  readonly line: number
  readonly index: number
}

/** The text without its trailing spaces. */
const core = (segment: string): string => segment.replace(/ +$/, "")

/** Whether `rest` is blanks only (spaces, or nothing: the end of the line). */
const blank = (rest: string): boolean => /^ *$/.test(rest)

/** Whether `segment` is at `at` in `line`, its trailing spaces matched by spaces there or by the line's end. */
const matchesAt = (line: string, at: number, segment: string): boolean => {
  const body = core(segment)
  if (!line.startsWith(body, at)) return false
  const rest = line.slice(at + body.length)
  return rest.startsWith(" ".repeat(segment.length - body.length)) || blank(rest)
}

/** Whether `segment` ends `line` from `at`: only blanks after it. */
const endsAt = (line: string, at: number, segment: string): boolean => {
  const body = core(segment)
  return line.startsWith(body, at) && blank(line.slice(at + body.length))
}

/** The first place `segment` matches on `line`, its trailing spaces soft (see the module's comment). */
const indexIn = (line: string, segment: string): number | undefined => {
  const body = core(segment)
  // Spaces alone match where they are, else at the line's end.
  if (body === "") return line.includes(segment) ? line.indexOf(segment) : line.length
  for (let at = line.indexOf(body); at !== -1; at = line.indexOf(body, at + 1)) {
    if (matchesAt(line, at, segment)) return at
  }
  return undefined
}

/**
 * Where `text` first is on a screen's `lines`, read as a person reads them (see the module's
 * comment), or undefined. A text of several lines matches consecutive lines: each of its lines
 * but the last ends its screen line, each but the first starts one.
 */
export const findText = (lines: ReadonlyArray<string>, text: string): TextPlace | undefined => {
  const segments = text.split("\n")
  if (segments.length === 1) {
    for (let line = 0; line < lines.length; line++) {
      const index = indexIn(lines[line]!, text)
      if (index !== undefined) return { line, index }
    }
    return undefined
  }
  const first = core(segments[0]!)
  const last = segments.length - 1
  for (let line = 0; line + last < lines.length; line++) {
    const trimmed = core(lines[line]!)
    if (!trimmed.endsWith(first)) continue
    const index = trimmed.length - first.length
    let held = true
    for (let i = 1; i < last && held; i++) held = endsAt(lines[line + i]!, 0, segments[i]!)
    if (held && matchesAt(lines[line + last]!, 0, segments[last]!)) return { line, index }
  }
  return undefined
}

/** Whether `text` is on a screen's `lines`, read as a person reads them (`findText`). */
export const shows = (lines: ReadonlyArray<string>, text: string): boolean => findText(lines, text) !== undefined

/** How a terminal's program ended: its exit code, or the signal that ended it. */
export interface TerminalExit {
  readonly code: number
  readonly signal: number | undefined
}

const SIGNAL_NAMES: ReadonlyMap<number, string> = new Map(
  Object.entries(constants.signals).map(([name, number]) => [number, name])
)

/** An exit in words: `code 1`, or `signal 9 (SIGKILL)`. */
export const describeExit = (exit: TerminalExit): string => {
  if (exit.signal === undefined) return `code ${exit.code}`
  const name = SIGNAL_NAMES.get(exit.signal)
  return `signal ${exit.signal}${name === undefined ? "" : ` (${name})`}`
}

/** A screen's lines as text to quote: the blank lines at its bottom left out; `(a blank screen)` when nothing is on it. */
export const screenText = (lines: ReadonlyArray<string>): string => {
  let end = lines.length
  while (end > 0 && lines[end - 1] === "") end--
  return end === 0 ? "(a blank screen)" : lines.slice(0, end).join("\n")
}

/** What is said of a program that has exited: `the program exited with code 1; its last screen:` and the screen. */
export const exitReport = (exit: TerminalExit, lines: ReadonlyArray<string>, program = "the program"): string =>
  `${program} exited with ${describeExit(exit)}; its last screen:\n${screenText(lines)}`
