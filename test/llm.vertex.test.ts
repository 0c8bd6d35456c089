/**
 * Google Vertex AI, judged by its official clients: `@anthropic-ai/vertex-sdk` (create and
 * stream) and `@google/genai` with `vertexai: true` (a project's calls and express mode), each
 * authenticating with a service account whose token simnet's Google OAuth route issues — so the
 * whole flow runs in this process (`installGlobal`), and the signed assertion is never logged.
 */
import { generateKeyPairSync } from "node:crypto"
import AnthropicVertex from "@anthropic-ai/vertex-sdk"
import { GoogleGenAI } from "@google/genai"
import { GoogleAuth } from "google-auth-library"
import { describe, expect, it } from "vitest"
import { Routes, SimulationNetwork } from "simnet"

const SCOPE = "https://www.googleapis.com/auth/cloud-platform"
const serviceAccount = () => {
  const { privateKey } = generateKeyPairSync("rsa", { modulusLength: 2048 })
  return {
    type: "service_account",
    project_id: "my-project",
    client_email: "agent@my-project.iam.gserviceaccount.com",
    private_key: privateKey.export({ type: "pkcs8", format: "pem" }).toString()
  }
}

describe("Vertex AI through its official clients", () => {
  it("answers Claude (create and stream) and Gemini (generate and stream) for a service account, and Gemini in express mode", async () => {
    const handle = await SimulationNetwork.start({ routes: Routes.vertex() })
    handle.llm.rule("any", { type: "respond", steps: [[{ type: "text", content: "From Vertex." }]] })
    const credentials = serviceAccount()
    const restore = await handle.installGlobal()
    try {
      const claude = new AnthropicVertex({
        region: "us-central1",
        projectId: "my-project",
        googleAuth: new GoogleAuth({ credentials, scopes: SCOPE })
      })
      const created = await claude.messages.create({
        model: "claude-sonnet-4@20250514",
        max_tokens: 64,
        messages: [{ role: "user", content: "hi" }]
      })
      expect(created.content).toEqual([{ type: "text", text: "From Vertex." }])
      const deltas: Array<string> = []
      const stream = claude.messages.stream({
        model: "claude-sonnet-4@20250514",
        max_tokens: 64,
        messages: [{ role: "user", content: "hi" }]
      })
      stream.on("text", (delta) => deltas.push(delta))
      expect((await stream.finalMessage()).content).toEqual([{ type: "text", text: "From Vertex." }])
      expect(deltas.join("")).toBe("From Vertex.")

      const gemini = new GoogleGenAI({
        vertexai: true,
        project: "my-project",
        location: "us-central1",
        googleAuthOptions: { credentials, scopes: SCOPE }
      })
      expect((await gemini.models.generateContent({ model: "gemini-2.5-flash", contents: "hi" })).text).toBe(
        "From Vertex."
      )
      let text = ""
      for await (const chunk of await gemini.models.generateContentStream({
        model: "gemini-2.5-flash",
        contents: "hi"
      }))
        text += chunk.text ?? ""
      expect(text).toBe("From Vertex.")

      const express = new GoogleGenAI({ vertexai: true, apiKey: "vertex-express-key" })
      expect((await express.models.generateContent({ model: "gemini-2.5-flash", contents: "hi" })).text).toBe(
        "From Vertex."
      )
    } finally {
      await restore()
    }
    expect(handle.llm.log.map((entry) => [entry.api, entry.model, entry.stream])).toEqual([
      ["vertex.anthropic", "claude-sonnet-4@20250514", false],
      ["vertex.anthropic", "claude-sonnet-4@20250514", true],
      ["vertex.gemini", "gemini-2.5-flash", false],
      ["vertex.gemini", "gemini-2.5-flash", true],
      ["vertex.gemini", "gemini-2.5-flash", false]
    ])
    const log = handle.log()
    const urls = log.map((record) => record.url)
    expect(urls).toContain("https://oauth2.googleapis.com/token")
    expect(urls).toContain(
      "https://us-central1-aiplatform.googleapis.com/v1/projects/my-project/locations/us-central1/publishers/anthropic/models/claude-sonnet-4@20250514:streamRawPredict"
    )
    expect(urls.some((url) => url.startsWith("https://aiplatform.googleapis.com/"))).toBe(true)
    const shown = JSON.stringify(log)
    expect(shown).toContain("assertion=<redacted>")
    expect(shown).not.toMatch(/assertion=eyJ/)
    expect(shown).not.toContain("ya29.simnet")
    await handle.close()
  })
})
