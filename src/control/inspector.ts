/**
 * The inspector: a live page at `/experimental/simulation/ui` to watch the network and drive the
 * model by hand, served by simnet itself (one HTML document with its style and script inline; no
 * CDN, nothing to build). Its data comes from paths beside it:
 *
 * | method and path                     | does                                                   |
 * |-------------------------------------|--------------------------------------------------------|
 * | `GET ui`                            | the page                                               |
 * | `GET ui/events`                     | server-sent events: `hello`, `batch` (rows), `state`, `reset` |
 * | `GET ui/state`                      | routes and model as the panels show them               |
 * | `GET ui/requests/:seq`              | one request: redacted headers, body preview, refusal   |
 * | `POST ui/requests/:seq/regenerate`  | the body a seeded route served, generated again        |
 * | `GET ui/case`                       | the failing case `simnet show` opened (`null` else)    |
 * | `GET ui/terminal`                   | the screen of `simnet run --tty`'s terminal (untraced), with `exit` once its program ended |
 * | `POST ui/ticket`                    | a one-use ticket for the page's driver socket          |
 * | `GET ui/drive?ticket=T`             | the driver socket (`driver.ts`), for the page          |
 *
 * The page changes the network through the control endpoint itself (register, remove, enqueue,
 * reset, snapshot) and drives the model over the driver socket's protocol, so it is one more
 * driver: the last attach wins.
 *
 * Checks: every path answers loopback peers only, and only when the `Host` names this machine (a
 * web page elsewhere cannot rebind a name to 127.0.0.1 and read it). Every data path takes the
 * control endpoint's token check (`Authorization: Bearer`, `SIMNET_TOKEN`). The page itself holds
 * no data and is served without the token — a browser cannot send a header when it opens a URL —
 * and reads the token from the URL's fragment (`#token=…`, never sent to the server) or asks for
 * it. A browser cannot set headers on a WebSocket either, so the page first asks for a ticket
 * (with the token) and opens the socket with it; a ticket works once, within 30 seconds.
 */
import { randomBytes } from "node:crypto"
import { Clock, Effect, Layer, Queue, Schedule, Stream } from "effect"
import * as Sse from "effect/encoding/Sse"
import * as HttpRouter from "effect/http/HttpRouter"
import type * as HttpServerRequest from "effect/http/HttpServerRequest"
import * as HttpServerResponse from "effect/http/HttpServerResponse"
import type { Har } from "../network/har.ts"
import type { SimnetError } from "../SimnetError.ts"
import { driverSocket, type DrivenNetwork } from "./driver.ts"
import { CONTROL_BASE, controlRouter, type ControlOptions, type RunControlOptions } from "./endpoint.ts"
import { behind, local, refuse } from "./access.ts"
import { extraOf, Feed, type FedNetwork, type LogRecord, type Refusal } from "./inspector/feed.ts"
import { inspectorPage } from "./inspector/page.ts"
import { viewOf, type ViewedNetwork } from "./inspector/state.ts"
import type { DoorWatch } from "../doors/node.ts"
import type { Redactor } from "../registry/redact.ts"
import type { StyledRun } from "../terminal/terminal.ts"

/**
 * The path of the inspector's page.
 */
export const INSPECTOR_PATH = `${CONTROL_BASE}/ui`

/**
 * What the inspector needs of a network (a `SimulationNetworkApi` has all of it).
 */
export interface InspectedNetwork extends FedNetwork, ViewedNetwork, DrivenNetwork {
  /** How the network shows a request: the feed joins a request to its record by the URL as the log shows it. */
  readonly redactor: Redactor
  readonly logSince: (seq: number, limit?: number) => Effect.Effect<ReadonlyArray<LogRecord>>
  readonly regenerate: (record: LogRecord) => Effect.Effect<string, SimnetError>
  /** The log as HAR (`network/har.ts`), whose entries hold the answers a network keeping bodies kept. */
  readonly har?: ((since?: number, limit?: number) => Effect.Effect<Har>) | undefined
}

/** The most characters of a kept answer's body a request's detail carries (the HAR export has it whole). */
const SHOWN_BODY = 64 * 1024

/** Why a request's detail shows no answer body: the HAR entry's own comment, or the rule. */
const NOT_KEPT =
  "the answer's body is not kept: start the network with keepBodies (simnet serve --keep-bodies) to see it"

/**
 * The answer a network keeping bodies kept for request `seq` (its HAR entry's response, the body
 * cut to `SHOWN_BODY` characters; a seeded route's answer is generated again from its seed), or
 * why there is none (`note`), or undefined when the request had no answer.
 */
const keptAnswer = (network: InspectedNetwork, seq: number) => {
  if (network.har === undefined) return Effect.succeed(undefined)
  return Effect.map(network.har(seq - 1, 1), (har) => {
    const entry = har.log.entries[0]
    if (entry === undefined || entry._simnet.seq !== seq || entry.response.status === 0) return undefined
    // No `text` at all: nothing was kept of this answer (an empty body kept is "").
    if (!("text" in entry.response.content))
      return { note: entry.comment?.startsWith("restored") === true ? entry.comment : NOT_KEPT }
    const content = entry.response.content as {
      readonly size: number
      readonly mimeType: string
      readonly text?: string
      readonly encoding?: "base64"
    }
    const text = content.text ?? ""
    return {
      status: entry.response.status,
      headers: entry.response.headers,
      size: content.size,
      mimeType: content.mimeType,
      ...(content.encoding === undefined ? { text: text.slice(0, SHOWN_BODY) } : { binary: true }),
      ...(text.length > SHOWN_BODY && content.encoding === undefined ? { shownCut: true } : {}),
      ...(entry.comment === undefined ? {} : { comment: entry.comment })
    }
  })
}

/**
 * A failing property case, as `simnet show` opens it (from the file `simnet/testing` wrote): the
 * page shows it first, in a banner, and reads read-only.
 */
export interface FailingCase {
  readonly name: string
  readonly error: string
  readonly seed: number
  readonly path: string | undefined
  readonly counterexample: unknown
  /** The request the case failed at (its last refused or failed one, else its last), as one line. */
  readonly step: string | undefined
  /** How to run it again, when not `property(…, { seed, path })`. */
  readonly replay?: string | undefined
  /** A run of `simnet explore`: the screen after each step, the requests it caused, the failing step marked. */
  readonly frames?:
    | ReadonlyArray<{
        readonly step: number
        readonly action: string
        readonly lines: ReadonlyArray<string>
        readonly cursor: { readonly x: number; readonly y: number }
        readonly styles?: ReadonlyArray<StyledRun> | undefined
        readonly requests: ReadonlyArray<number>
        readonly failed: boolean
      }>
    | undefined
}

/** A kept answer as a request's detail shows it. */
export type KeptAnswer = Exclude<NonNullable<Effect.Success<ReturnType<typeof keptAnswer>>>, { readonly note: string }>

/** How often the feed is read while a page listens, and how often the panels' view is compared. */
const TICK_MS = 100
const VIEW_EVERY = 5
const PING_EVERY = 150
/** How many server-sent messages wait for a slow page before later ones are dropped. */
const PAGE_QUEUE = 512
const TICKET_MS = 30_000

/** Runs `handler` for a request from this machine's own pages and tools only (`guard.local`). */
const localOnly = <E, R>(
  handler: (request: HttpServerRequest.HttpServerRequest) => Effect.Effect<HttpServerResponse.HttpServerResponse, E, R>
) => behind(local, handler)

/**
 * Tells the feed, while a page listens, how long each request for the network took and why a
 * refused one was refused (the server's Node door says so with the request).
 */
const watchRequests =
  (feed: Feed, redactor: Redactor): DoorWatch =>
  (request) => {
    if (!feed.active || request.url === undefined || !URL.canParse(request.url)) return undefined
    const started = performance.now()
    // Joined by the URL as the log keeps it: credential query values redacted.
    const observation = feed.observe(request.method, redactor.url(request.url))
    const since = () => Math.round((performance.now() - started) * 10) / 10
    return {
      head: (status, refusal) => {
        const shown: Refusal | undefined =
          refusal === undefined
            ? undefined
            : {
                tag: refusal.tag,
                message: refusal.message,
                candidates: "candidates" in refusal ? refusal.candidates : undefined
              }
        Effect.runFork(feed.started(observation, status, since(), shown))
      },
      end: () => feed.ended(observation, since())
    }
  }

/** One-use tickets for the page's driver socket. */
class Tickets {
  readonly #issued = new Map<string, number>()

  issue(now: number): string {
    for (const [ticket, expires] of this.#issued) if (expires <= now) this.#issued.delete(ticket)
    const ticket = randomBytes(24).toString("base64url")
    this.#issued.set(ticket, now + TICKET_MS)
    return ticket
  }

  redeem(ticket: string | null, now: number): boolean {
    if (ticket === null) return false
    const expires = this.#issued.get(ticket)
    this.#issued.delete(ticket)
    return expires !== undefined && expires > now
  }
}

const sseEvent = (event: string, data: string) =>
  new TextEncoder().encode(Sse.encoder.write({ _tag: "Event", event, id: undefined, data }))

const json = (body: unknown, status = 200) =>
  HttpServerResponse.jsonUnsafe(body, { status, headers: { "cache-control": "no-store" } })

/**
 * The inspector's routes for a network (the page, its event stream and its data paths), the
 * middleware that times forwarded requests, and the fiber that feeds open pages. Mount it beside
 * the control endpoint.
 */
export const inspectorRoutes = (
  network: InspectedNetwork,
  options: ControlOptions = {}
): Layer.Layer<never, never, HttpRouter.HttpRouter> => inspector(network, options).layer

/**
 * The inspector's routes (as `inspectorRoutes`) and `watch`, which times the requests for the
 * network while a page listens (give it to `serveLayer`).
 */
export const inspector = (
  network: InspectedNetwork,
  options: RunControlOptions = {},
  failing?: FailingCase
): {
  readonly layer: Layer.Layer<never, never, HttpRouter.HttpRouter>
  /** Told by the server's Node door of each request for the network, timed while a page listens. */
  readonly watch: DoorWatch
} => {
  const feed = new Feed(network)
  const tickets = new Tickets()
  const control = controlRouter(options)
  const at = (path: string) => `${INSPECTOR_PATH}${path}` as `/${string}`
  const page = inspectorPage()
  let view = ""

  const readView = Effect.map(viewOf(network), (value) => JSON.stringify(value))

  const feeding = Effect.gen(function* () {
    let n = 0
    yield* Effect.repeat(
      Effect.gen(function* () {
        n++
        if (!feed.active) return
        yield* feed.tick
        if (n % VIEW_EVERY === 0) {
          const next = yield* readView
          if (next !== view || n % PING_EVERY === 0) {
            view = next
            feed.broadcast("state", next)
          }
        }
      }),
      Schedule.spaced(TICK_MS)
    )
  })

  const events = () =>
    Effect.succeed(
      HttpServerResponse.stream(
        Stream.callback<Uint8Array>(
          (queue) =>
            Effect.gen(function* () {
              const send = (event: string, data: string) => void Queue.offerUnsafe(queue, sseEvent(event, data))
              const stop = yield* feed.listen(send)
              yield* Effect.addFinalizer(() => Effect.sync(stop))
              view = yield* readView
              send("state", view)
            }),
          { bufferSize: PAGE_QUEUE, strategy: "dropping" }
        ),
        { contentType: "text/event-stream", headers: { "cache-control": "no-store", "x-accel-buffering": "no" } }
      )
    )

  /** The request number in a path `ui/requests/:seq[/...]`. */
  const seqOf = (request: HttpServerRequest.HttpServerRequest) => {
    const raw = /\/ui\/requests\/([^/?]*)/.exec(request.url)?.[1] ?? ""
    return /^\d{1,15}$/.test(raw) ? Number(raw) : undefined
  }

  /** A logged request: the network's record when its ring still holds it, else the feed's copy. */
  const recordOf = (seq: number) =>
    Effect.map(network.logSince(seq - 1, 1), (records) => {
      const fresh = records[0]?.seq === seq ? records[0] : undefined
      const kept = feed.entry(seq)
      const record = fresh ?? kept?.record
      return { record, extra: record === undefined ? {} : extraOf(record, kept?.extra) }
    })

  const unknownRequest = (seq: number | undefined) =>
    refuse(
      404,
      "UnknownRequest",
      `no request ${seq === undefined ? "with that number" : seq} is kept in the log`,
      "seq"
    )

  const layer = Layer.mergeAll(
    Layer.effectDiscard(Effect.forkScoped(feeding)),
    HttpRouter.add(
      "GET",
      INSPECTOR_PATH as `/${string}`,
      localOnly(() =>
        Effect.succeed(
          HttpServerResponse.text(page.html, {
            contentType: "text/html; charset=utf-8",
            headers: {
              "content-security-policy": page.csp,
              "cache-control": "no-store",
              "referrer-policy": "no-referrer",
              "x-content-type-options": "nosniff",
              "x-frame-options": "DENY"
            }
          })
        )
      )
    ),
    HttpRouter.add(
      "GET",
      at("/drive"),
      localOnly((request) =>
        Effect.flatMap(Clock.currentTimeMillis, (now) =>
          tickets.redeem(new URL(request.url, "http://inspector").searchParams.get("ticket"), now)
            ? driverSocket(network, request)
            : Effect.succeed(refuse(401, "Unauthorized", "the page's driver socket needs a ticket from POST ui/ticket"))
        )
      )
    ),
    control.add("GET", "ui/events", localOnly(events)),
    control.add(
      "GET",
      "ui/state",
      localOnly(() => Effect.map(viewOf(network), (value) => json(value)))
    ),
    control.add(
      "POST",
      "ui/ticket",
      localOnly(() => Effect.map(Clock.currentTimeMillis, (now) => json({ ticket: tickets.issue(now) }, 201)))
    ),
    control.add(
      "GET",
      "ui/case",
      localOnly(() => Effect.succeed(json({ case: failing ?? null })))
    ),
    // The terminal's screen for the Screen tab: read, not an action, so not in the trace as ui.screen is.
    control.add(
      "GET",
      "ui/terminal",
      localOnly(() =>
        Effect.sync(() => {
          const terminal = options.terminal?.()
          if (terminal === undefined)
            return refuse(404, "NoTerminal", "no terminal: run the command with simnet run --tty")
          // Once the program has exited, the last screen and how it ended.
          const exit = terminal.exit()
          return json(exit === undefined ? terminal.screen() : { ...terminal.screen(), exit })
        })
      )
    ),
    control.add(
      "GET",
      "ui/requests/:seq",
      localOnly((request) =>
        Effect.suspend(() => {
          const seq = seqOf(request)
          return seq === undefined
            ? Effect.succeed(unknownRequest(seq))
            : Effect.flatMap(recordOf(seq), ({ record, extra }) =>
                record === undefined
                  ? Effect.succeed(unknownRequest(seq))
                  : Effect.map(keptAnswer(network, seq), (response) =>
                      json({
                        record,
                        extra,
                        regenerable: record.seed !== undefined,
                        ...(response === undefined
                          ? {}
                          : "note" in response
                            ? { bodyNote: response.note }
                            : { response })
                      })
                    )
              )
        })
      )
    ),
    control.add(
      "POST",
      "ui/requests/:seq/regenerate",
      localOnly((request) =>
        Effect.suspend(() => {
          const seq = seqOf(request)
          return seq === undefined
            ? Effect.succeed(unknownRequest(seq))
            : Effect.flatMap(recordOf(seq), ({ record }) =>
                record === undefined
                  ? Effect.succeed(unknownRequest(seq))
                  : network.regenerate(record).pipe(
                      Effect.map((body) => json({ seq, seed: record.seed, occurrence: record.occurrence, body })),
                      Effect.catch((error) =>
                        Effect.succeed(
                          refuse(
                            400,
                            error._tag,
                            error.message,
                            "path" in error && typeof error.path === "string" ? error.path : undefined
                          )
                        )
                      )
                    )
              )
        })
      )
    )
  )
  return { layer, watch: watchRequests(feed, network.redactor) }
}
