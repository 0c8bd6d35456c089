/**
 * OpenAI's endpoints beyond chat that answer from the run seed rather than the script, each the
 * same for the same seed and input:
 * - `POST {base}/images/generations`: a valid PNG per image (a seeded 8×8 grid of colours at the
 *   asked `size`), as `b64_json` or, with `response_format: "url"`, a URL simnet serves
 *   (`GET {base}/images/simnet/{digest}/{W}x{H}.png`, made again from its digest);
 * - `POST {base}/audio/speech`: audio of the input's length in the asked `response_format` — WAV
 *   and PCM seeded quiet PCM16 at 24 kHz, MP3 valid silent frames, others seeded bytes —, with
 *   its content type;
 * - `POST {base}/moderations`: every category scored low from the seed, nothing flagged.
 */
import { crc32, deflateSync } from "node:zlib"
import { createHash } from "../../registry/util.ts"
import type { RespondContext, SimRequest } from "../../registry/route.ts"
import { whole, type Whole } from "../../registry/answer.ts"
import { jsonWhole } from "../wire/call.ts"
import type { PartsEndpoint } from "../wire/modelApi.ts"
import { openAiErrorBody } from "./chatWire.ts"
import { seededAudio } from "../wire/socketCalls.ts"

const digestOf = (...parts: ReadonlyArray<string | number>): Buffer =>
  createHash("sha256").update(parts.join("\u0000")).digest()

/** An image's colours come from 16 bytes (the digest a served image's URL carries), taken twice. */
const colours = (digest: Buffer): Buffer => Buffer.concat([digest.subarray(0, 16), digest.subarray(0, 16)])

const chunk = (type: string, data: Buffer): Buffer => {
  const head = Buffer.alloc(8)
  head.writeUInt32BE(data.length, 0)
  head.write(type, 4, "latin1")
  const crc = Buffer.alloc(4)
  crc.writeUInt32BE(crc32(Buffer.concat([head.subarray(4), data])) >>> 0, 0)
  return Buffer.concat([head, data, crc])
}

const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])
/** The largest side simnet draws (the API's largest is 1792), which bounds an image's memory. */
const MAX_SIDE = 2048

/** A valid RGB PNG of `width`×`height`: an 8×8 grid of colours drawn from `digest`. */
export const seededPng = (digest: Buffer, width: number, height: number): Buffer => {
  const row = Buffer.alloc(1 + width * 3)
  const raw = Buffer.alloc(row.length * height)
  for (let y = 0; y < height; y++) {
    const band = Math.floor((y * 8) / height)
    for (let x = 0; x < width; x++) {
      const cell = (band * 8 + Math.floor((x * 8) / width)) % 32
      row[1 + x * 3] = digest[cell]!
      row[2 + x * 3] = digest[(cell + 11) % 32]!
      row[3 + x * 3] = digest[(cell + 23) % 32]!
    }
    row.copy(raw, y * row.length)
  }
  const header = Buffer.alloc(13)
  header.writeUInt32BE(width, 0)
  header.writeUInt32BE(height, 4)
  header[8] = 8 // bit depth
  header[9] = 2 // RGB
  return Buffer.concat([
    PNG_SIGNATURE,
    chunk("IHDR", header),
    chunk("IDAT", deflateSync(raw)),
    chunk("IEND", Buffer.alloc(0))
  ])
}

const sizeOf = (size: unknown): { readonly width: number; readonly height: number } | undefined => {
  if (size === undefined || size === "auto") return { width: 1024, height: 1024 }
  const m = typeof size === "string" ? /^(\d{1,4})x(\d{1,4})$/.exec(size) : null
  if (m === null) return undefined
  const width = Number(m[1])
  const height = Number(m[2])
  return width > 0 && height > 0 && width <= MAX_SIDE && height <= MAX_SIDE ? { width, height } : undefined
}

const bad = (message: string): Whole => jsonWhole(openAiErrorBody(400, `simnet: ${message}`, undefined), 400)

const bodyOf = (request: SimRequest): Record<string, unknown> | undefined => {
  const body = request.json()
  return typeof body === "object" && body !== null && !Array.isArray(body)
    ? (body as Record<string, unknown>)
    : undefined
}

const imagesAnswer = (request: SimRequest, context: RespondContext): Whole => {
  const body = bodyOf(request)
  if (body === undefined || typeof body.prompt !== "string")
    return bad("an image generation request is a JSON object with a prompt")
  const size = sizeOf(body.size)
  if (size === undefined) return bad(`size must be WIDTHxHEIGHT (each 1-${MAX_SIDE}) or "auto"`)
  const n = body.n === undefined ? 1 : Number(body.n)
  if (!Number.isInteger(n) || n < 1 || n > 10) return bad("n must be a whole number from 1 to 10")
  const asUrl = body.response_format === "url"
  const base = request.url.href.slice(0, request.url.href.indexOf("/images/generations"))
  const data = Array.from({ length: n }, (_, index) => {
    const digest = digestOf(context.runSeed, String(body.model ?? ""), body.prompt as string, index)
    return asUrl
      ? {
          url: `${base}/images/simnet/${digest.toString("hex").slice(0, 32)}/${size.width}x${size.height}.png`,
          revised_prompt: body.prompt
        }
      : { b64_json: seededPng(colours(digest), size.width, size.height).toString("base64") }
  })
  return jsonWhole(
    {
      created: 1_715_367_049,
      data,
      usage: {
        total_tokens: 0,
        input_tokens: 0,
        output_tokens: 0,
        input_tokens_details: { text_tokens: 0, image_tokens: 0 }
      }
    },
    200
  )
}

const imageFileAnswer = (request: SimRequest): Whole => {
  const digest = request.params.digest ?? ""
  const size = sizeOf((request.params.size ?? "").replace(/\.png$/, ""))
  if (!/^[0-9a-f]{32}$/.test(digest) || size === undefined)
    return jsonWhole(openAiErrorBody(404, "simnet: no such image", undefined), 404)
  return whole(
    200,
    { "content-type": "image/png", "cache-control": "public, max-age=31536000" },
    seededPng(colours(Buffer.from(digest, "hex")), size.width, size.height)
  )
}

/** The content type of each speech format. */
const SPEECH_TYPES: Readonly<Record<string, string>> = {
  mp3: "audio/mpeg",
  opus: "audio/opus",
  aac: "audio/aac",
  flac: "audio/flac",
  wav: "audio/wav",
  pcm: "audio/pcm"
}

/** An MPEG-1 Layer III frame of silence at 128 kb/s, 44.1 kHz (417 bytes, 26 ms). */
const MP3_FRAME = Buffer.concat([Buffer.from([0xff, 0xfb, 0x90, 0x64]), Buffer.alloc(413)])

const wavOf = (pcm: Buffer): Buffer => {
  const head = Buffer.alloc(44)
  head.write("RIFF", 0, "latin1")
  head.writeUInt32LE(36 + pcm.length, 4)
  head.write("WAVEfmt ", 8, "latin1")
  head.writeUInt32LE(16, 16)
  head.writeUInt16LE(1, 20) // PCM
  head.writeUInt16LE(1, 22) // mono
  head.writeUInt32LE(24_000, 24)
  head.writeUInt32LE(48_000, 28)
  head.writeUInt16LE(2, 32)
  head.writeUInt16LE(16, 34)
  head.write("data", 36, "latin1")
  head.writeUInt32LE(pcm.length, 40)
  return Buffer.concat([head, pcm])
}

const speechAnswer = (request: SimRequest, context: RespondContext): Whole => {
  const body = bodyOf(request)
  if (body === undefined || typeof body.input !== "string" || body.input.length === 0)
    return bad("a speech request is a JSON object with a non-empty input")
  if (body.input.length > 4096) return bad("input is at most 4096 characters")
  const format = typeof body.response_format === "string" ? body.response_format : "mp3"
  const type = SPEECH_TYPES[format]
  if (type === undefined) return bad(`response_format must be one of ${Object.keys(SPEECH_TYPES).join(", ")}`)
  const pcm = Buffer.from(
    seededAudio(`${context.runSeed}/speech/${String(body.voice ?? "")}/${body.input}`, body.input),
    "base64"
  )
  const words = Math.max(1, body.input.trim().split(/\s+/).length)
  const bytes =
    format === "wav"
      ? wavOf(pcm)
      : format === "pcm"
        ? pcm
        : format === "mp3"
          ? Buffer.concat(Array.from({ length: words }, () => MP3_FRAME))
          : pcm
  return whole(200, { "content-type": type }, bytes)
}

const MODERATION_CATEGORIES = [
  "harassment",
  "harassment/threatening",
  "hate",
  "hate/threatening",
  "illicit",
  "illicit/violent",
  "self-harm",
  "self-harm/intent",
  "self-harm/instructions",
  "sexual",
  "sexual/minors",
  "violence",
  "violence/graphic"
]

const moderationAnswer = (request: SimRequest, context: RespondContext): Whole => {
  const body = bodyOf(request)
  const input = body?.input
  const texts =
    typeof input === "string"
      ? [input]
      : Array.isArray(input)
        ? input.map((item) => (typeof item === "string" ? item : JSON.stringify(item)))
        : undefined
  if (texts === undefined) return bad("a moderation request is a JSON object with an input")
  const model = typeof body?.model === "string" ? body.model : "omni-moderation-latest"
  const results = texts.map((text) => {
    const digest = digestOf(context.runSeed, "moderation", text)
    const categories: Record<string, boolean> = {}
    const scores: Record<string, number> = {}
    const applied: Record<string, ReadonlyArray<string>> = {}
    MODERATION_CATEGORIES.forEach((category, i) => {
      categories[category] = false
      scores[category] = Number((digest.readUInt16BE((i * 2) % 30) / 65_536 / 100).toPrecision(6))
      applied[category] = ["text"]
    })
    return { flagged: false, categories, category_scores: scores, category_applied_input_types: applied }
  })
  return jsonWhole(
    {
      id: `modr-sim-${digestOf(context.runSeed, ...texts)
        .toString("hex")
        .slice(0, 16)}`,
      model,
      results
    },
    200
  )
}

/** `POST {base}/images/generations` and the images it serves by URL, `POST {base}/audio/speech`, `POST {base}/moderations`. */
export const mediaEndpoints: ReadonlyArray<PartsEndpoint> = [
  {
    name: "images",
    method: "POST",
    path: "/images/generations",
    endpoint: "images/generations",
    parts: { answer: imagesAnswer }
  },
  {
    name: "images.file",
    method: "GET",
    path: "/images/simnet/:digest/:size",
    endpoint: "images/simnet/{digest}/{size}.png",
    parts: { answer: imageFileAnswer }
  },
  { name: "speech", method: "POST", path: "/audio/speech", endpoint: "audio/speech", parts: { answer: speechAnswer } },
  {
    name: "moderations",
    method: "POST",
    path: "/moderations",
    endpoint: "moderations",
    parts: { answer: moderationAnswer }
  }
]
