/**
 * Recording MCP sessions: the JSON-RPC exchanges record mode forwarded to one MCP endpoint (JSON
 * or event-stream answers) read back into an `mcp` route whose server is what the upstream
 * showed — its name, version and instructions from `initialize`, the tools, resources and
 * prompts it listed, each `tools/call` result kept for its arguments (`results`), each resource's
 * contents as read, each prompt's messages as got. Session ids and the stream plumbing are not
 * part of it: the simulated server makes its own.
 */
import { isJsonObject, parseJson } from "../../registry/util.ts"
import { type JsonRecord, listAt } from "../../models/wire/readBack.ts"
import { eventData, type Recorded } from "./recorded.ts"
import type { Redactor } from "../../registry/redact.ts"
import { ENTRY_DEPTH, fits } from "./recordBounds.ts"

const decoder = new TextDecoder()

/** The JSON-RPC messages of an answer: its JSON body (one message or a batch), or the `data:` lines of its event stream. */
const messagesOf = (text: string): Array<JsonRecord> => {
  const whole = parseJson(text)
  return (whole === undefined ? eventData(text) : [whole]).flat().filter(isJsonObject)
}

/** The objects of the array at `key` of a result (`tools`, `resources`, `contents`, …); others left out. */
const objectsAt = (value: unknown, key: string): Array<JsonRecord> => listAt(value, key).filter(isJsonObject)

/** Whether a recorded exchange is MCP: a JSON-RPC request posted to the endpoint. */
export const isMcp = (entry: Recorded): boolean => {
  if (entry.requestBody === undefined) return false
  const body = parseJson(entry.requestBody)
  const first = Array.isArray(body) ? body[0] : body
  return (
    typeof first === "object" &&
    first !== null &&
    (first as { jsonrpc?: unknown }).jsonrpc === "2.0" &&
    typeof (first as { method?: unknown }).method === "string"
  )
}

/** The `mcp` routes of the MCP exchanges, one per endpoint URL (query left out). */
export const mcpRoutesOf = (
  entries: ReadonlyArray<Recorded>,
  redactor: Redactor,
  warnings: Array<string> = []
): Array<Record<string, unknown>> => {
  const byEndpoint = new Map<string, Array<Recorded>>()
  for (const entry of entries) {
    const url = new URL(entry.url)
    const key = `${url.origin}${url.pathname}`
    const list = byEndpoint.get(key)
    if (list === undefined) byEndpoint.set(key, [entry])
    else list.push(entry)
  }
  const routes: Array<Record<string, unknown>> = []
  let n = 0
  for (const [endpoint, exchanges] of byEndpoint) {
    n++
    let info: JsonRecord = {}
    let instructions: string | undefined
    const tools = new Map<string, JsonRecord>()
    const results = new Map<string, Array<{ arguments: Record<string, unknown>; result: unknown }>>()
    const resources = new Map<string, JsonRecord>()
    const prompts = new Map<string, JsonRecord>()
    for (const exchange of exchanges) {
      const requests = [parseJson(exchange.requestBody ?? "")].flat().filter(isJsonObject)
      const replies = messagesOf(decoder.decode(exchange.body))
      for (const request of requests) {
        const reply = replies.find((m) => m.id !== undefined && m.id === request.id && "result" in m)
        const result = reply?.result
        if (!isJsonObject(result)) continue
        const params = isJsonObject(request.params) ? request.params : {}
        // What nests deeper than a fixture holds is left out, said, and the rest of the server kept.
        if (!fits(result) || !fits(params)) {
          warnings.push(
            `POST ${redactor.url(exchange.url)}: the ${String(request.method).slice(0, 40)} of this MCP session nests deeper than a fixture may (${ENTRY_DEPTH} levels): it is left out of the recorded server`
          )
          continue
        }
        switch (request.method) {
          case "initialize":
            info = isJsonObject(result.serverInfo) ? result.serverInfo : {}
            instructions = typeof result.instructions === "string" ? result.instructions : undefined
            break
          case "tools/list":
            for (const tool of objectsAt(result, "tools")) tools.set(String(tool.name), tool)
            break
          case "tools/call": {
            const name = String(params.name ?? "")
            // Credential-named arguments are kept by name, their values "<redacted>" (which matches any value on replay).
            const args = redactor.jsonMembers(params.arguments ?? {}, "mark") as Record<string, unknown>
            const list = results.get(name) ?? []
            if (!list.some((r) => JSON.stringify(r.arguments) === JSON.stringify(args))) {
              list.push({
                arguments: args,
                result: {
                  content: result.content ?? [],
                  ...(result.structuredContent === undefined ? {} : { structuredContent: result.structuredContent }),
                  ...(result.isError === true ? { isError: true } : {})
                }
              })
            }
            results.set(name, list)
            break
          }
          case "resources/list":
            for (const resource of objectsAt(result, "resources"))
              resources.set(String(resource.uri), { ...resources.get(String(resource.uri)), ...resource })
            break
          case "resources/read":
            for (const content of objectsAt(result, "contents")) {
              resources.set(String(content.uri), {
                name: content.uri,
                ...resources.get(String(content.uri)),
                uri: content.uri,
                ...(content.mimeType === undefined ? {} : { mimeType: content.mimeType }),
                ...(content.text !== undefined ? { text: content.text } : { blob: content.blob })
              })
            }
            break
          case "prompts/list":
            for (const prompt of objectsAt(result, "prompts"))
              prompts.set(String(prompt.name), { ...prompt, ...prompts.get(String(prompt.name)) })
            break
          case "prompts/get": {
            const name = String(params.name ?? "")
            const messages = objectsAt(result, "messages").map((m) =>
              isJsonObject(m.content) && m.content.type === "text"
                ? { role: m.role, text: m.content.text }
                : { role: m.role, content: m.content }
            )
            prompts.set(name, { name, ...prompts.get(name), messages })
            break
          }
        }
      }
    }
    const server = {
      name: String(info.name ?? "recorded"),
      version: String(info.version ?? "1.0.0"),
      ...(instructions === undefined ? {} : { instructions }),
      tools: [...new Set([...tools.keys(), ...results.keys()])].map((name) => {
        const tool = tools.get(name) ?? { name }
        return {
          name,
          ...(tool.description === undefined ? {} : { description: tool.description }),
          ...(tool.inputSchema === undefined ? {} : { inputSchema: tool.inputSchema }),
          ...(results.has(name) ? { results: results.get(name) } : {}),
          // A tool listed but never called answers that it has nothing recorded.
          ...(results.has(name)
            ? {}
            : { result: { content: [{ type: "text", text: `nothing was recorded for ${name}` }], isError: true } })
        }
      }),
      // Listed resources never read have no contents to serve: only those read are kept.
      resources: [...resources.values()]
        .filter((r) => r.text !== undefined || r.blob !== undefined)
        .map((r) => ({
          uri: r.uri,
          name: String(r.name ?? r.uri),
          ...(r.description === undefined ? {} : { description: r.description }),
          ...(r.mimeType === undefined ? {} : { mimeType: r.mimeType }),
          ...(r.text !== undefined ? { text: r.text } : { blob: r.blob })
        })),
      prompts: [...prompts.values()]
        .filter((p) => Array.isArray(p.messages))
        .map((p) => ({
          name: p.name,
          ...(p.description === undefined ? {} : { description: p.description }),
          ...(p.arguments === undefined ? {} : { arguments: p.arguments }),
          messages: p.messages
        }))
    }
    routes.push({ id: `recorded-mcp-${n}`, match: endpoint, respond: { kind: "mcp", server } })
  }
  return routes
}
