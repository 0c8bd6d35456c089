/**
 * OpenAI's endpoints beyond chat, through the `openai` SDK (and the AI SDK's image, speech and
 * transcription functions): images as PNGs pngjs decodes, by `b64_json` and by a URL simnet
 * serves; speech as WAV and MP3 that music-metadata parses (format, rate, duration); transcription
 * and translation from the script in every response format; moderation. Each is the same for the
 * same seed.
 */
import { parseBuffer } from "music-metadata"
import { PNG } from "pngjs"
import { createOpenAI } from "@ai-sdk/openai"
import {
  experimental_generateImage as generateImage,
  experimental_generateSpeech as generateSpeech,
  experimental_transcribe as transcribe
} from "ai"
import OpenAI, { toFile } from "openai"
import { describe, expect, it } from "vitest"
import { Routes, SimulationNetwork } from "simnet"

/** Decodes a PNG with pngjs (which checks its CRCs and zlib stream): its size, and its pixels' first bytes. */
const readPng = (bytes: Buffer) => {
  const png = PNG.sync.read(bytes)
  expect(png.data.length).toBe(png.width * png.height * 4)
  return { width: png.width, height: png.height }
}

const start = (seed = 1) => SimulationNetwork.start({ seed, routes: Routes.openai() })

describe("OpenAI images", () => {
  it("generates valid PNGs as b64_json and as a URL simnet serves, the same for the same seed", async () => {
    const handle = await start()
    const client = new OpenAI({ apiKey: "sk-test", fetch: handle.fetch })
    const made = await client.images.generate({ model: "gpt-image-1", prompt: "a red fox", size: "256x256", n: 2 })
    expect(made.data).toHaveLength(2)
    const first = Buffer.from(made.data![0]!.b64_json!, "base64")
    expect(readPng(first)).toEqual({ width: 256, height: 256 })
    expect(made.data![1]!.b64_json).not.toBe(made.data![0]!.b64_json)
    const linked = await client.images.generate({
      model: "dall-e-3",
      prompt: "a red fox",
      size: "1024x1792",
      response_format: "url"
    })
    const served = await handle.fetch(linked.data![0]!.url!)
    expect(served.headers.get("content-type")).toBe("image/png")
    expect(readPng(Buffer.from(await served.arrayBuffer()))).toEqual({ width: 1024, height: 1792 })
    await expect(client.images.generate({ prompt: "x", size: "99999x1" as never })).rejects.toMatchObject({
      status: 400
    })
    const again = await start()
    expect(
      (
        await new OpenAI({ apiKey: "sk-test", fetch: again.fetch }).images.generate({
          model: "gpt-image-1",
          prompt: "a red fox",
          size: "256x256",
          n: 2
        })
      ).data
    ).toEqual(made.data)
    const ai = await generateImage({
      model: createOpenAI({ apiKey: "sk-test", fetch: handle.fetch }).image("gpt-image-1"),
      prompt: "a red fox",
      size: "256x256"
    })
    expect(readPng(Buffer.from(ai.image.uint8Array))).toEqual({ width: 256, height: 256 })
    await handle.close()
    await again.close()
  })
})

describe("OpenAI speech, transcription, translation and moderation", () => {
  it("speaks WAV with a valid header and MP3 frames, seeded", async () => {
    const handle = await start(4)
    const client = new OpenAI({ apiKey: "sk-test", fetch: handle.fetch })
    const wav = await client.audio.speech.create({
      model: "gpt-4o-mini-tts",
      voice: "alloy",
      input: "Hello there, friend.",
      response_format: "wav"
    })
    expect(wav.headers.get("content-type")).toBe("audio/wav")
    const bytes = Buffer.from(await wav.arrayBuffer())
    const wavInfo = (await parseBuffer(bytes, { mimeType: "audio/wav" }, { duration: true })).format
    expect(wavInfo).toMatchObject({ container: "WAVE", sampleRate: 24_000, numberOfChannels: 1, bitsPerSample: 16 })
    expect(wavInfo.duration).toBeCloseTo(0.06, 5)
    const mp3 = Buffer.from(
      await (
        await client.audio.speech.create({ model: "tts-1", voice: "alloy", input: "Hello there, friend." })
      ).arrayBuffer()
    )
    const mp3Info = (await parseBuffer(mp3, { mimeType: "audio/mpeg" }, { duration: true })).format
    expect(mp3Info).toMatchObject({ container: "MPEG", codec: "MPEG 1 Layer 3", sampleRate: 44_100, bitrate: 128_000 })
    const ai = await generateSpeech({
      model: createOpenAI({ apiKey: "sk-test", fetch: handle.fetch }).speech("tts-1"),
      text: "Hello there, friend.",
      outputFormat: "wav"
    })
    expect(Buffer.from(ai.audio.uint8Array)).toEqual(bytes)
    await handle.close()
  })

  it("transcribes and translates with the script's text, in every format, streamed too", async () => {
    const handle = await start()
    handle.llm.rule(
      { contains: ".wav" },
      { type: "respond", steps: [[{ type: "text", content: "We ship on Friday." }]] }
    )
    const client = new OpenAI({ apiKey: "sk-test", fetch: handle.fetch })
    const file = () => toFile(Buffer.from("RIFF0000WAVE"), "meeting.wav", { type: "audio/wav" })
    expect((await client.audio.transcriptions.create({ model: "gpt-4o-transcribe", file: await file() })).text).toBe(
      "We ship on Friday."
    )
    expect(
      await client.audio.transcriptions.create({ model: "whisper-1", file: await file(), response_format: "text" })
    ).toBe("We ship on Friday.\n")
    expect(
      await client.audio.transcriptions.create({ model: "whisper-1", file: await file(), response_format: "srt" })
    ).toBe("1\n00:00:00,000 --> 00:00:01,600\nWe ship on Friday.\n\n")
    expect(
      await client.audio.transcriptions.create({ model: "whisper-1", file: await file(), response_format: "vtt" })
    ).toMatch(/^WEBVTT\n\n00:00:00.000 --> /)
    const verbose = await client.audio.translations.create({
      model: "whisper-1",
      file: await file(),
      response_format: "verbose_json"
    })
    expect(verbose).toMatchObject({
      task: "translate",
      text: "We ship on Friday.",
      segments: [{ text: "We ship on Friday." }]
    })
    const stream = await client.audio.transcriptions.create({
      model: "gpt-4o-transcribe",
      file: await file(),
      stream: true
    })
    const deltas: Array<string> = []
    let done = ""
    for await (const event of stream) {
      if (event.type === "transcript.text.delta") deltas.push(event.delta)
      if (event.type === "transcript.text.done") done = event.text
    }
    expect(deltas.join("")).toBe("We ship on Friday.")
    expect(done).toBe("We ship on Friday.")
    const ai = await transcribe({
      model: createOpenAI({ apiKey: "sk-test", fetch: handle.fetch }).transcription("whisper-1"),
      audio: new Uint8Array(Buffer.from("RIFF0000WAVE"))
    })
    expect(ai.text).toBe("We ship on Friday.")
    expect(handle.llm.log.map((entry) => entry.api)).toEqual([
      ...Array(4).fill("openai.transcription"),
      "openai.translation",
      "openai.transcription",
      "openai.transcription"
    ])
    await handle.close()
  })

  it("moderates with seeded scores, nothing flagged, the same for the same seed", async () => {
    const one = await start(9)
    const two = await start(9)
    const moderate = (fetch: typeof globalThis.fetch) =>
      new OpenAI({ apiKey: "sk-test", fetch }).moderations.create({
        model: "omni-moderation-latest",
        input: ["hello", "world"]
      })
    const a = await moderate(one.fetch)
    expect(a.results).toHaveLength(2)
    expect(a.results[0]!.flagged).toBe(false)
    expect(Object.values(a.results[0]!.category_scores).every((score) => score >= 0 && score < 0.01)).toBe(true)
    expect((await moderate(two.fetch)).results).toEqual(a.results)
    await one.close()
    await two.close()
  })
})
