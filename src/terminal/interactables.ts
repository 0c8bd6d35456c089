/**
 * What a person would act on in a terminal screen, read from its text and styles alone (a pure
 * function of a `TerminalScreen`, so a recorded screen reads as the live one): `ui.interactables`.
 * Each item is `{ kind, text, x, y, width }` in cells (a wide character takes two), the place to
 * click being its middle; a menu item and a button also say whether they are `selected`, a link
 * its `href`, a key hint the `key` `press` takes for it.
 *
 * - `menu-item`: a row of a vertical list — rows whose text starts at one column (±1) — one of
 *   which is picked out: shaded unlike the rest (inverse, or on a background the others do not
 *   have: a themed app paints every cell, so a shade is a highlight only against its neighbours')
 *   or led by a pointer (`❯ › ▸ ▶ ➜ → > • ●`) where its neighbours have a blank. Every row of the
 *   list is an item; the picked one is `selected`. A list whose rows are shaded every which way, a
 *   bar across the screen's first or last two rows (a status bar, a title) are not menus.
 * - `button`: a bracketed label standing alone — `[ OK ]`, `< Cancel >`, `( Yes )` padded inside,
 *   or unpadded on a row of nothing but buttons, or shaded unlike the cell before it; a check box
 *   or radio with its label (`[x] Logs`, `(•) Always`); or, on a row of two to six short labels
 *   apart from one another some of which are shaded unlike the gap after the first, each label
 *   (the shaded ones `selected`) — not a status line: never the screen's first row or last three,
 *   nor a row lit from its first column. Brackets in a column down adjacent rows make a table,
 *   whose rows hold no unpadded buttons; a label must hold a letter (`[1]` is not one).
 * - `link`: cells of an OSC 8 hyperlink (with its `href`), and bare `http(s)://` URLs.
 * - `input`: the field the cursor is in — after a prompt (`> `, `❯ `, `agent> `, `Name: `; from
 *   the cursor when nothing is typed yet), inside a box (`│ … │`, or a bar down its left side),
 *   or an underlined run — and every other underlined blank or `____` field.
 * - `key-hint`: a key named for a person to press: `ctrl+p`, `alt+x`, `⌃T`, `^X`, `F1`; and `esc`,
 *   `enter`, `tab`, arrows, `⏎` when a label or separator sets them apart (`esc to cancel`,
 *   `enter · send`) in the bottom three rows, drawn dim, on a row of other hints, after "press",
 *   or alone at a row's end. The hint's text runs on to its label; `key` is the name `press` takes,
 *   a chord's keys apart (`ctrl+x l`: press `ctrl+x`, then `l`).
 */
import { cellWidth } from "./xterm.ts"
import type { StyledRun, TerminalScreen } from "./screen.ts"

/** The kinds of interactables. */
export type InteractableKind = "button" | "menu-item" | "link" | "input" | "key-hint"

/** One thing on a screen a person would act on (see the module's comment). */
export interface Interactable {
  readonly kind: InteractableKind
  readonly text: string
  readonly x: number
  readonly y: number
  readonly width: number
  readonly selected?: boolean
  readonly href?: string
  readonly key?: string
}

/** The most items one screen gives (a screen of a thousand links is not read to the end). */
const MAX_ITEMS = 500
/** The longest label a button or a hint's label is taken to be. */
const MAX_LABEL = 40
/** The most characters of a row a menu item or an input carries as its text. */
const MAX_TEXT = 200

const BOX = /[\u2500-\u257f|]/
const POINTER = /^(\s*)([❯›▸▶➜→>•●◉◆*])\s+(\S.*)$/u
const PROMPT = /^(\s*[│┃|]?\s*)((?:[>❯❱›»$#%]|\w[\w.@~/-]{0,30}[>$#%:]))(\s?)/u
const URL = /\bhttps?:\/\/[^\s<>"'`│]+/g
const BRACKETS = /\[([^[\]\n]{1,40})\]|<([^<>\n]{1,40})>|\(([^()\n]{1,40})\)/g
const CHECK = /^(?:\[[ xX✓✔*•]\]|\([ xX•*●o]\))$/u

/** Modifier spellings, as they lead a key-hint. */
const MOD = `(?:ctrl|control|alt|opt|option|meta|cmd|super|shift)`
const NAMED = String.raw`(?:f1[0-2]|f[1-9]|enter|return|tab|esc|escape|space|backspace|delete|del|up|down|left|right|home|end|pgup|pgdn|pageup|pagedown|[a-z0-9]|[\[\]/\\.,;'\x60=-])`
const STRONG = String.raw`(?<![A-Za-z0-9])${MOD}[+-](?:${MOD}[+-])*${NAMED}(?![a-z0-9])|[⌃⌥⇧⌘]{1,3}(?:[A-Za-z0-9]|⏎|↵|↑|↓|←|→)|\^[A-Z\[\]\\^_@](?![A-Za-z0-9])|\b[CM]-[a-z](?![A-Za-z0-9-])|(?<![A-Za-z0-9])F(?:1[0-2]|[1-9])(?![0-9])`
const WEAK = `(?<![A-Za-z0-9])(?:esc|escape|enter|return|tab|space|backspace|pgup|pgdn|home|end)(?![A-Za-z0-9])|[⏎↵↑↓←→]`
const HINT = new RegExp(`(?:(${STRONG})|(${WEAK}))(?:\\/?(?:${STRONG}|${WEAK}))*`, "giu")
/** A hint's label: after the key, `to` and a few words up to a separator. */
const LABEL = /^(?:\s+to)?[ :]*([A-Za-z][\w'-]+(?: [A-Za-z][\w'-]*){0,3})/
/** The second key of a chord after its first (`ctrl+x l`): one character, then a gap or the row's end. */
const CHORD = /^ ([a-z0-9])(?=\s{2,}|\s*$|\s*[·•|│,])/i

/** A screen's row: its text, its styled runs, and where each of its characters is shown. */
class Row {
  readonly text: string
  readonly runs: Array<StyledRun> = []
  #columns: Int32Array | undefined
  #start: number | undefined | null = null

  constructor(text: string) {
    this.text = text
  }

  /** The column the string offset `index` is shown at (a wide character takes two; measured once a row, in one pass). */
  col(index: number): number {
    if (/^[\x20-\x7e]*$/.test(this.text)) return index
    if (this.#columns === undefined) {
      const columns = new Int32Array(this.text.length + 1)
      let column = 0
      for (let i = 0; i < this.text.length; ) {
        const char = String.fromCodePoint(this.text.codePointAt(i)!)
        for (let k = 0; k < char.length; k++) columns[i + k] = column
        column += cellWidth(char)
        i += char.length
      }
      columns[this.text.length] = column
      this.#columns = columns
    }
    return this.#columns[Math.min(index, this.text.length)]!
  }

  /** The string offset of the first character shown at or after `column`. */
  at(column: number): number {
    let index = 0
    while (index < this.text.length && this.col(index) < column) index++
    return index
  }

  /**
   * How the cell at `column` is shaded, as a key: `inverse`, its background colour, or "" for the
   * terminal's own. Highlighting is a shade that differs from its neighbours' (a themed app paints
   * every cell with some background).
   */
  shade(column: number): string {
    const run = this.runs.find((r) => r.x <= column && column < r.x + cellWidth(r.text))
    return run === undefined ? "" : run.inverse === true ? "inverse" : run.bg === undefined ? "" : String(run.bg)
  }

  /** The column of the row's first character that is not a blank or a box's border; undefined for a blank row. */
  get start(): number | undefined {
    if (this.#start === null) {
      const at = this.text.search(/[^\s\u2500-\u257f|]/u)
      this.#start = at === -1 ? undefined : this.col(at)
    }
    return this.#start
  }

  /** The row's text from column `from`: up to a box's border or a gap of three blanks. */
  cellText(from: number): { text: string; x: number } | undefined {
    const index = this.at(from)
    const rest = this.text.slice(index)
    const lead = rest.length - rest.trimStart().length
    const body = rest
      .slice(lead)
      .split(/ {3,}|[\u2500-\u257f|]/u)[0]!
      .trimEnd()
    return body === "" ? undefined : { text: body.slice(0, MAX_TEXT), x: this.col(index + lead) }
  }
}

/** The rows next to `y` that, with it, make a list starting near column `at` (blank rows and other columns end it). */
const listAround = (rows: ReadonlyArray<Row>, y: number, at: number): Array<number> => {
  const member = (row: number) => {
    const start = rows[row]?.start
    return start !== undefined && Math.abs(start - at) <= 1
  }
  let top = y
  while (top > 0 && member(top - 1)) top--
  let bottom = y
  while (bottom < rows.length - 1 && member(bottom + 1)) bottom++
  return Array.from({ length: bottom - top + 1 }, (_, i) => top + i)
}

/**
 * Which of `shades` (one a row of a list) is picked out: the one shade that differs when every
 * other row shares one; of two rows, the one drawn inverse or on a background the other lacks.
 */
const oddOne = (shades: ReadonlyArray<string>): number | undefined => {
  const kinds = [...new Set(shades)]
  if (kinds.length !== 2) return undefined
  if (shades.length > 2) {
    const alone = kinds.filter((kind) => shades.filter((shade) => shade === kind).length === 1)
    return alone.length === 1 ? shades.indexOf(alone[0]!) : undefined
  }
  // Two rows: the one drawn inverse, else the one on a background the other lacks.
  if (kinds.includes("inverse")) return shades.indexOf("inverse")
  return kinds.includes("") ? shades.findIndex((shade) => shade !== "") : undefined
}

/** The menu items of a screen: lists with one row picked out (see the module's comment). */
const menus = (screen: TerminalScreen, rows: ReadonlyArray<Row>): Array<Interactable> => {
  const items: Array<Interactable> = []
  const taken = new Set<number>()
  /** The rows `members` of a list starting near column `at`, its row `picked` the selected one. */
  const list = (members: ReadonlyArray<number>, picked: number, at: number) => {
    if (members.length < 2 || members.some((row) => taken.has(row))) return
    for (const row of members) {
      taken.add(row)
      const cell = rows[row]!.cellText(at - 2)
      if (cell === undefined) continue
      // The pointer itself is not part of the item's text.
      const pointer = row === picked ? POINTER.exec(cell.text) : null
      const text = pointer !== null ? pointer[3]! : cell.text
      const x = pointer !== null ? cell.x + cellWidth(cell.text.slice(0, cell.text.length - text.length)) : cell.x
      items.push({ kind: "menu-item", text, x, y: row, width: cellWidth(text), selected: row === picked })
    }
  }
  // Lists whose rows start at one column, one of them shaded unlike the rest; not a bar across the
  // screen's edge rows.
  for (let top = 0; top < rows.length; ) {
    const at = rows[top]!.start
    let bottom = top
    while (at !== undefined && bottom + 1 < rows.length && Math.abs((rows[bottom + 1]!.start ?? -9) - at) <= 1) bottom++
    const members = Array.from({ length: bottom - top + 1 }, (_, i) => top + i)
    const odd = members.length < 2 ? undefined : oddOne(members.map((row) => rows[row]!.shade(rows[row]!.start!)))
    const picked = odd === undefined ? undefined : members[odd]!
    const bar =
      picked !== undefined &&
      (picked < 2 || picked >= screen.rows - 2) &&
      rows[picked]!.runs.some((run) => cellWidth(run.text) >= screen.cols * 0.9)
    if (picked !== undefined && !bar) list(members, picked, Math.min(...members.map((row) => rows[row]!.start!)))
    top = bottom + 1
  }
  for (const [y, row] of rows.entries()) {
    // A row led by a pointer its neighbours lack (a bullet list has one on every row), not the cursor's.
    const pointer = POINTER.exec(row.text)
    if (pointer === null || y === screen.cursor.y || taken.has(y)) continue
    const mark = row.col(pointer[1]!.length)
    const at = row.col(pointer[1]!.length + pointer[2]!.length) + 1
    // A neighbour with a blank where the pointer is, its text where the pointed-at text is.
    const lacking = [y - 1, y + 1].some((n) => {
      const start = rows[n]?.start
      return start !== undefined && Math.abs(start - at) <= 1 && start > mark
    })
    if (lacking) list(listAround(rows, y, at), y, at)
  }
  return items
}

/** Whether a bracket token at `index` in `line` stands alone: a blank, a border or the line's edge before it, and after it (or a comma or full stop). */
const alone = (line: string, index: number, length: number): boolean => {
  const edge = (char: string | undefined) => char === undefined || /\s/.test(char) || BOX.test(char)
  const after = line[index + length]
  return edge(line[index - 1]) && (edge(after) || after === "," || after === ".")
}

/** Whether `line` is nothing but bracketed tokens, blanks and borders. */
const buttonsOnly = (line: string): boolean => line.replace(BRACKETS, "").replace(/[\s\u2500-\u257f|]/gu, "") === ""

/** The buttons of a screen (see the module's comment); rows of items already found are left alone. */
const buttons = (screen: TerminalScreen, rows: ReadonlyArray<Row>, busy: ReadonlySet<number>): Array<Interactable> => {
  const items: Array<Interactable> = []
  // Each row's unpadded bracket tokens, by the column they start at.
  const tokens = rows.map(
    (row) =>
      new Map(
        [...row.text.matchAll(BRACKETS)].filter((m) => !/^. .* .$/.test(m[0])).map((m) => [row.col(m.index), m[0][0]!])
      )
  )
  for (const [y, row] of rows.entries()) {
    if (busy.has(y)) continue
    const line = row.text
    // A table's row: one of its tokens has the same bracket at its column on the row above or below.
    const table = [...tokens[y]!].some(([x, open]) => tokens[y - 1]?.get(x) === open || tokens[y + 1]?.get(x) === open)
    for (const match of line.matchAll(BRACKETS)) {
      const token = match[0]
      const inner = (match[1] ?? match[2] ?? match[3])!
      const x = row.col(match.index)
      if (CHECK.test(token)) {
        // A check box or a radio button: its label is part of it.
        const label = /^ (\S(?:\S| (?! ))*)/.exec(line.slice(match.index + token.length))?.[1]
        if (label !== undefined)
          items.push({
            kind: "button",
            text: `${token} ${label.slice(0, MAX_LABEL)}`,
            x,
            y,
            width: cellWidth(`${token} ${label.slice(0, MAX_LABEL)}`)
          })
        continue
      }
      if (!/\p{L}/u.test(inner) || inner.trim().length > 24 || !alone(line, match.index, token.length)) continue
      const padded = inner.startsWith(" ") && inner.endsWith(" ")
      const width = cellWidth(token)
      // Lit: shaded unlike the cell before it.
      const lit = row.shade(x) !== row.shade(x - 1)
      if ((table && !padded) || !(padded || lit || buttonsOnly(line))) continue
      items.push({ kind: "button", text: token, x, y, width, ...(lit ? { selected: true } : {}) })
    }
    // A row of a few short labels, one of them highlighted: a button bar (see the module's comment
    // for the status lines it is not).
    if (y === 0 || y >= screen.rows - 3 || items.some((item) => item.y === y)) continue
    // Borders are blanks here (one UTF-16 unit each: offsets hold).
    const segments = [...line.replace(/[\u2500-\u257f|]/gu, " ").matchAll(/\S+(?: \S+)*/g)]
    if (
      segments.length < 2 ||
      segments.length > 6 ||
      segments.some((m) => m[0].length > 24 || m[0].split(" ").length > 3)
    )
      continue
    // The row's own shade is the gap's after its first label; a lit label is shaded otherwise.
    const base = row.shade(row.col(segments[0]!.index + segments[0]![0].length) + 1)
    const starts = segments.map((segment) => row.col(segment.index))
    const lit = starts.map((x) => row.shade(x) !== base)
    const litWidth = segments.reduce((sum, segment, i) => sum + (lit[i] ? cellWidth(segment[0]) : 0), 0)
    if (
      !lit.includes(true) ||
      !lit.includes(false) ||
      litWidth >= screen.cols * 0.6 ||
      starts.some((x, i) => lit[i] && x <= 1)
    )
      continue
    segments.forEach((segment, i) => {
      items.push({
        kind: "button",
        text: segment[0],
        x: starts[i]!,
        y,
        width: cellWidth(segment[0]),
        selected: lit[i]!
      })
    })
  }
  return items
}

/** The links of a screen: OSC 8 hyperlinks, then bare URLs not inside one. */
const links = (rows: ReadonlyArray<Row>): Array<Interactable> => {
  const items: Array<Interactable> = []
  for (const [y, row] of rows.entries()) {
    const linked: Array<Interactable> = []
    for (const run of row.runs) {
      if (run.href === undefined) continue
      const last = linked.at(-1)
      // A link drawn in two styles is two runs: one link.
      if (last !== undefined && last.href === run.href && last.x + last.width === run.x)
        linked[linked.length - 1] = { ...last, text: last.text + run.text, width: last.width + cellWidth(run.text) }
      else linked.push({ kind: "link", text: run.text, x: run.x, y, width: cellWidth(run.text), href: run.href })
    }
    items.push(...linked.map((link) => ({ ...link, text: link.text.trim() || link.text })))
    for (const match of row.text.matchAll(URL)) {
      // Sentence punctuation after a URL is not part of it; a closing parenthesis is when the URL opened one.
      let url = match[0].replace(/[.,;:!?'"]+$/, "")
      while (url.endsWith(")") && (url.match(/\(/g)?.length ?? 0) < (url.match(/\)/g)?.length ?? 0))
        url = url.slice(0, -1).replace(/[.,;:!?'"]+$/, "")
      const x = row.col(match.index)
      if (linked.some((link) => link.x <= x && x < link.x + link.width)) continue
      items.push({ kind: "link", text: url, x, y, width: cellWidth(url), href: url })
    }
  }
  return items
}

/** The columns of a row's box borders (`│`, `|`, …). */
const borders = (row: Row): Array<number> => [...row.text.matchAll(/[\u2500-\u257f|]/gu)].map((m) => row.col(m.index))

/** The inputs of a screen: the cursor's field, and underlined or `____` fields elsewhere. */
const inputs = (screen: TerminalScreen, rows: ReadonlyArray<Row>, busy: ReadonlySet<number>): Array<Interactable> => {
  const items: Array<Interactable> = []
  const { x: cx, y: cy } = screen.cursor
  const row = rows[cy]
  const underlined = (run: StyledRun) => run.underline === true && run.href === undefined
  const atCursor = row?.runs.find((run) => underlined(run) && run.x <= cx && cx <= run.x + cellWidth(run.text))
  if (row !== undefined && !busy.has(cy)) {
    const prompt = PROMPT.exec(row.text)
    const after = prompt === null ? undefined : row.col(prompt[0].length)
    // The field runs to the first border after its start, else to the screen's edge.
    const edges = borders(row)
    const end = (x: number) => edges.find((column) => column > x) ?? screen.cols
    if (atCursor !== undefined) {
      items.push({ kind: "input", text: atCursor.text.trim(), x: atCursor.x, y: cy, width: cellWidth(atCursor.text) })
    } else if (after !== undefined && after <= cx) {
      // Nothing typed yet: the field starts at the cursor (the prompt's trailing blank is not in the line).
      const x = after === row.col(row.text.length) ? cx : after
      items.push({ kind: "input", text: row.cellText(x)?.text ?? "", x, y: cy, width: Math.max(1, end(x) - x) })
    } else {
      // Inside a box: a border before the cursor, and one after it or the screen's edge (a
      // composer drawn with a bar down its left side).
      const left = edges.filter((column) => column < cx).at(-1)
      if (left !== undefined) {
        const typed = row.cellText(left + 1)
        const x = Math.min(cx, typed?.x ?? cx)
        items.push({
          kind: "input",
          text: typed?.text ?? "",
          x,
          y: cy,
          width: Math.max(1, end(x) - x - (end(x) < screen.cols ? 1 : 0))
        })
      }
    }
  }
  for (const [y, other] of rows.entries()) {
    if (busy.has(y)) continue
    for (const run of other.runs) {
      if (!underlined(run) || (y === cy && run === atCursor) || !/^[\s_]+$/.test(run.text)) continue
      items.push({ kind: "input", text: "", x: run.x, y, width: cellWidth(run.text) })
    }
    for (const match of other.text.matchAll(/_{3,}/g)) {
      const x = other.col(match.index)
      if (!items.some((item) => item.y === y && item.x <= x && x < item.x + item.width))
        items.push({ kind: "input", text: "", x, y, width: match[0].length })
    }
  }
  return items
}

/** Key glyphs, as `press` names them. */
const GLYPHS: Readonly<Record<string, string>> = {
  "⏎": "enter",
  "↵": "enter",
  "↑": "up",
  "↓": "down",
  "←": "left",
  "→": "right",
  "⌃": "ctrl+",
  "⌥": "alt+",
  "⇧": "shift+",
  "⌘": "cmd+"
}
/** Other spellings of a modifier or a key, as `press` names them. */
const SPELLINGS: Readonly<Record<string, string>> = {
  control: "ctrl",
  opt: "alt",
  option: "alt",
  meta: "alt",
  esc: "escape",
  return: "enter",
  pgup: "pageup",
  pgdn: "pagedown",
  del: "delete"
}

/** The name `press` takes for a hint's key as the screen writes it (`^X` is `ctrl+x`, `⌃T` `ctrl+t`, `C-x` `ctrl+x`, `F1` `f1`, `⏎` `enter`). */
const keyName = (written: string): string => {
  const first = written.split("/")[0]!
  if (/^\^./.test(first)) return `ctrl+${first.slice(1).toLowerCase()}`
  if (/^[CM]-[a-z]$/i.test(first)) return `${first[0] === "C" ? "ctrl" : "alt"}+${first[2]!.toLowerCase()}`
  const spelled = [...first]
    .map((char) => GLYPHS[char] ?? char)
    .join("")
    .toLowerCase()
  return spelled
    .split(/(?<=^(?:[a-z]+[+-])*[a-z]+)[+-](?=.)/)
    .map((part) => SPELLINGS[part] ?? part)
    .join("+")
}

/** The key hints of a screen (see the module's comment). */
const hints = (screen: TerminalScreen, rows: ReadonlyArray<Row>): Array<Interactable> => {
  const items: Array<Interactable> = []
  for (const [y, row] of rows.entries()) {
    const matches = [...row.text.matchAll(HINT)]
    // A footer, or a row of hints: a weak key there is a hint too.
    const footer = y >= screen.rows - 3 || matches.some((match) => match[1] !== undefined)
    for (const match of matches) {
      const x = row.col(match.index)
      const after = row.text.slice(match.index + match[0].length)
      const chord = match[1] === undefined ? null : CHORD.exec(after)
      const label = chord === null ? LABEL.exec(after) : null
      if (match[1] === undefined) {
        // A weak key (`esc`, `enter`, an arrow) is a hint only in a footer or drawn dim, and set apart.
        const dim = row.runs.some((run) => run.dim === true && run.x <= x && x < run.x + cellWidth(run.text))
        const before = row.text.slice(0, match.index)
        const pressed = /press\s+$/i.test(before)
        // Alone at a row's end, set apart (a dialog's `esc` across from its title).
        const trailing = /\s{2,}$/.test(before) && after.trim() === ""
        const apart =
          (pressed || /(?:^\s*|[·•|│,]\s*|\s{2,}|[[(<])$/u.test(before)) &&
          (label !== null || /^(?:\s*$|\s*[·•|│,)\]>]|\s{2,})/u.test(after))
        if (!(footer || dim || pressed || trailing) || !apart) continue
      }
      const text = `${match[0]}${chord !== null ? chord[0] : label === null ? "" : after.slice(0, label[0].length)}`
        .slice(0, MAX_LABEL)
        .trimEnd()
      items.push({
        kind: "key-hint",
        text,
        x,
        y,
        width: cellWidth(text),
        key: chord === null ? keyName(match[0]) : `${keyName(match[0])} ${chord[1]!.toLowerCase()}`
      })
    }
  }
  return items
}

/** The interactables of `screen`, in reading order (see the module's comment). */
export const interactables = (screen: TerminalScreen): { readonly items: ReadonlyArray<Interactable> } => {
  const rows = screen.lines.map((text) => new Row(text))
  for (const run of screen.styles) rows[run.y]?.runs.push(run)
  const menu = menus(screen, rows)
  const busy = new Set(menu.map((item) => item.y))
  const found = [
    ...menu,
    ...buttons(screen, rows, busy),
    ...links(rows),
    ...inputs(screen, rows, busy),
    ...hints(screen, rows)
  ]
  found.sort((a, b) => a.y - b.y || a.x - b.x)
  return { items: found.slice(0, MAX_ITEMS) }
}

/**
 * The keys that select `target`, a menu item of `items`, from the list's selected item: `up` or
 * `down` as many times as the rows between them, then `enter`; undefined when `target` is not a
 * menu item or its list has no selected item.
 */
export const selectKeys = (
  items: ReadonlyArray<Interactable>,
  target: Interactable
): ReadonlyArray<string> | undefined => {
  if (target.kind !== "menu-item") return undefined
  // The target's list: menu items at its column on the rows next to it, row after row.
  const at = (y: number) =>
    items.find((item) => item.kind === "menu-item" && item.y === y && Math.abs(item.x - target.x) <= 2)
  let selected: Interactable | undefined
  for (const step of [-1, 1]) {
    for (let y = target.y; selected === undefined; y += step) {
      const item = at(y)
      if (item === undefined) break
      if (item.selected === true) selected = item
    }
  }
  if (selected === undefined) return undefined
  const steps = target.y - selected.y
  return [...Array.from({ length: Math.abs(steps) }, () => (steps > 0 ? "down" : "up")), "enter"]
}
