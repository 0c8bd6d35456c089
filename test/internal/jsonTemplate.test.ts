import { describe, expect, it } from "@effect/vitest"
import fc from "fast-check"
import { JsonTemplate, JsonTemplates, JsonText } from "../../src/models/wire/jsonTemplate.ts"

/** A JSON value to keep fixed around the holes: objects, arrays, strings of every kind. */
const kept = fc.letrec((tie) => ({
  value: fc.oneof(
    { depthSize: "small" },
    fc.constant(null),
    fc.boolean(),
    fc.double(),
    fc.string({ unit: "binary" }),
    fc.array(tie("value"), { maxLength: 4 }),
    tie("object")
  ),
  object: fc.dictionary(fc.string({ maxLength: 6 }), tie("value"), { maxKeys: 6 })
})).value

const leaf = fc.oneof(
  fc.string({ unit: "binary" }),
  fc.string({ unit: fc.constantFrom('"', "\\", "\u0000", "\u001f", "a", "\u2028", "\ud800", "\udc00", "\u{1F600}") }),
  fc.double(),
  fc.integer(),
  fc.constantFrom(-0, 1e21, 1e-7, true, false, null)
)

/** A value with three holes among kept members, in an order the test chooses. */
const shape = (fixed: unknown, order: ReadonlyArray<number>) => (holes: ReadonlyArray<unknown>) => ({
  id: holes[order[0]],
  fixed,
  nested: { list: [fixed, holes[order[1]]], tokens: holes[order[2]] }
})

describe("JsonTemplate", () => {
  it("writes what JSON.stringify writes of the value with each leaf in its hole", () => {
    fc.assert(
      fc.property(
        kept,
        fc.tuple(leaf, leaf, leaf),
        fc.constantFrom([0, 1, 2], [2, 0, 1], [1, 2, 0]),
        (fixed, leaves, order) => {
          const build = shape(fixed, order)
          const template = JsonTemplate.of(3, build)
          // A kept value that holds a marker's own text makes no template; fast-check's strings do not.
          expect(template).toBeDefined()
          expect(template!.fill(leaves).text).toBe(JSON.stringify(build(leaves)))
        }
      ),
      { numRuns: 2_000 }
    )
  })

  it("makes no template of a value whose kept text holds a hole's marker, so it is written whole", () => {
    const marker = "\u0000simnet-hole-0\u0000"
    expect(JsonTemplate.of(1, ([id]) => ({ id, text: marker }))).toBeUndefined()
    expect(JsonTemplate.of(2, ([a]) => ({ a }))).toBeUndefined()
    expect(JsonTemplate.of(1, ([id]) => ({ id, text: `${marker} and more` }))?.fill(["x"]).text).toBe(
      JSON.stringify({ id: "x", text: `${marker} and more` })
    )
  })

  it("keeps one template for each key, made the second time it is asked for", () => {
    let made = 0
    const templates = new JsonTemplates<{ readonly text: string }>(1, (key, [id]) => {
      made++
      return { id, text: key.text }
    })
    const key = { text: 'a "quoted" word' }
    // The first time: no template (a value written once costs none); the caller writes it whole.
    expect(templates.of(key)).toBeUndefined()
    expect(made).toBe(0)
    expect(templates.of(key)?.fill([7]).text).toBe('{"id":7,"text":"a \\"quoted\\" word"}')
    expect(templates.of(key)?.fill(["x"]).text).toBe('{"id":"x","text":"a \\"quoted\\" word"}')
    expect(made).toBe(1)
    // A key whose value makes none is asked for again without a second try.
    const marked = { text: "\u0000simnet-hole-0\u0000" }
    for (let i = 0; i < 3; i++) expect(templates.of(marked)).toBeUndefined()
    expect(made).toBe(2)
  })

  it("a JsonText is written as the value it stands for, by JsonText.of and by JSON.stringify", () => {
    const text = JsonTemplate.of(1, ([n]) => ({ n, list: [1, "two"] }))!.fill([3])
    expect(JsonText.of(text)).toBe('{"n":3,"list":[1,"two"]}')
    expect(JSON.stringify({ answer: text })).toBe('{"answer":{"n":3,"list":[1,"two"]}}')
    expect(JsonText.of({ plain: true })).toBe('{"plain":true}')
  })
})
