/**
 * The model APIs spoken over a WebSocket, judged by their official clients: OpenAI Realtime
 * through the `openai` SDK's `OpenAIRealtimeWS` (in process, over `network.createConnection`) and
 * Gemini Live through `@google/genai`'s `ai.live.connect` (against `simnet serve` on loopback).
 * Each runs a tool round from one queued script; Realtime's audio is seeded bytes, the same for
 * the same seed.
 */
import { mkdtempSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { GoogleGenAI, type LiveServerMessage, Modality } from "@google/genai"
import OpenAI from "openai"
import type { RealtimeServerEvent } from "openai/resources/realtime/realtime"
import { OpenAIRealtimeWS } from "openai/realtime/ws"
import { afterAll, describe, expect, it } from "vitest"
import { Routes, SimulationNetwork } from "simnet"
import { serve, stopAll } from "./support/serve.ts"

afterAll(stopAll)

const SCRIPT = {
  steps: [
    [{ type: "tool_call" as const, name: "read", input: { path: "a.txt" } }],
    [{ type: "text" as const, content: "It says hello." }]
  ]
}

/** Collects a socket client's messages and waits for one that `found` picks. */
const inbox = <M>() => {
  const messages: Array<M> = []
  let wake = () => {}
  return {
    messages,
    push: (message: M) => {
      messages.push(message)
      wake()
    },
    until: async (found: (message: M) => boolean): Promise<M> => {
      for (let seen = 0; ; ) {
        const hit = messages.slice(seen).find(found)
        if (hit !== undefined) return hit
        seen = messages.length
        await new Promise<void>((resolve) => (wake = resolve))
      }
    }
  }
}

const realtimeRun = async (seed: number) => {
  const handle = await SimulationNetwork.start({ seed, routes: Routes.openai() })
  handle.llm.enqueue(SCRIPT)
  const socket = new OpenAIRealtimeWS(
    { model: "gpt-realtime", options: { createConnection: handle.createConnection as never } },
    new OpenAI({ apiKey: "sk-test" })
  )
  const box = inbox<RealtimeServerEvent>()
  socket.on("event", box.push)
  await box.until((event) => event.type === "session.created")
  socket.send({
    type: "session.update",
    session: {
      type: "realtime",
      output_modalities: ["text"],
      tools: [{ type: "function", name: "read", parameters: { type: "object" } }]
    }
  })
  socket.send({
    type: "conversation.item.create",
    item: { type: "message", role: "user", content: [{ type: "input_text", text: "What does a.txt say?" }] }
  })
  socket.send({ type: "response.create" })
  const first = await box.until((event) => event.type === "response.done")
  const call = first.type === "response.done" ? first.response.output?.[0] : undefined
  socket.send({
    type: "conversation.item.create",
    item: {
      type: "function_call_output",
      call_id: call?.type === "function_call" ? call.call_id! : "",
      output: "hello"
    }
  })
  socket.send({ type: "session.update", session: { type: "realtime", output_modalities: ["audio"] } })
  socket.send({ type: "response.create" })
  const second = await box.until((event) => event.type === "response.done" && event !== first)
  socket.close()
  const audio = box.messages.flatMap((event) => (event.type === "response.output_audio.delta" ? [event.delta] : []))
  const transcript = box.messages
    .flatMap((event) => (event.type === "response.output_audio_transcript.delta" ? [event.delta] : []))
    .join("")
  const log = handle.llm.log.map((entry) => [entry.api, entry.toolResultRounds, entry.lastUserMessage])
  await handle.close()
  return { call, second, audio, transcript, log, types: box.messages.map((event) => event.type) }
}

describe("OpenAI Realtime through OpenAIRealtimeWS", () => {
  it("runs a tool round in text, then answers in seeded audio with its transcript", async () => {
    const run = await realtimeRun(5)
    expect(run.call).toMatchObject({ type: "function_call", name: "read", arguments: '{"path":"a.txt"}' })
    expect(run.transcript).toBe("It says hello.")
    expect(run.second).toMatchObject({
      type: "response.done",
      response: {
        status: "completed",
        output: [{ type: "message", content: [{ type: "output_audio", transcript: "It says hello." }] }]
      }
    })
    expect(run.audio).toHaveLength(3)
    expect(Buffer.from(run.audio[0]!, "base64").length).toBe(960)
    expect(run.types.slice(0, 4)).toEqual([
      "session.created",
      "session.updated",
      "conversation.item.added",
      "conversation.item.done"
    ])
    expect(run.types).toContain("response.function_call_arguments.done")
    expect(run.log).toEqual([
      ["openai.realtime", 0, "What does a.txt say?"],
      ["openai.realtime", 1, "What does a.txt say?"]
    ])
    const again = await realtimeRun(5)
    expect(again.audio).toEqual(run.audio)
    const other = await realtimeRun(6)
    expect(other.audio).not.toEqual(run.audio)
  })

  it("answers a frame it cannot take with an error event and stays open", async () => {
    const handle = await SimulationNetwork.start({ routes: Routes.openai() })
    const socket = new OpenAIRealtimeWS(
      { model: "gpt-realtime", options: { createConnection: handle.createConnection as never } },
      new OpenAI({ apiKey: "sk-test" })
    )
    const box = inbox<RealtimeServerEvent>()
    socket.on("event", box.push)
    socket.on("error", () => undefined)
    await box.until((event) => event.type === "session.created")
    socket.send({ type: "conversation.item.retrieve", item_id: "nope" })
    const error = await box.until((event) => event.type === "error")
    expect(error).toMatchObject({ type: "error", error: { code: "unknown_event" } })
    socket.send({ type: "session.update", session: { type: "realtime", instructions: "Be brief." } })
    expect(await box.until((event) => event.type === "session.updated")).toMatchObject({
      session: { instructions: "Be brief." }
    })
    socket.close()
    await handle.close()
  })
})

describe("Gemini Live through @google/genai", () => {
  it("runs a tool round over simnet serve: setupComplete, toolCall, toolResponse, the answer's text and turnComplete", async () => {
    const dir = mkdtempSync(join(tmpdir(), "simnet-live-"))
    const fixture = join(dir, "fixture.json")
    writeFileSync(fixture, JSON.stringify({ routes: [{ family: "gemini" }], llm: [SCRIPT] }))
    const served = await serve(["--fixture", fixture])
    const ai = new GoogleGenAI({
      apiKey: "live-test-key",
      httpOptions: { baseUrl: `http://127.0.0.1:${served.port}/generativelanguage.googleapis.com` }
    })
    const box = inbox<LiveServerMessage>()
    const session = await ai.live.connect({
      model: "gemini-live-2.5-flash-preview",
      config: { responseModalities: [Modality.TEXT], tools: [{ functionDeclarations: [{ name: "read" }] }] },
      callbacks: { onmessage: box.push }
    })
    session.sendClientContent({
      turns: [{ role: "user", parts: [{ text: "What does a.txt say?" }] }],
      turnComplete: true
    })
    const call = (await box.until((message) => message.toolCall !== undefined)).toolCall!.functionCalls![0]!
    expect(call).toMatchObject({ name: "read", args: { path: "a.txt" } })
    session.sendToolResponse({ functionResponses: [{ id: call.id!, name: "read", response: { output: "hello" } }] })
    await box.until((message) => message.serverContent?.turnComplete === true)
    session.close()
    expect(box.messages[0]!.setupComplete).toEqual({})
    expect(box.messages.map((message) => message.text ?? "").join("")).toBe("It says hello.")
    const snapshot = (await (await fetch(`${served.control}/snapshot`)).json()) as {
      readonly llm: { readonly log: ReadonlyArray<{ readonly api: string; readonly toolResultRounds: number }> }
    }
    expect(snapshot.llm.log.map((entry) => [entry.api, entry.toolResultRounds])).toEqual([
      ["gemini.live", 0],
      ["gemini.live", 1]
    ])
  })
})
