/**
 * The frames two writers build from a prefix for speed (Anthropic's `text_delta` events, Ollama's
 * text lines) against the same frames made the plain way, from the event object by
 * `JSON.stringify`: byte for byte, for any text (quotes, escapes, Unicode, lone surrogates), in
 * any content block. And the frames every writer leaves to `partFrames` (an error, a raw frame, a
 * driver's raw chunk): the same for every wire of every model family.
 */
import fc from "fast-check"
import { describe, expect, it } from "vitest"
import { messagesBody } from "../../src/models/anthropic/anthropic.ts"
import { MODEL_FAMILIES } from "../../src/models/apis.ts"
import { ollamaChatWire, ollamaGenerateWire } from "../../src/models/ollama/ollama.ts"
import { partFrames } from "../../src/models/provider/parts.ts"
import type { LlmInvocation } from "../../src/models/provider/SimulatedProvider.ts"

const invocation = (model: string, raw: unknown = {}) =>
  ({
    seq: 1,
    created: 1_700_000_000,
    request: { model, raw, material: "hi", stream: true }
  }) as unknown as LlmInvocation

describe("frames built from a prefix", () => {
  it("Anthropic's text_delta events are what namedFrame writes from the event", () => {
    fc.assert(
      fc.property(
        fc.array(fc.oneof(fc.string(), fc.string({ unit: "grapheme" }), fc.string({ unit: "binary" })), {
          minLength: 1,
          maxLength: 4
        }),
        fc.boolean(),
        (texts, callFirst) => {
          const writer = messagesBody.writer(invocation("claude-sonnet-4-6"), undefined)
          writer.open()
          let index = 0
          if (callFirst) {
            writer.content({ kind: "toolCall", id: "call_1_0", name: "read", fragments: ["{}"] })
            index = 1
          }
          for (const [i, text] of texts.entries()) {
            const frames = writer.content({ kind: "text", text })
            const delta = frames.at(-1)!
            expect(delta).toBe(
              `event: content_block_delta\ndata: ${JSON.stringify({ type: "content_block_delta", index, delta: { type: "text_delta", text } })}\n\n`
            )
            if (i === 0) expect(frames).toHaveLength(2)
          }
        }
      ),
      { numRuns: 300, seed: 43 }
    )
  })

  it("Ollama's text lines are the JSON of the line object, for /api/chat and /api/generate", () => {
    fc.assert(
      fc.property(fc.string({ unit: "binary" }), fc.string(), (text, model) => {
        const head = { model, created_at: new Date(1_700_000_000 * 1000).toISOString() }
        const chat = ollamaChatWire.writer(invocation(model), undefined)
        expect(chat.content({ kind: "text", text })).toEqual([
          `${JSON.stringify({ ...head, message: { role: "assistant", content: text }, done: false })}\n`
        ])
        const generate = ollamaGenerateWire.writer(invocation(model), undefined)
        expect(generate.content({ kind: "text", text })).toEqual([
          `${JSON.stringify({ ...head, response: text, done: false })}\n`
        ])
      }),
      { numRuns: 300, seed: 43 }
    )
  })
})

describe("partFrames", () => {
  const wires = MODEL_FAMILIES.flatMap((family) => family.apis)
  // A request every wire's writer reads: the agents' writers open from it (A2A's JSON-RPC call and
  // its message, AG-UI's thread and run); the model APIs' writers read none of it.
  const request = {
    jsonrpc: "2.0",
    id: 1,
    method: "message/stream",
    params: { message: { kind: "message", role: "user", messageId: "m1", parts: [{ kind: "text", text: "hi" }] } },
    threadId: "t1",
    runId: "r1",
    messages: []
  }

  it("writes an error part as the writer's error, a raw part as its data and a raw chunk as the writer's chunk, for every wire", () => {
    expect(wires.length).toBeGreaterThan(10)
    fc.assert(
      fc.property(fc.constantFrom(...wires), fc.string(), fc.jsonValue(), (wire, text, chunk) => {
        // Two writers in the same state: one asked through partFrames, the other directly.
        const writer = () => {
          const made = wire.writer(invocation("m", request), undefined)
          made.open()
          return made
        }
        expect(partFrames(writer(), { kind: "error", message: text })).toEqual(writer().error(text))
        expect(partFrames(writer(), { kind: "raw", data: text })).toEqual([text])
        expect(partFrames(writer(), { kind: "rawChunk", chunk })).toEqual([writer().chunk(chunk)])
        expect(partFrames(writer(), { kind: "text", text })).toEqual(writer().content({ kind: "text", text }))
      }),
      { numRuns: 300, seed: 55 }
    )
  })
})
