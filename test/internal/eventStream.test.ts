/**
 * The AWS event-stream framing simnet writes for speed (`eventMessage`, Bedrock's streams) against
 * Smithy's own codec: byte for byte what `encode` writes, and what `decode` reads back, for every
 * event and exception type and payloads of every shape (empty, Unicode, large, escapes).
 */
import fc from "fast-check"
import { describe, expect, it } from "vitest"
import { codecOf, eventHeaders, eventMessage } from "../../src/models/bedrock/bedrockConverse.ts"

const TYPES = [
  "messageStart",
  "contentBlockStart",
  "contentBlockDelta",
  "contentBlockStop",
  "messageStop",
  "metadata",
  "chunk",
  "internalServerException",
  "modelStreamErrorException"
]

describe("eventMessage", () => {
  it("writes exactly what the codec's encode writes, and the codec decodes it", () => {
    fc.assert(
      fc.property(
        fc.constantFrom(...TYPES),
        fc.oneof(
          fc.string(),
          fc.string({ unit: "grapheme", maxLength: 200 }),
          fc.constant(""),
          fc.string({ minLength: 70_000, maxLength: 70_001 })
        ),
        (type, text) => {
          const json = JSON.stringify({ text })
          const fast = eventMessage(type, json)
          const codec = codecOf()
          expect(
            Buffer.from(fast).equals(
              Buffer.from(codec.encode({ headers: eventHeaders(type), body: new TextEncoder().encode(json) }))
            )
          ).toBe(true)
          const read = codec.decode(fast)
          expect(new TextDecoder().decode(read.body)).toBe(json)
          expect(read.headers[type.endsWith("Exception") ? ":exception-type" : ":event-type"]?.value).toBe(type)
        }
      ),
      { numRuns: 200, seed: 34 }
    )
  })
})
