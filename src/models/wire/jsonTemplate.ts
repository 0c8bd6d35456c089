/**
 * JSON text for a value whose shape is fixed while a few of its leaves change from one use to the
 * next: a model's whole answer, say, whose content is kept with its parts while its id, model,
 * stop reason and token counts are the call's own. The value is serialized once, by
 * `JSON.stringify`, with a marker at each leaf that changes (a hole); each use writes the text
 * between the holes with its own leaves' JSON. The text is what `JSON.stringify` writes for the
 * value with those leaves, byte for byte: the shape has one writer, the object the template is
 * made from.
 */
import { primitiveJson } from "../../registry/seed.ts"

/** A leaf a hole takes: written as `JSON.stringify` writes it. */
export type Leaf = string | number | boolean | null

/** The marker of hole `i`: a string no JSON text of a kept value holds but by holding it itself. */
const marker = (i: number): string => `\u0000simnet-hole-${i}\u0000`

export class JsonTemplate {
  /** The text around the holes, in order: one piece more than there are holes. */
  readonly #pieces: ReadonlyArray<string>
  /** The hole (its index in `fill`'s leaves) after each piece but the last. */
  readonly #order: ReadonlyArray<number>

  private constructor(pieces: ReadonlyArray<string>, order: ReadonlyArray<number>) {
    this.#pieces = pieces
    this.#order = order
  }

  /**
   * The template of the value `build` makes with `holes` markers at the leaves that change
   * (`build`'s argument: marker `i` for hole `i`, typed as any leaf so the value's own types take
   * it). Undefined when a marker is not in the text exactly once, as a kept value holding a
   * marker's own text makes it: the caller writes that value whole.
   */
  static of(holes: number, build: (holes: ReadonlyArray<never>) => unknown): JsonTemplate | undefined {
    const markers = Array.from({ length: holes }, (_, i) => marker(i))
    const text = JSON.stringify(build(markers as unknown as ReadonlyArray<never>))
    if (typeof text !== "string") return undefined
    const found: Array<{ readonly at: number; readonly hole: number; readonly length: number }> = []
    for (let hole = 0; hole < holes; hole++) {
      const quoted = JSON.stringify(markers[hole])
      const at = text.indexOf(quoted)
      if (at === -1 || text.indexOf(quoted, at + 1) !== -1) return undefined
      found.push({ at, hole, length: quoted.length })
    }
    found.sort((a, b) => a.at - b.at)
    const pieces: Array<string> = []
    let from = 0
    for (const { at, length } of found) {
      pieces.push(text.slice(from, at))
      from = at + length
    }
    pieces.push(text.slice(from))
    return new JsonTemplate(
      pieces,
      found.map((f) => f.hole)
    )
  }

  /** The text with `leaves[i]` at hole `i`. */
  fill(leaves: ReadonlyArray<Leaf>): JsonText {
    const pieces = this.#pieces
    const order = this.#order
    let out = pieces[0]
    for (let i = 0; i < order.length; i++) out += primitiveJson(leaves[order[i]]) + pieces[i + 1]
    return new JsonText(out)
  }
}

/**
 * Templates kept with the values they are made from (a list of an answer's parts, which never
 * changes once made), with `holes` holes (see `JsonTemplate.of`): `build` makes a key's value of
 * its leaves, the call's own or the holes' markers, so one function writes the value either way.
 * A template is made the second time its key is asked for: a value written once (the first call
 * of a fresh network's rule, as a property test makes thousands, or a list of parts made for one
 * call) costs no template.
 */
export class JsonTemplates<K extends object, L extends ReadonlyArray<Leaf> = ReadonlyArray<Leaf>, V = unknown> {
  readonly #kept = new WeakMap<K, JsonTemplate | typeof SEEN | null>()
  readonly #holes: number
  readonly #build: (key: K, leaves: L) => V

  constructor(holes: number, build: (key: K, leaves: L) => V) {
    this.#holes = holes
    this.#build = build
  }

  /** The template of `key`; undefined the first time it is asked for, and when its value makes none. */
  of(key: K): JsonTemplate | undefined {
    const kept = this.#kept.get(key)
    if (kept instanceof JsonTemplate) return kept
    if (kept === null) return undefined
    if (kept === undefined) {
      this.#kept.set(key, SEEN)
      return undefined
    }
    const template = JsonTemplate.of(this.#holes, (markers) => this.#build(key, markers as unknown as L))
    this.#kept.set(key, template ?? null)
    return template
  }

  /** `key`'s value with `leaves`: its template's text when it has one, else the value `build` makes. */
  write(key: K, leaves: L): V | JsonText {
    const template = this.of(key)
    return template === undefined ? this.#build(key, leaves) : template.fill(leaves)
  }
}

/** A key asked for once: its template is made the next time. */
const SEEN = "seen"

/**
 * A value's JSON text, written already (a template's `fill`): what a model route answers with in
 * place of the object, and writes as it stands. `JSON.stringify` of one writes the value it
 * stands for, so a writer that does not know it still writes the same text.
 */
export class JsonText {
  readonly text: string
  constructor(text: string) {
    this.text = text
  }

  toJSON(): unknown {
    return JSON.parse(this.text)
  }

  /** `value`'s JSON text: a `JsonText`'s own, anything else's by `JSON.stringify`. */
  static of(value: unknown): string {
    return value instanceof JsonText ? value.text : JSON.stringify(value)
  }
}
