/**
 * The model APIs' request Schemas are decoded by Effect's schema compiler (`compiledDecoder`,
 * issue 38), not its interpreter: the compiled decoder must take what the interpreter takes, give
 * the same value, and refuse what it refuses with the same issue — the message a 400 carries.
 * Judged on every request Schema over bodies near the valid ones (a member removed, replaced by
 * any JSON value, or one more) and over any JSON value. The interpreted decoders are made and used
 * before any Schema is compiled: a decoder keeps the parser it first ran with.
 *
 * And `jsonText`: a whole answer's text, escaped once, is written as `JSON.stringify` writes the
 * string itself, whatever it holds (lone surrogates, controls, any plane).
 */
import { Exit, Schema } from "effect"
import fc from "fast-check"
import { describe, expect, it } from "vitest"
import { MessagesRequest } from "../../src/models/anthropic/anthropicSchema.ts"
import { ConverseRequest, LlamaRequest } from "../../src/models/bedrock/bedrockSchema.ts"
import { CohereChatRequest, CohereEmbedRequest, CohereRerankRequest } from "../../src/models/cohere/cohereSchema.ts"
import {
  EmbeddingRequest,
  GeminiBatchEmbedRequest,
  GeminiEmbedRequest
} from "../../src/models/embeddings/embeddingsSchema.ts"
import { GenerateContentRequest } from "../../src/models/gemini/geminiSchema.ts"
import { OllamaChatRequest, OllamaEmbedRequest, OllamaGenerateRequest } from "../../src/models/ollama/ollamaSchema.ts"
import { ChatCompletionRequest } from "../../src/models/openai/openaiSchema.ts"
import { ResponsesRequest } from "../../src/models/openai/responsesSchema.ts"
import { compiledDecoder } from "../../src/models/wire/compiled.ts"
import { jsonText } from "../../src/models/provider/parts.ts"

type Json = null | boolean | number | string | ReadonlyArray<Json> | { readonly [key: string]: Json }

const call = { id: "call_1", type: "function", function: { name: "read", arguments: '{"path":"a"}' } }

/** Each request Schema with bodies of it as the SDKs send them. */
const SCHEMAS: ReadonlyArray<readonly [string, Schema.Top, ReadonlyArray<Json>]> = [
  [
    "ChatCompletionRequest",
    ChatCompletionRequest,
    [
      { model: "gpt-4o-mini", messages: [{ role: "user", content: "hi" }] },
      {
        model: "gpt-4o",
        stream: true,
        stream_options: { include_usage: true },
        messages: [
          { role: "system", content: "s" },
          { role: "user", content: [{ type: "text", text: "hi" }] },
          { role: "assistant", content: null, tool_calls: [call] },
          { role: "tool", tool_call_id: "call_1", content: "x" }
        ],
        tools: [
          {
            type: "function",
            function: { name: "read", description: "d", parameters: { type: "object" }, strict: true }
          }
        ]
      }
    ]
  ],
  [
    "ResponsesRequest",
    ResponsesRequest,
    [
      { model: "gpt-4o", input: "hi" },
      {
        model: "gpt-4o",
        stream: true,
        instructions: "s",
        input: [
          { role: "user", content: [{ type: "input_text", text: "hi" }] },
          { type: "function_call", call_id: "c", name: "read", arguments: "{}" },
          { type: "function_call_output", call_id: "c", output: "x" }
        ],
        tools: [{ type: "function", name: "read", parameters: { type: "object" } }]
      }
    ]
  ],
  [
    "MessagesRequest",
    MessagesRequest,
    [
      { model: "claude-sonnet-4-6", max_tokens: 512, messages: [{ role: "user", content: "hi" }] },
      {
        model: "claude-sonnet-4-6",
        max_tokens: 512,
        stream: true,
        system: [{ type: "text", text: "s" }],
        messages: [
          { role: "user", content: "hi" },
          {
            role: "assistant",
            content: [
              { type: "text", text: "a" },
              { type: "tool_use", id: "t", name: "read", input: {} }
            ]
          },
          { role: "user", content: [{ type: "tool_result", tool_use_id: "t", content: "x" }] }
        ],
        tools: [{ name: "read", description: "d", input_schema: { type: "object" } }]
      }
    ]
  ],
  [
    "GenerateContentRequest",
    GenerateContentRequest,
    [
      { contents: [{ role: "user", parts: [{ text: "hi" }] }] },
      {
        contents: [
          { role: "user", parts: [{ text: "hi" }] },
          { role: "model", parts: [{ functionCall: { name: "read", args: {} } }] },
          { role: "user", parts: [{ functionResponse: { name: "read", response: {} } }] }
        ],
        systemInstruction: { parts: [{ text: "s" }] },
        tools: [{ functionDeclarations: [{ name: "read" }] }]
      }
    ]
  ],
  [
    "ConverseRequest",
    ConverseRequest,
    [
      { messages: [{ role: "user", content: [{ text: "hi" }] }] },
      {
        messages: [{ role: "user", content: [{ text: "hi" }] }],
        system: [{ text: "s" }],
        toolConfig: { tools: [{ toolSpec: { name: "read", inputSchema: { json: {} } } }] }
      }
    ]
  ],
  ["LlamaRequest", LlamaRequest, [{ prompt: "hi" }, { prompt: "hi", max_gen_len: 10 }]],
  [
    "CohereChatRequest",
    CohereChatRequest,
    [
      { model: "command-a", messages: [{ role: "user", content: "hi" }] },
      {
        model: "command-a",
        stream: true,
        messages: [
          { role: "system", content: "s" },
          { role: "user", content: "hi" }
        ]
      }
    ]
  ],
  ["CohereEmbedRequest", CohereEmbedRequest, [{ model: "embed-v4.0", texts: ["a"], input_type: "search_document" }]],
  ["CohereRerankRequest", CohereRerankRequest, [{ model: "rerank-v3.5", query: "q", documents: ["a", "b"] }]],
  [
    "EmbeddingRequest",
    EmbeddingRequest,
    [
      { model: "text-embedding-3-small", input: "hi" },
      { model: "text-embedding-3-small", input: ["a", "b"], dimensions: 8 }
    ]
  ],
  ["GeminiEmbedRequest", GeminiEmbedRequest, [{ content: { parts: [{ text: "hi" }] } }]],
  [
    "GeminiBatchEmbedRequest",
    GeminiBatchEmbedRequest,
    [{ requests: [{ model: "models/text-embedding-004", content: { parts: [{ text: "hi" }] } }] }]
  ],
  [
    "OllamaChatRequest",
    OllamaChatRequest,
    [
      { model: "llama3", messages: [{ role: "user", content: "hi" }] },
      {
        model: "llama3",
        stream: false,
        messages: [{ role: "user", content: "hi" }],
        tools: [{ type: "function", function: { name: "read", parameters: {} } }]
      }
    ]
  ],
  ["OllamaGenerateRequest", OllamaGenerateRequest, [{ model: "llama3", prompt: "hi" }]],
  ["OllamaEmbedRequest", OllamaEmbedRequest, [{ model: "llama3", input: "hi" }]]
]

/** The paths of every member and element of a value. */
const pathsOf = (value: Json): Array<ReadonlyArray<string | number>> => {
  const out: Array<ReadonlyArray<string | number>> = []
  const walk = (node: Json, path: ReadonlyArray<string | number>) => {
    if (node === null || typeof node !== "object") return
    const entries: Array<[string | number, Json]> = Array.isArray(node)
      ? node.map((item, i) => [i, item] as [number, Json])
      : Object.entries(node)
    for (const [key, child] of entries) {
      out.push([...path, key])
      walk(child, [...path, key])
    }
  }
  walk(value, [])
  return out
}

/** `value` with the member at `path` removed, replaced by `replacement`, or given a sibling named `extra`. */
const mutated = (
  value: Json,
  path: ReadonlyArray<string | number>,
  how: "remove" | "replace" | "add",
  replacement: Json
): Json => {
  const copy = structuredClone(value) as Record<string | number, Json>
  let parent: Record<string | number, Json> = copy
  for (const key of path.slice(0, -1)) parent = parent[key] as Record<string | number, Json>
  const last = path[path.length - 1]!
  if (how === "replace") parent[last] = replacement
  else if (how === "add") (parent as Record<string, Json>)[`extra_${String(last)}`] = replacement
  else if (Array.isArray(parent)) parent.splice(last as number, 1)
  else delete parent[last]
  return copy
}

const bodyNear = (samples: ReadonlyArray<Json>) =>
  fc.oneof(
    { weight: 1, arbitrary: fc.constantFrom(...samples) },
    {
      weight: 4,
      arbitrary: fc.constantFrom(...samples).chain((sample) => {
        const paths = pathsOf(sample)
        return fc
          .tuple(
            fc.constantFrom(...paths),
            fc.constantFrom("remove", "replace", "add" as const),
            fc.jsonValue({ maxDepth: 2 }) as fc.Arbitrary<Json>
          )
          .map(([path, how, replacement]) => mutated(sample, path, how, replacement))
      })
    },
    { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 3 }) as fc.Arbitrary<Json> }
  )

/** What a decoder made of a body: its value, or the issue a 400 shows. */
const outcome = (exit: Exit.Exit<unknown, unknown>) =>
  Exit.isSuccess(exit) ? { value: exit.value } : { issue: String(exit.cause) }

// Made and run once before any Schema is compiled, so that each keeps the interpreter.
const interpreted = SCHEMAS.map(([, schema, samples]) => {
  const decode = Schema.decodeUnknownExit(schema as Schema.Codec<unknown, unknown>)
  decode(samples[0])
  return decode
})
const compiled = SCHEMAS.map(([, schema]) => compiledDecoder(schema))

describe("compiledDecoder", () => {
  SCHEMAS.forEach(([name, , samples], i) => {
    it(`${name}: the compiled decoder takes, gives and refuses what the interpreter does`, () => {
      for (const sample of samples)
        expect(outcome(compiled[i]!(sample)), `${name} takes its sample`).toHaveProperty("value")
      fc.assert(
        fc.property(bodyNear(samples), (body) => {
          expect(outcome(compiled[i]!(body))).toEqual(outcome(interpreted[i]!(body)))
        }),
        { numRuns: 300, seed: 38 }
      )
    })
  })
})

describe("jsonText", () => {
  it("is written as JSON.stringify writes the string itself", () => {
    fc.assert(
      fc.property(fc.string({ unit: "binary", maxLength: 200 }), (text) => {
        expect(JSON.stringify({ content: jsonText(text), n: 1 })).toBe(JSON.stringify({ content: text, n: 1 }))
        expect(JSON.stringify([jsonText(text)])).toBe(JSON.stringify([text]))
      }),
      { numRuns: 500, seed: 38 }
    )
  })
})
