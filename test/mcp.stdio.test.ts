/**
 * `simnet mcp` over stdio read line by line, as a client's bad lines arrive: a line over the
 * bound, a line that is not JSON and JSON that is not a message are each answered with their
 * JSON-RPC error, and the server goes on answering (the SDK's own transport closed at the first
 * line over 10 MiB, and simnet exited 0 saying nothing).
 */
import { spawn } from "node:child_process"
import { once } from "node:events"
import { join } from "node:path"
import { describe, expect, it } from "vitest"
import { MAX_MCP_LINE } from "../src/control/agentToolsStdio.ts"

const root = join(import.meta.dirname, "..")

describe("simnet mcp over stdio", () => {
  it("answers a line over the bound with -32600 naming it, one that is not JSON with -32700, one that is not JSON-RPC with -32600, and goes on serving", async () => {
    const child = spawn(process.execPath, [join(root, "bin", "simnet.js"), "mcp"], {
      cwd: root,
      stdio: ["pipe", "pipe", "pipe"]
    })
    const messages: Array<{
      id?: unknown
      result?: { tools?: ReadonlyArray<{ name: string }> }
      error?: { code: number; message: string }
    }> = []
    const waiting: Array<() => void> = []
    let pending = ""
    child.stdout.setEncoding("utf8")
    child.stdout.on("data", (chunk: string) => {
      pending += chunk
      let newline = pending.indexOf("\n")
      while (newline !== -1) {
        messages.push(JSON.parse(pending.slice(0, newline)))
        pending = pending.slice(newline + 1)
        newline = pending.indexOf("\n")
      }
      for (const wake of waiting.splice(0)) wake()
    })
    let exited: number | null | undefined
    child.once("exit", (code) => {
      exited = code
      for (const wake of waiting.splice(0)) wake()
    })
    const answered = async (count: number) => {
      while (messages.length < count) {
        if (exited !== undefined) throw new Error(`simnet mcp exited (${exited}) after ${messages.length} answers`)
        await new Promise<void>((resolve) => waiting.push(resolve))
      }
      return messages.slice(0, count)
    }
    const send = (line: string) => child.stdin.write(`${line}\n`)
    send(
      JSON.stringify({
        jsonrpc: "2.0",
        id: 1,
        method: "initialize",
        params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "raw", version: "1" } }
      })
    )
    await answered(1)
    send(JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" }))
    // A tool call whose text alone is over the bound, then three more lines.
    send(
      JSON.stringify({
        jsonrpc: "2.0",
        id: 2,
        method: "tools/call",
        params: { name: "type", arguments: { text: "x".repeat(MAX_MCP_LINE + 1024) } }
      })
    )
    send("this is not JSON")
    send(JSON.stringify({ jsonrpc: "2.0", id: 7, method: 5 }))
    send(JSON.stringify({ jsonrpc: "2.0", id: 3, method: "tools/list" }))
    const [, tooLong, notJson, notRpc, listed] = await answered(5)
    expect(tooLong).toMatchObject({
      id: null,
      error: { code: -32600, message: expect.stringContaining(`over ${MAX_MCP_LINE} bytes`) }
    })
    expect(notJson).toMatchObject({ id: null, error: { code: -32700 } })
    expect(notRpc).toMatchObject({ id: 7, error: { code: -32600 } })
    expect(listed?.id).toBe(3)
    expect(listed?.result?.tools?.map((tool) => tool.name)).toContain("network_log")
    expect(child.exitCode).toBeNull()
    const ended = once(child, "exit")
    child.stdin.end()
    const [code] = await ended
    expect(code).toBe(0)
  }, 60_000)
})
