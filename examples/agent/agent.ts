/**
 * A small agent, as an app under test would be: an Effect program that reads its settings from
 * an HTTP API through `HttpClient`, asks a model through the `openai` SDK with two tools, and
 * answers the model's tool calls — `lookup` through the same HTTP API, `search_docs` through an
 * MCP server (the official MCP client) — until the model answers in text.
 *
 * It is written to survive a network that breaks: a failed request becomes a tool result that
 * says so, a failed model call ends the turn with a message, and no error escapes. `planted`
 * turns on a bug (an item id put in the URL without encoding) for the test that must find it.
 */
import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js"
import { Effect } from "effect"
import * as HttpClient from "effect/http/HttpClient"
import OpenAI from "openai"

/** The tools the agent offers the model, with the JSON Schemas of their arguments. */
export const TOOLS = [
  {
    name: "lookup",
    description: "Looks an item up by id",
    inputSchema: {
      type: "object",
      required: ["id"],
      properties: { id: { type: "string", pattern: "^[a-z0-9]{1,6}(/[a-z0-9]{1,4})?$" } },
      additionalProperties: false
    }
  },
  {
    name: "search_docs",
    description: "Searches the docs",
    inputSchema: {
      type: "object",
      required: ["query"],
      properties: { query: { type: "string", minLength: 1, maxLength: 40 } },
      additionalProperties: false
    }
  }
] as const

/** What one turn of the agent did. */
export interface Turn {
  readonly answer: string
  readonly toolCalls: ReadonlyArray<string>
  readonly toolResults: ReadonlyArray<string>
}

const MAX_ROUNDS = 4

/**
 * One turn: `prompt` in, the model's final text out, every tool call answered. `fetch` is the
 * network the app's SDKs use (the app's own `HttpClient` comes from the context).
 */
export const runAgent = (
  prompt: string,
  options: { readonly fetch: typeof fetch; readonly planted?: boolean }
): Effect.Effect<Turn, never, HttpClient.HttpClient> =>
  Effect.suspend(() => {
    const mcp = new Client({ name: "example-agent", version: "1.0.0" })
    let connected = false
    return turn(
      prompt,
      options,
      mcp,
      () => connected,
      () => void (connected = true)
    ).pipe(Effect.ensuring(Effect.promise(() => (connected ? mcp.close().catch(() => {}) : Promise.resolve()))))
  })

const turn = (
  prompt: string,
  options: { readonly fetch: typeof fetch; readonly planted?: boolean },
  mcp: Client,
  isConnected: () => boolean,
  markConnected: () => void
) =>
  Effect.gen(function* () {
    const http = yield* HttpClient.HttpClient
    const settings = yield* http.get("https://api.example.com/settings").pipe(
      Effect.flatMap((response) => (response.status === 200 ? response.json : Effect.succeed({ model: "gpt-4o" }))),
      Effect.orElseSucceed(() => ({ model: "gpt-4o" }))
    ) as Effect.Effect<{ readonly model?: string }>
    const openai = new OpenAI({ apiKey: "sk-test", fetch: options.fetch, maxRetries: 0 })
    const toolCalls: Array<string> = []
    const toolResults: Array<string> = []
    const messages: Array<OpenAI.Chat.Completions.ChatCompletionMessageParam> = [{ role: "user", content: prompt }]

    const lookup = (id: string) =>
      http.get(`https://api.example.com/items/${options.planted === true ? id : encodeURIComponent(id)}`).pipe(
        Effect.flatMap((response) =>
          response.status === 200 ? response.text : Effect.succeed(`lookup failed: ${response.status}`)
        ),
        Effect.orElseSucceed(() => "lookup failed: the request broke")
      )
    const searchDocs = (query: string) =>
      Effect.tryPromise(async () => {
        if (!isConnected()) {
          await mcp.connect(
            new StreamableHTTPClientTransport(new URL("https://mcp.example.com/mcp"), { fetch: options.fetch })
          )
          markConnected()
        }
        const result = await mcp.callTool({ name: "search_docs", arguments: { query } })
        return (result.content as Array<{ type: string; text?: string }>).map((c) => c.text ?? "").join("")
      }).pipe(Effect.orElseSucceed(() => "search failed: the MCP server could not be reached"))

    for (let round = 0; round < MAX_ROUNDS; round++) {
      const completion = yield* Effect.tryPromise(() =>
        openai.chat.completions.create({
          model: settings.model ?? "gpt-4o",
          messages,
          tools: TOOLS.map((tool) => ({
            type: "function" as const,
            function: { name: tool.name, description: tool.description, parameters: tool.inputSchema }
          }))
        })
      ).pipe(Effect.option)
      if (completion._tag === "None")
        return { answer: "the model could not be reached", toolCalls, toolResults } satisfies Turn
      const message = completion.value.choices[0]?.message
      const calls = (message?.tool_calls ?? []).filter((call) => call.type === "function")
      if (calls.length === 0) return { answer: message?.content ?? "", toolCalls, toolResults } satisfies Turn
      messages.push({ role: "assistant", content: message?.content ?? null, tool_calls: calls })
      for (const call of calls) {
        toolCalls.push(call.id)
        const args = yield* Effect.try(() => JSON.parse(call.function.arguments) as Record<string, string>).pipe(
          Effect.orElseSucceed(() => ({}) as Record<string, string>)
        )
        const result =
          call.function.name === "lookup"
            ? yield* lookup(String(args.id ?? ""))
            : call.function.name === "search_docs"
              ? yield* searchDocs(String(args.query ?? ""))
              : `no tool named ${call.function.name}`
        toolResults.push(call.id)
        messages.push({ role: "tool", tool_call_id: call.id, content: result })
      }
    }
    return { answer: "the model kept calling tools", toolCalls, toolResults } satisfies Turn
  })
