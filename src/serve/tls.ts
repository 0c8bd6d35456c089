/**
 * TLS for the proxy's tunnels off the thread that answers the routes (`tlsThread.ts` says why and
 * how): one worker per CA, started with its first tunnel, kept for every server given that CA (its
 * hosts' certificates made once) and never holding the process open. `open` hands a connection's
 * bytes to it and gives back the plaintext as a stream for the HTTP server, which sees a
 * connection like any other. A worker that fails takes its connections with it; the next tunnel
 * starts another.
 */
import type { Duplex } from "node:stream"
import { Worker } from "node:worker_threads"
import type { CertificateAuthority } from "./ca.ts"
import { CIPHER, PLAIN, PortStream, ROLE, type TlsMessage, type TlsWorkerData } from "./tlsThread.ts"

/** The worker's script: this checkout's source, or the compiled file the build writes beside this module. */
const WORKER_FILE = new URL(import.meta.url.endsWith(".ts") ? "./tlsThread.ts" : "./tlsThread.js", import.meta.url)

/** TLS terminated off the main thread, for one CA. */
export interface TlsTerminator {
  /**
   * Terminates TLS on `raw` (a tunnel's bytes, or a connection adopted from a sealed run) with a
   * certificate for the name the client sends (SNI), `name` when it sends none: the plaintext.
   * Closing either closes both.
   */
  readonly open: (raw: Duplex, name: string) => Duplex
  /** The handshakes completed so far, and the threads they ran on. */
  readonly handshakes: () => { readonly count: number; readonly threadIds: ReadonlySet<number> }
}

const terminators = new WeakMap<CertificateAuthority, TlsTerminator>()

/** The terminator of `ca`'s tunnels: one per CA, made with its first use. */
export const terminatorOf = (ca: CertificateAuthority): TlsTerminator => {
  let found = terminators.get(ca)
  if (found === undefined) terminators.set(ca, (found = terminator(ca)))
  return found
}

const terminator = (ca: CertificateAuthority): TlsTerminator => {
  let worker: Worker | undefined
  const connections = new Map<number, readonly [PortStream, PortStream, Duplex]>()
  let opened = 0
  let handshakes = 0
  const threadIds = new Set<number>()
  const post = (message: TlsMessage, transfer?: ReadonlyArray<ArrayBuffer>) => worker?.postMessage(message, transfer as Array<ArrayBuffer> | undefined)
  const close = (id: number, tell: boolean) => {
    const streams = connections.get(id)
    if (streams === undefined) return
    connections.delete(id)
    if (tell) post({ op: "close", id })
    for (const stream of streams) stream.destroy()
  }
  const running = (): Worker => {
    if (worker !== undefined) return worker
    const data: TlsWorkerData = { role: ROLE, certPem: ca.certPem, keyPem: ca.keyPem }
    const made = new Worker(WORKER_FILE, { workerData: data })
    made.on("message", (message: TlsMessage) => {
      if (message.op === "close") return close(message.id, false)
      if (message.op === "handshake") {
        handshakes++
        threadIds.add(message.threadId)
        return
      }
      if (message.op === "data" || message.op === "ack" || message.op === "end") connections.get(message.id)?.[message.stream === PLAIN ? PLAIN : CIPHER].receive(message)
    })
    const gone = () => {
      if (worker === made) worker = undefined
      for (const id of [...connections.keys()]) close(id, false)
    }
    made.once("error", gone)
    made.once("exit", gone)
    // Unreferenced after its listeners are added (a `message` listener references the port again).
    made.unref()
    return (worker = made)
  }
  return {
    open: (raw, name) => {
      running()
      const id = ++opened
      const cipher = new PortStream(post, id, CIPHER)
      const plain = new PortStream(post, id, PLAIN)
      connections.set(id, [cipher, plain, raw])
      cipher.onDestroy = plain.onDestroy = () => close(id, true)
      raw.on("error", () => raw.destroy())
      raw.once("close", () => close(id, true))
      post({ op: "open", id, name })
      raw.pipe(cipher)
      cipher.pipe(raw)
      return plain
    },
    handshakes: () => ({ count: handshakes, threadIds })
  }
}
