/**
 * The TLS of the proxy's tunnels, on a thread of its own: a host's certificate, laid out by
 * `node-forge` and signed with the local CA's key, and every TLS handshake and record, so that a
 * flood of `CONNECT`s to new hosts never holds up the thread that answers the routes (each new
 * host cost that thread a certificate to lay out, a secure context to build and a handshake,
 * about 1.5 ms, before). The main thread (`tls.ts`) hands each tunnel's bytes over as they come
 * and takes the plaintext back, as a stream it gives its HTTP server.
 *
 * The two threads speak in messages over the worker's port, one connection's two streams
 * (`CIPHER`: the client's bytes, `PLAIN`: the HTTP inside) as `PortStream`s on either side, each
 * write waiting for the other side to take it, so neither thread holds more than a chunk per
 * stream ahead of its reader.
 *
 * This file is loaded twice: as a module by the main thread (for `PortStream` and the certificate
 * helpers `ca.ts` shares), where nothing runs, and as the worker's own script (`serveTls`, at the
 * end), so it imports nothing of simnet's: the build writes its compiled file beside the module
 * that starts the worker.
 */
import { generateKeyPair, type KeyObject, createPrivateKey, randomBytes, sign } from "node:crypto"
import { createRequire } from "node:module"
import { Duplex } from "node:stream"
import * as tls from "node:tls"
import { isMainThread, parentPort, threadId, workerData } from "node:worker_threads"
import type * as Forge from "node-forge"

/** node-forge, loaded with the first certificate rather than with the server. */
let loaded: typeof Forge | undefined
export const forge = (): typeof Forge => (loaded ??= createRequire(import.meta.url)("node-forge") as typeof Forge)

/** A certificate's serial number: random, positive. */
export const serial = () => `01${randomBytes(15).toString("hex")}`

/**
 * The part of `cert` that is signed (its signature algorithm set first: SHA-256 with RSA), as DER.
 * `spki`, when given, is the subject's public key as DER: forge lays out RSA keys only, so the
 * leaf's P-256 key takes the place of the placeholder `cert.publicKey` in the structure.
 */
export const toBeSigned = (cert: Forge.pki.Certificate, spki?: Buffer): Buffer => {
  const f = forge()
  cert.signatureOid = cert.siginfo.algorithmOid = f.pki.oids["sha256WithRSAEncryption"]!
  // In forge, untyped: the structure `cert.sign` signs.
  const tbs = (
    f.pki as unknown as { getTBSCertificate: (c: Forge.pki.Certificate) => Forge.asn1.Asn1 }
  ).getTBSCertificate(cert)
  // TBSCertificate ::= SEQUENCE { version, serialNumber, signature, issuer, validity, subject, subjectPublicKeyInfo, … }
  if (spki !== undefined)
    (tbs.value as Array<Forge.asn1.Asn1>)[6] = f.asn1.fromDer(f.util.createBuffer(spki.toString("binary")))
  cert.tbsCertificate = tbs
  return Buffer.from(f.asn1.toDer(tbs).getBytes(), "binary")
}

/** What the worker is started with: its role (so that a module loaded on another worker does nothing) and the CA. */
export interface TlsWorkerData {
  readonly role: typeof ROLE
  readonly certPem: string
  readonly keyPem: string
}

/** The worker's role, in its `workerData`. */
export const ROLE = "simnet-tls"

/** A connection's two streams: the client's bytes, and the HTTP inside them. */
export const CIPHER = 0
export const PLAIN = 1

/** One message between the threads, for connection `id`. */
export type TlsMessage =
  | { readonly op: "open"; readonly id: number; readonly name: string }
  | { readonly op: "data"; readonly id: number; readonly stream: number; readonly chunk: Uint8Array }
  | { readonly op: "ack"; readonly id: number; readonly stream: number }
  | { readonly op: "end"; readonly id: number; readonly stream: number }
  | { readonly op: "close"; readonly id: number }
  | { readonly op: "handshake"; readonly id: number; readonly threadId: number }

/**
 * One stream of a connection whose other end is on the other thread: what is written here is
 * posted there (a copy, whose buffer is transferred), and the next write waits until the other
 * side's reader has taken it; what the other side posts is read here. `end` ends the other side's
 * reading; destroying either stream is the connection's `close`, done by its owner
 * (`onDestroy`).
 */
export class PortStream extends Duplex {
  readonly #post: (message: TlsMessage, transfer?: ReadonlyArray<ArrayBuffer>) => void
  readonly #id: number
  readonly #stream: number
  #written: ((error?: Error | null) => void) | undefined
  /** The other side's last chunk was not taken yet: its acknowledgement is owed to the next read. */
  #owed = false
  onDestroy: (() => void) | undefined

  constructor(post: (message: TlsMessage, transfer?: ReadonlyArray<ArrayBuffer>) => void, id: number, stream: number) {
    super()
    this.#post = post
    this.#id = id
    this.#stream = stream
  }

  override _write(chunk: Buffer, _encoding: BufferEncoding, done: (error?: Error | null) => void): void {
    const copy = new Uint8Array(chunk)
    this.#written = done
    this.#post({ op: "data", id: this.#id, stream: this.#stream, chunk: copy }, [copy.buffer])
  }

  override _final(done: (error?: Error | null) => void): void {
    this.#post({ op: "end", id: this.#id, stream: this.#stream })
    done()
  }

  override _read(): void {
    if (!this.#owed) return
    this.#owed = false
    this.#post({ op: "ack", id: this.#id, stream: this.#stream })
  }

  override _destroy(error: Error | null, done: (error?: Error | null) => void): void {
    this.#written?.(error ?? new Error("simnet: the connection closed"))
    this.#written = undefined
    this.onDestroy?.()
    done(error)
  }

  /** What the other side posted for this stream. */
  receive(message: TlsMessage): void {
    if (this.destroyed) return
    if (message.op === "data") {
      if (this.push(Buffer.from(message.chunk.buffer, message.chunk.byteOffset, message.chunk.byteLength)))
        this.#post({ op: "ack", id: this.#id, stream: this.#stream })
      else this.#owed = true
    } else if (message.op === "ack") {
      const done = this.#written
      this.#written = undefined
      done?.()
    } else if (message.op === "end") {
      this.push(null)
    }
  }
}

/**
 * One thread's side of its connections, by id: each connection's two `PortStream`s (and on the
 * main thread its client's socket), closed together once — by either thread, telling the other
 * when it was this one — and what the other thread posts, handed to the stream it is for.
 */
export class Connections {
  readonly #open = new Map<
    number,
    { readonly streams: readonly [PortStream, PortStream]; readonly socket: Duplex | undefined }
  >()
  readonly #post: (message: TlsMessage, transfer?: ReadonlyArray<ArrayBuffer>) => void

  constructor(post: (message: TlsMessage, transfer?: ReadonlyArray<ArrayBuffer>) => void) {
    this.#post = post
  }

  /** Connection `id`'s streams (and `socket`, the client's, on the main thread), closed with it. */
  open(id: number, socket?: Duplex): readonly [PortStream, PortStream] {
    const streams = [new PortStream(this.#post, id, CIPHER), new PortStream(this.#post, id, PLAIN)] as const
    this.#open.set(id, { streams, socket })
    for (const stream of streams) stream.onDestroy = () => this.close(id, true)
    return streams
  }

  has(id: number): boolean {
    return this.#open.has(id)
  }

  /** Closes connection `id` here, and (`tell`) on the other thread. */
  close(id: number, tell: boolean): void {
    const connection = this.#open.get(id)
    if (connection === undefined) return
    this.#open.delete(id)
    if (tell) this.#post({ op: "close", id })
    for (const stream of connection.streams) stream.destroy()
    connection.socket?.destroy()
  }

  /** Closes every connection here (the other thread is gone). */
  closeAll(): void {
    for (const id of [...this.#open.keys()]) this.close(id, false)
  }

  /** A message the other thread posted: for a stream of a connection, or its close. */
  receive(message: TlsMessage): void {
    if (message.op === "close") {
      this.close(message.id, false)
      return
    }
    if (message.op === "data" || message.op === "ack" || message.op === "end")
      this.#open.get(message.id)?.streams[message.stream === PLAIN ? PLAIN : CIPHER].receive(message)
  }
}

/** How many hosts' contexts the worker keeps: a client naming endless hosts costs at most this many. */
const MAX_CONTEXTS = 4096

/** How many host certificates are being signed at once (libuv's thread pool has four threads by default). */
const SIGNING_AT_ONCE = 4

/**
 * The TLS contexts of hosts, each made once with a certificate for it signed by the CA (`certPem`,
 * `key`): one leaf key for every host (P-256, made once, as mockttp and mitmproxy do; a handshake
 * signs with it, at a tenth of RSA's cost), the RSA signature on libuv's thread pool. The context
 * of a host, or a promise of it while it is made.
 */
export const hostContexts = (certPem: string, key: KeyObject) => {
  const contexts = new Map<string, tls.SecureContext>()
  const pending = new Map<string, Promise<tls.SecureContext>>()
  let leafKey: Promise<{ readonly privatePem: string; readonly spki: Buffer }> | undefined
  const leaf = () =>
    (leafKey ??= new Promise((resolve, reject) =>
      generateKeyPair("ec", { namedCurve: "P-256" }, (error, publicKey, privateKey) =>
        error !== null
          ? reject(error)
          : resolve({
              privatePem: privateKey.export({ type: "pkcs8", format: "pem" }).toString(),
              spki: publicKey.export({ type: "spki", format: "der" })
            })
      )
    ))
  let issuer: Forge.pki.Certificate | undefined
  const make = async (host: string): Promise<tls.SecureContext> => {
    const keys = await leaf()
    const f = forge()
    issuer ??= f.pki.certificateFromPem(certPem)
    const cert = f.pki.createCertificate()
    cert.publicKey = issuer.publicKey // a placeholder: the leaf's key takes its place in `toBeSigned`
    cert.serialNumber = serial()
    cert.validity.notBefore = new Date(Date.now() - 24 * 3600_000)
    cert.validity.notAfter = new Date(Date.now() + 365 * 24 * 3600_000)
    cert.setSubject([{ name: "commonName", value: host.slice(0, 64) }])
    cert.setIssuer(issuer.subject.attributes)
    const ip = /^[\d.]+$|:/.test(host)
    cert.setExtensions([
      { name: "basicConstraints", cA: false },
      { name: "keyUsage", digitalSignature: true, critical: true },
      { name: "extKeyUsage", serverAuth: true },
      {
        name: "subjectAltName",
        altNames: [ip ? { type: 7, ip: host.replace(/^\[|\]$/g, "") } : { type: 2, value: host }]
      }
    ])
    const tbs = toBeSigned(cert, keys.spki)
    const signature = await new Promise<Buffer>((resolve, reject) =>
      sign("sha256", tbs, key, (error, made) => (error === null ? resolve(made) : reject(error)))
    )
    cert.signature = signature.toString("binary")
    const context = tls.createSecureContext({ key: keys.privatePem, cert: `${f.pki.certificateToPem(cert)}${certPem}` })
    if (contexts.size >= MAX_CONTEXTS) contexts.delete(contexts.keys().next().value!)
    contexts.set(host, context)
    return context
  }
  // New hosts are made a few at a time, each started from the callback of one before it, so the
  // handshakes of hosts already known go on in between.
  const queue: Array<() => void> = []
  let running = 0
  const next = () => {
    while (running < SIGNING_AT_ONCE && queue.length > 0) {
      running++
      setImmediate(queue.shift()!)
    }
  }
  const queued = (host: string) =>
    new Promise<tls.SecureContext>((resolve, reject) => {
      queue.push(() =>
        make(host)
          .then(resolve, reject)
          .finally(() => {
            running--
            next()
          })
      )
      next()
    })
  return (host: string): tls.SecureContext | Promise<tls.SecureContext> => {
    const found = contexts.get(host)
    if (found !== undefined) return found
    const waiting = pending.get(host)
    if (waiting !== undefined) return waiting
    const made = queued(host).finally(() => pending.delete(host))
    pending.set(host, made)
    return made
  }
}

/**
 * The worker: for each connection the main thread opens, TLS terminated with the certificate for
 * the name the client sends (SNI; the tunnel's own name when it sends none), its plaintext handed
 * back. A connection that fails (a bad handshake, a client gone) is closed on both threads.
 */
const serveTls = (data: TlsWorkerData): void => {
  const port = parentPort!
  const contextFor = hostContexts(data.certPem, createPrivateKey(data.keyPem))
  const connections = new Connections((message, transfer) =>
    port.postMessage(message, transfer as Array<ArrayBuffer> | undefined)
  )
  const close = (id: number) => connections.close(id, true)
  const open = (id: number, name: string) => {
    const [cipher, plain] = connections.open(id)
    const terminate = (context: tls.SecureContext) => {
      if (!connections.has(id)) return
      const secure = new tls.TLSSocket(cipher, {
        isServer: true,
        secureContext: context,
        SNICallback: (sni, done) => {
          const made = contextFor(sni)
          if (!(made instanceof Promise)) return done(null, made)
          made.then(
            (ready) => done(null, ready),
            (error: Error) => done(error)
          )
        },
        ALPNProtocols: ["http/1.1"]
      })
      secure.once("secure", () => port.postMessage({ op: "handshake", id, threadId } satisfies TlsMessage))
      secure.on("error", () => close(id))
      secure.once("close", () => close(id))
      secure.pipe(plain)
      plain.pipe(secure)
    }
    const made = contextFor(name)
    if (made instanceof Promise) made.then(terminate, () => close(id))
    else terminate(made)
  }
  port.on("message", (message: TlsMessage) =>
    message.op === "open" ? open(message.id, message.name) : connections.receive(message)
  )
}

if (!isMainThread && (workerData as Partial<TlsWorkerData> | undefined)?.role === ROLE)
  serveTls(workerData as TlsWorkerData)
