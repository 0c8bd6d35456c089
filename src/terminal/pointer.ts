/**
 * A click and a paste as a terminal writes them to the program, in the form the program asked
 * for, byte for byte what xterm.js sends (`test/terminal.input.test.ts` holds the two side by
 * side). A click is a press and a release of the left button at a cell:
 *
 * - SGR (the program turned on 1006): `CSI < 0 ; X ; Y M` then `… m`, 1-based, any size;
 * - xterm's default single-byte form: `CSI M` and three bytes (32 + button, 32 + X, 32 + Y), the
 *   release as button 3. Only columns and rows up to 223 fit; it is written as bytes, not UTF-8;
 * - X10 (mode 9) reports presses only.
 *
 * A paste is the text with its line ends as carriage returns (what a terminal's paste sends);
 * between `CSI 200 ~` and `CSI 201 ~` when the program turned on bracketed paste (2004), the text's
 * own end marker taken out so that it cannot end the paste early.
 */
import type { TerminalModes } from "./emulator.ts"

/** The size of a cell in pixels, for a program that asked for SGR-pixel reports (1016) although the terminal said it has none. */
const CELL_PIXELS = { width: 10, height: 20 } as const
/** The largest column or row xterm's single-byte form can report. */
export const MAX_DEFAULT_MOUSE = 223

/** Why a click cannot be written: the program asked for no mouse, or the cell is past what its encoding can say. */
export type ClickRefusal = "no-mouse" | "unreportable"

/** The bytes of a left click at column `x`, row `y` (0-based), as the program asked for them; or why there are none. */
export const clickBytes = (
  modes: TerminalModes,
  x: number,
  y: number
): ReadonlyArray<string | Buffer> | ClickRefusal => {
  if (modes.mouse === "none") return "no-mouse"
  const releases = modes.mouse !== "x10"
  if (modes.mouseEncoding === "sgr" || modes.mouseEncoding === "sgr-pixels") {
    const [col, row] =
      modes.mouseEncoding === "sgr"
        ? [x + 1, y + 1]
        : [x * CELL_PIXELS.width + CELL_PIXELS.width / 2, y * CELL_PIXELS.height + CELL_PIXELS.height / 2]
    const press = `\x1b[<0;${col};${row}M`
    return releases ? [press, `\x1b[<0;${col};${row}m`] : [press]
  }
  if (x + 1 > MAX_DEFAULT_MOUSE || y + 1 > MAX_DEFAULT_MOUSE) return "unreportable"
  const report = (button: number) => Buffer.from(`\x1b[M${String.fromCharCode(32 + button, 33 + x, 33 + y)}`, "latin1")
  return releases ? [report(0), report(3)] : [report(0)]
}

/** The bytes of pasting `text` (see the module's comment). */
export const pasteBytes = (text: string, bracketed: boolean): string => {
  const lines = text.replace(/\r?\n/g, "\r")
  return bracketed ? `\x1b[200~${lines.replaceAll("\x1b[201~", "")}\x1b[201~` : lines
}
