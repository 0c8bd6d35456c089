/**
 * The stdio transport of `simnet mcp`: JSON-RPC messages one per line, as the MCP SDK's
 * `StdioServerTransport` reads them, except that a bad line is answered and the server goes on.
 * The SDK's transport closes at its first line over 10 MiB (the process then exits 0, saying
 * nothing) and answers nothing to a line that is not a message. Here, as JSON-RPC 2.0 says:
 *
 * - a line over `MAX_MCP_LINE` bytes: `-32600` (Invalid Request) naming the bound; its bytes are
 *   dropped as they arrive, never held;
 * - a line that is not JSON: `-32700` (Parse error);
 * - JSON that is not a JSON-RPC message: `-32600`, with the request's `id` when it has one.
 *
 * Each answer goes out as one line on standard output (`id: null` where the request's id cannot be
 * read), and the next line is read as before.
 */
import { createRequire } from "node:module"
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js"
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js"

/** The longest line `simnet mcp` reads as one message, in bytes (10 MiB, the SDK's own bound). */
export const MAX_MCP_LINE = 10 * 1024 * 1024

const NEWLINE = 0x0a

/** JSON-RPC's codes for a line that is not a message. */
const PARSE_ERROR = -32700
const INVALID_REQUEST = -32600

/** The SDK's Schema of a JSON-RPC message, loaded with the first line. */
let messageSchema:
  | { readonly safeParse: (value: unknown) => { readonly success: boolean; readonly data?: unknown } }
  | undefined
const schema = () =>
  (messageSchema ??= (
    createRequire(import.meta.url)("@modelcontextprotocol/sdk/types.js") as {
      readonly JSONRPCMessageSchema: NonNullable<typeof messageSchema>
    }
  ).JSONRPCMessageSchema)

/** A request's `id` when it names one JSON-RPC allows (a string or a number), else `null`. */
const idOf = (value: unknown): string | number | null => {
  const id = typeof value === "object" && value !== null ? (value as { readonly id?: unknown }).id : undefined
  return typeof id === "string" || typeof id === "number" ? id : null
}

/**
 * The transport: reads `input` line by line (bounded by `MAX_MCP_LINE`), writes to `output`,
 * closes when `input` ends.
 */
export class LineTransport implements Transport {
  onclose?: () => void
  onerror?: (error: Error) => void
  onmessage?: (message: JSONRPCMessage) => void
  readonly #input: NodeJS.ReadableStream
  readonly #output: NodeJS.WritableStream
  readonly #limit: number
  #parts: Array<Buffer> = []
  #size = 0
  /** Whether the line being read went over the bound: its bytes are dropped until its end. */
  #dropping = false
  #closed = false

  constructor(
    input: NodeJS.ReadableStream = process.stdin,
    output: NodeJS.WritableStream = process.stdout,
    limit = MAX_MCP_LINE
  ) {
    this.#input = input
    this.#output = output
    this.#limit = limit
  }

  start(): Promise<void> {
    this.#input.on("data", this.#data)
    this.#input.once("end", this.#end)
    this.#input.on("error", this.#error)
    return Promise.resolve()
  }

  send(message: JSONRPCMessage): Promise<void> {
    return this.#write(message)
  }

  close(): Promise<void> {
    if (this.#closed) return Promise.resolve()
    this.#closed = true
    this.#input.off("data", this.#data)
    this.#input.off("end", this.#end)
    this.#input.off("error", this.#error)
    this.#input.pause()
    this.#parts = []
    this.onclose?.()
    return Promise.resolve()
  }

  readonly #end = () => void this.close()

  readonly #error = (error: Error) => this.onerror?.(error)

  readonly #data = (chunk: Buffer | string) => {
    const bytes = typeof chunk === "string" ? Buffer.from(chunk) : chunk
    let from = 0
    for (;;) {
      const newline = bytes.indexOf(NEWLINE, from)
      if (newline === -1) return this.#take(bytes.subarray(from))
      this.#take(bytes.subarray(from, newline))
      this.#line()
      from = newline + 1
    }
  }

  /** Keeps a piece of the line being read, or drops the line once it is over the bound. */
  #take(piece: Buffer): void {
    if (this.#dropping || piece.byteLength === 0) return
    if (this.#size + piece.byteLength <= this.#limit) {
      this.#parts.push(piece)
      this.#size += piece.byteLength
      return
    }
    this.#dropping = true
    this.#parts = []
    this.#size = 0
  }

  /** A whole line has been read: handed on as a message, or answered as JSON-RPC says. */
  #line(): void {
    if (this.#dropping) {
      this.#dropping = false
      return void this.#refuse(
        null,
        INVALID_REQUEST,
        `simnet mcp: a message over ${this.#limit} bytes, the most one line may hold, was dropped unread`
      )
    }
    const text = Buffer.concat(this.#parts, this.#size).toString("utf8").replace(/\r$/, "")
    this.#parts = []
    this.#size = 0
    if (text.trim() === "") return
    let value: unknown
    try {
      value = JSON.parse(text)
    } catch (error) {
      return void this.#refuse(
        null,
        PARSE_ERROR,
        `simnet mcp: a line that is not JSON (${error instanceof Error ? error.message : String(error)})`.slice(0, 300)
      )
    }
    const parsed = schema().safeParse(value)
    if (!parsed.success)
      return void this.#refuse(
        idOf(value),
        INVALID_REQUEST,
        "simnet mcp: a line that is not a JSON-RPC 2.0 message (jsonrpc, and a method, or an id with a result or error)"
      )
    this.onmessage?.(parsed.data as JSONRPCMessage)
  }

  #refuse(id: string | number | null, code: number, message: string): Promise<void> {
    return this.#write({ jsonrpc: "2.0", id, error: { code, message } })
  }

  #write(message: unknown): Promise<void> {
    return new Promise((resolve) => {
      if (this.#output.write(`${JSON.stringify(message)}\n`)) resolve()
      else this.#output.once("drain", resolve)
    })
  }
}
