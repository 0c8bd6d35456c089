/**
 * An MCP server's state stays bounded whatever its clients do: sessions never ended, made-up
 * tool names, arguments of any size.
 */
import { Result } from "effect"
import { describe, expect, it } from "vitest"
import { compileServer } from "../../src/mcp-route/definitions.ts"
import { MAX_SESSIONS, McpServerState } from "../../src/mcp-route/state.ts"

const state = () =>
  new McpServerState(
    Result.getOrThrow(compileServer({ name: "s", version: "1", tools: [{ name: "echo", result: "x" }] }))
  )

describe("an MCP server's state", () => {
  it("keeps at most MAX_SESSIONS sessions: opening one more ends the oldest, which is then unknown", () => {
    const server = state()
    const first = server.open(0, "route", "2025-11-25", { name: "c".repeat(10_000), version: "1" })
    expect(first.ended).toBeUndefined()
    expect(first.session.client?.name.length).toBe(256)
    let last = first
    for (let i = 1; i < MAX_SESSIONS; i++) last = server.open(0, "route", "2025-11-25", undefined)
    expect(last.ended).toBeUndefined()
    expect(server.session(first.session.id)).toBeDefined()
    const over = server.open(0, "route", "2025-11-25", undefined)
    expect(over.ended).toBe(first.session.id)
    expect(server.session(first.session.id)).toBeUndefined()
    expect(server.session(over.session.id)).toBeDefined()
    expect(server.view().sessions.length).toBe(MAX_SESSIONS)
  })

  it("counts at most 1 024 tool names one by one, the rest together", () => {
    const server = state()
    for (let i = 0; i < 2_000; i++) server.count(`made-up-${i}`, `made-up-${i}\u0000{}`)
    server.count("made-up-0", "made-up-0\u0000{}")
    const counts = server.view().counts
    expect(Object.keys(counts).length).toBe(1_025)
    expect(counts["made-up-0"]).toBe(2)
    expect(counts["(other tools)"]).toBe(2_000 - 1_024)
  })

  it("counts occurrences by a hash of the call, so a call's arguments are not kept", () => {
    const server = state()
    const big = `echo\u0000${JSON.stringify({ text: "x".repeat(1_000_000) })}`
    expect(server.count("echo", big)).toBe(0)
    expect(server.count("echo", big)).toBe(1)
    expect(server.count("echo", "echo\u0000{}")).toBe(0)
    expect(JSON.stringify(server.toJson("route").json.occurrences).length).toBeLessThan(200)
  })
})
