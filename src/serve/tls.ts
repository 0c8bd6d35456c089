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
import { opened as handshakeBegun, touch } from "../registry/activity.ts"
import { socketLike } from "../doors/connection.ts"
import type { CertificateAuthority } from "./ca.ts"
import { Connections, ROLE, type TlsMessage, type TlsWorkerData } from "./tlsThread.ts"

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
  // Every message either way is activity (`registry/activity.ts`): a request on its way through the thread.
  const connections = new Connections((message, transfer) => {
    touch()
    worker?.postMessage(message, transfer as Array<ArrayBuffer> | undefined)
  })
  /** Each connection's handshake under way: ended when it completes or the connection closes. */
  const shaking = new Map<number, () => void>()
  let opened = 0
  let handshakes = 0
  const threadIds = new Set<number>()
  const running = (): Worker => {
    if (worker !== undefined) return worker
    const data: TlsWorkerData = { role: ROLE, certPem: ca.certPem, keyPem: ca.keyPem }
    const made = new Worker(WORKER_FILE, { workerData: data })
    made.on("message", (message: TlsMessage) => {
      touch()
      if (message.op !== "handshake") return connections.receive(message)
      shaking.get(message.id)?.()
      shaking.delete(message.id)
      handshakes++
      threadIds.add(message.threadId)
    })
    const gone = () => {
      if (worker === made) worker = undefined
      connections.closeAll()
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
      const [cipher, plain] = connections.open(id, raw)
      shaking.set(id, handshakeBegun())
      raw.on("error", () => raw.destroy())
      raw.once("close", () => {
        shaking.get(id)?.()
        shaking.delete(id)
        connections.close(id, true)
      })
      worker!.postMessage({ op: "open", id, name } satisfies TlsMessage)
      raw.pipe(cipher)
      cipher.pipe(raw)
      return socketLike(plain)
    },
    handshakes: () => ({ count: handshakes, threadIds })
  }
}
