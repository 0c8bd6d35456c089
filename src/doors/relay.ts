/**
 * How the Node door writes an answer's body: a web `Response`'s body relayed as it arrives
 * (`relay`), a model's known frames written straight to the socket (`writeFrames`, the fast path
 * of `registry/frames.ts`), and the headers as Node writes them.
 */
import type * as http from "node:http"
import { type FramesSource, takeFrames } from "../registry/frames.ts"

/** The most bytes of a still-arriving body gathered into one write. */
const COALESCE_LIMIT = 16 * 1024

/** The largest body a streamed answer complete before the event loop turns is sent as in one write. */
const WHOLE_BODY_LIMIT = 64 * 1024

/** Statuses and methods whose responses carry no body. */
export const bodiless = (method: string, status: number) =>
  method === "HEAD" || status === 204 || status === 205 || status === 304

/**
 * A response's headers as Node writes them, with the body's length when the body is whole: the
 * flat `[name, value, …]` list `writeHead` takes (pushed, where an object built name by name
 * cost a store Node then read back), without the framing headers Node sets itself.
 */
export const nodeHeaders = (
  headers: Readonly<Record<string, string>> | Headers,
  length: number | undefined
): Array<string | number | Array<string>> => {
  const out: Array<string | number | Array<string>> = []
  if (headers instanceof Headers) {
    headers.forEach((value, name) => {
      if (name !== "set-cookie" && name !== "transfer-encoding" && name !== "content-length") out.push(name, value)
    })
    const cookies = headers.getSetCookie()
    if (cookies.length > 0) out.push("set-cookie", cookies)
  } else {
    for (const name in headers)
      if (name !== "transfer-encoding" && name !== "content-length") out.push(name, headers[name])
  }
  if (length !== undefined) out.push("content-length", length)
  return out
}

const STILL_ARRIVING = Symbol("stillArriving")

/** The read's result when it settles before the event loop turns, else `STILL_ARRIVING`. */
const readNow = (read: Promise<ReadableStreamReadResult<Uint8Array>>) =>
  new Promise<ReadableStreamReadResult<Uint8Array> | typeof STILL_ARRIVING>((resolve, reject) => {
    const turn = setImmediate(resolve, STILL_ARRIVING)
    read.then(
      (result) => {
        clearImmediate(turn)
        resolve(result)
      },
      (error: unknown) => {
        clearImmediate(turn)
        reject(error)
      }
    )
  })

const SETTLED_LATER = Symbol("settledLater")
const settledLater = Promise.resolve(SETTLED_LATER)

const concat = (chunks: ReadonlyArray<Uint8Array>): Uint8Array =>
  chunks.length === 1 ? chunks[0] : Buffer.concat(chunks)

/**
 * Relays a web response's body. What the body holds before the event loop turns, when it ends
 * there, goes out in one write with its `content-length`; otherwise the head goes out at once
 * (with the first bytes, if any) and the rest as it arrives, what is ready gathered into writes
 * of at most `COALESCE_LIMIT` bytes, waiting for the client to drain. A body that breaks
 * destroys the connection (its client sees a reset, as from a server that died); a client that
 * goes away cancels the body.
 */
export const relay = (
  res: http.ServerResponse,
  method: string,
  response: Response,
  head: (status: number) => void,
  end: () => void,
  headRefused: (cause: unknown) => void
): void => {
  const status = response.status
  const body = response.body
  const writeHead = (length: number | undefined): boolean => {
    try {
      res.writeHead(status, nodeHeaders(response.headers, length))
      head(status)
      return true
    } catch (cause) {
      void body?.cancel().catch(() => undefined)
      headRefused(cause)
      head(502)
      end()
      return false
    }
  }
  if (bodiless(method, status) || body === null) {
    void body?.cancel().catch(() => undefined)
    if (writeHead(bodiless(method, status) ? undefined : 0)) {
      res.end()
      end()
    }
    return
  }
  const source = takeFrames(body)
  if (source !== undefined) {
    writeFrames(res, source, writeHead, end)
    return
  }
  const reader = body.getReader()
  let finished = false
  const finish = () => {
    if (finished) return
    finished = true
    end()
  }
  res.once("close", () => {
    if (!res.writableFinished)
      void reader.cancel(new DOMException("The client went away", "AbortError")).catch(() => undefined)
    finish()
  })
  const broke = () => {
    res.destroy()
    finish()
  }
  void (async () => {
    const chunks: Array<Uint8Array> = []
    let size = 0
    let pending: Promise<ReadableStreamReadResult<Uint8Array>> | undefined
    // What is there before the loop turns: a whole body (a model's JSON answer) goes out in one write.
    try {
      for (;;) {
        const read = reader.read()
        const result = await readNow(read)
        if (result === STILL_ARRIVING) {
          pending = read
          break
        }
        if (result.done) {
          if (writeHead(size)) {
            res.end(size === 0 ? undefined : concat(chunks))
            finish()
          }
          return
        }
        chunks.push(result.value)
        size += result.value.byteLength
        if (size > WHOLE_BODY_LIMIT) break
      }
    } catch {
      if (writeHead(undefined)) broke()
      return
    }
    if (!writeHead(undefined)) return
    if (chunks.length > 0) res.write(concat(chunks))
    else res.flushHeaders()
    try {
      for (;;) {
        if (res.destroyed) return
        const first = await (pending ?? reader.read())
        pending = undefined
        if (first.done) break
        const batch = [first.value]
        let batched = first.value.byteLength
        let ended = false
        while (batched < COALESCE_LIMIT) {
          const next = reader.read()
          const result = await Promise.race([next, settledLater])
          if (result === SETTLED_LATER) {
            pending = next
            break
          }
          if (result.done) {
            ended = true
            break
          }
          batch.push(result.value)
          batched += result.value.byteLength
        }
        if (res.destroyed) return
        if (!res.write(concat(batch))) await drained(res)
        if (ended) break
      }
    } catch {
      return broke()
    }
    if (!res.destroyed) res.end()
    finish()
  })()
}

/**
 * Writes a body's frames straight to the socket (`registry/frames.ts`), as `relay` writes a body read
 * as a stream: all of them in one write with their length when they come to at most
 * `WHOLE_BODY_LIMIT`, else the head at once and the frames gathered into writes of about
 * `COALESCE_LIMIT`, waiting for the client to drain. A client that goes away ends the frames.
 */
const writeFrames = (
  res: http.ServerResponse,
  source: FramesSource,
  writeHead: (length: number | undefined) => boolean,
  end: () => void
): void => {
  let finished = false
  let exhausted = false
  const finish = () => {
    if (finished) return
    finished = true
    source.end()
    end()
  }
  const gather = (limit: number): string => {
    let out = ""
    while (out.length < limit) {
      const next = source.frames.next()
      if (next.done === true) {
        exhausted = true
        break
      }
      out += next.value
    }
    return out
  }
  let pending: string
  try {
    pending = gather(WHOLE_BODY_LIMIT)
  } catch {
    // Frames that cannot be made break the answer as a body that breaks does: the client sees a reset.
    if (writeHead(undefined)) res.destroy()
    finish()
    return
  }
  if (exhausted) {
    if (writeHead(Buffer.byteLength(pending))) {
      res.end(pending)
      finish()
    }
    return
  }
  if (!writeHead(undefined)) return
  res.once("close", finish)
  const pump = (): void => {
    try {
      while (!res.destroyed) {
        if (pending === "") {
          if (exhausted) {
            res.end()
            finish()
            return
          }
          pending = gather(COALESCE_LIMIT)
          continue
        }
        const chunk = pending
        pending = ""
        if (!res.write(chunk)) return void res.once("drain", pump)
      }
    } catch {
      res.destroy()
    }
    finish()
  }
  pump()
}

/** Until the client has taken what was written, or gone. */
const drained = (res: http.ServerResponse): Promise<void> =>
  new Promise((resolve) => {
    const done = () => {
      res.off("drain", done)
      res.off("close", done)
      resolve()
    }
    res.once("drain", done)
    res.once("close", done)
  })
