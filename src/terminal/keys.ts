/**
 * Keys by name, as the bytes xterm sends for them: what `press` writes. A name is a key — `enter`,
 * `tab`, `escape`, `backspace`, `delete`, `insert`, `space`, the arrows, `home`, `end`,
 * `pageup`, `pagedown`, `f1`–`f12`, or one character — after any of the modifiers `ctrl+`,
 * `alt+` and `shift+`, combined in any order (`ctrl+shift+up`).
 *
 * The encodings are xterm's (its "PC-Style Function Keys"), which tmux, VTE and the terminals
 * agents are written against send too: a cursor key is `CSI A` (`SS3 A` once the program turned on
 * application cursor keys, DECCKM); with modifiers `CSI 1 ; m A`, where m is 1 + shift + 2·alt +
 * 4·ctrl; `f1`–`f4` are `SS3 P`–`SS3 S` (`CSI 1 ; m P` with modifiers); the keys of the editing
 * pad and `f5`–`f12` are `CSI n ~` (`CSI n ; m ~`). `alt+` puts ESC before a key that is one
 * character (the meta-sends-escape of every terminal on Linux); `ctrl+` makes a letter its control
 * character. `test/terminal.input.test.ts` holds each family against tmux's own encoding.
 */

const CSI = "\x1b["
const SS3 = "\x1bO"

/** Keys whose final byte is a letter: the cursor keys, `home` and `end`. */
const LETTER_KEYS: Readonly<Record<string, string>> = { up: "A", down: "B", right: "C", left: "D", home: "H", end: "F" }
/** `f1`–`f4`: SS3 and a letter. */
const SS3_KEYS: Readonly<Record<string, string>> = { f1: "P", f2: "Q", f3: "R", f4: "S" }
/** The editing pad and `f5`–`f12`: `CSI n ~`. */
const TILDE_KEYS: Readonly<Record<string, number>> = {
  insert: 2,
  delete: 3,
  pageup: 5,
  pagedown: 6,
  f5: 15,
  f6: 17,
  f7: 18,
  f8: 19,
  f9: 20,
  f10: 21,
  f11: 23,
  f12: 24
}
/** Keys that are one control character. */
const CHARACTER_KEYS: Readonly<Record<string, string>> = {
  enter: "\r",
  tab: "\t",
  escape: "\x1b",
  backspace: "\x7f",
  space: " "
}

/** Other names people use for the same keys. */
const ALIASES: Readonly<Record<string, string>> = {
  return: "enter",
  esc: "escape",
  del: "delete",
  ins: "insert",
  pgup: "pageup",
  pgdn: "pagedown",
  pgdown: "pagedown",
  arrowup: "up",
  arrowdown: "down",
  arrowleft: "left",
  arrowright: "right",
  control: "ctrl",
  meta: "alt",
  option: "alt",
  opt: "alt"
}

/** What `press` takes, as said in an error: the keys and the modifiers. */
export const KEY_FAMILIES =
  "enter, tab, escape, backspace, delete, insert, space, up, down, left, right, home, end, pageup, pagedown, f1-f12, or one character (q, Q, /); after ctrl+, alt+ or shift+, combined (ctrl+shift+up, alt+f4); ctrl+LETTER for a control character"

interface Modifiers {
  readonly ctrl: boolean
  readonly alt: boolean
  readonly shift: boolean
}

/** xterm's modifier parameter: 1 + shift + 2·alt + 4·ctrl. */
const parameter = (mods: Modifiers): number => 1 + (mods.shift ? 1 : 0) + (mods.alt ? 2 : 0) + (mods.ctrl ? 4 : 0)

const modified = (mods: Modifiers): boolean => mods.ctrl || mods.alt || mods.shift

/** The control character of `ctrl+char`, for a letter or one of `@[\]^_` and space; undefined for others. */
const controlOf = (char: string): string | undefined => {
  if (char === " ") return "\x00"
  if (char === "?") return "\x7f"
  const code = char.toUpperCase().charCodeAt(0)
  return char.length === 1 && code >= 0x40 && code <= 0x5f ? String.fromCharCode(code & 0x1f) : undefined
}

/** The bytes of one character typed with `mods`. */
const characterBytes = (char: string, mods: Modifiers): string | undefined => {
  let bytes = mods.shift && char.toLowerCase() !== char.toUpperCase() ? char.toUpperCase() : char
  if (mods.ctrl) {
    const control = controlOf(char)
    if (control === undefined) return undefined
    bytes = control
  }
  return mods.alt ? `\x1b${bytes}` : bytes
}

/** The bytes of a named key that is one control character (`enter`, `tab`, …) with `mods`, as xterm sends them. */
const controlKeyBytes = (key: string, bytes: string, mods: Modifiers): string | undefined => {
  if (key === "tab" && mods.shift) return mods.alt || mods.ctrl ? undefined : `${CSI}Z`
  if (key === "space") return characterBytes(" ", mods)
  // A control key with ctrl or shift sends what it sends alone, but for backspace (ctrl: BS).
  const base = key === "backspace" && mods.ctrl ? "\b" : bytes
  return mods.alt ? `\x1b${base}` : base
}

/**
 * The bytes of the key `name` (see the module's comment), or undefined when it names no key.
 * `applicationCursorKeys`: the program turned DECCKM on, so an unmodified cursor key, `home` and
 * `end` are SS3 forms.
 */
export const keyBytes = (name: string, applicationCursorKeys = false): string | undefined => {
  // One character is itself, case and all (`Q` is a capital q, `+` a plus).
  if ([...name].length === 1) return name
  const parts = name.trim().toLowerCase().split("+")
  // `ctrl++`: the key is the plus that the split took apart.
  const plus = parts.length > 1 && parts.at(-1) === "" && parts.at(-2) === ""
  if (plus) parts.splice(-2, 2)
  const rawKey = plus ? "+" : (parts.pop() ?? "")
  const mods = { ctrl: false, alt: false, shift: false }
  for (const part of parts) {
    const mod = ALIASES[part] ?? part
    if (mod !== "ctrl" && mod !== "alt" && mod !== "shift") return undefined
    if (mods[mod]) return undefined
    mods[mod] = true
  }
  const key = ALIASES[rawKey] ?? rawKey
  if ([...key].length === 1) {
    // A modified character keeps its case from the name as written (`alt+Q`).
    const written = [...name.trim()].at(-1)!
    return characterBytes(written.toLowerCase() === key ? written : key, mods)
  }
  const m = parameter(mods)
  const letter = LETTER_KEYS[key]
  if (letter !== undefined)
    return modified(mods) ? `${CSI}1;${m}${letter}` : `${applicationCursorKeys ? SS3 : CSI}${letter}`
  const ss3 = SS3_KEYS[key]
  if (ss3 !== undefined) return modified(mods) ? `${CSI}1;${m}${ss3}` : `${SS3}${ss3}`
  const tilde = TILDE_KEYS[key]
  if (tilde !== undefined) return modified(mods) ? `${CSI}${tilde};${m}~` : `${CSI}${tilde}~`
  const control = CHARACTER_KEYS[key]
  return control === undefined ? undefined : controlKeyBytes(key, control, mods)
}
