/**
 * The control endpoint: HTTP and JSON under `/experimental/simulation`, so that another process
 * (a test runner in another language, a TUI, an agent) can shape the network and the model while
 * the app runs. Bodies are decoded with the Schemas fixtures use; a refused request changes
 * nothing.
 *
 * | method and path            | does                                                        |
 * |----------------------------|-------------------------------------------------------------|
 * | `POST reset`               | back to the initial routes and scripts                      |
 * | `POST network/register`    | one RouteSpec or an array, all or nothing: 201 `{ids}`      |
 * | `GET network/routes`       | `{routes}`                                                  |
 * | `DELETE network/routes/:id`| `{removed}`; 404 for an unknown id                          |
 * | `GET network/log?since=N`  | `{records}` with `seq > N`                                  |
 * | `POST llm/enqueue`         | one LLM script or an array, all or nothing: 201 `{queued}`  |
 * | `GET llm/pending`          | `{pending}` invocations waiting for a driver                |
 * | `GET snapshot`             | the network's state (see `Snapshot.ts`)                     |
 * | `POST snapshot`            | restores a state, all or nothing                            |
 * | `GET drive`                | the driver socket (WebSocket, JSON-RPC 2.0; `driver.ts`)    |
 *
 * Refusals: 400 `{error: {tag, message, path}}` (`path` is the JSON path of the bad field), 401
 * without the bearer token when one is set (compared in constant time; the driver socket also
 * takes it as `?token=`, for browsers, whose `WebSocket` cannot set headers), 403 from a peer that is
 * not loopback, for a `Host` that does not name this machine, or from another origin (`guard.ts`), 404 for an unknown id or path, 413 past the body limit (1 MiB unless told; 128 MiB for
 * `POST snapshot`), 415 for a body that is not JSON, 400 for JSON nested more than 512 deep.
 */
import { Effect, Layer, Schema, Stream } from "effect"
import * as HttpRouter from "effect/http/HttpRouter"
import type * as HttpServerRequest from "effect/http/HttpServerRequest"
import * as HttpServerResponse from "effect/http/HttpServerResponse"
import { depthExceeds, MAX_JSON_DEPTH } from "../registry/util.ts"
import { failAs, InvalidLlmInput, type SimnetError } from "../SimnetError.ts"
import { SimulatedProvider, type SimulatedProviderApi } from "../provider/SimulatedProvider.ts"
import { declaredOver, limitedStream } from "./body.ts"
import { driverSocket } from "./driver.ts"
import { behind, check, refuse } from "./guard.ts"
import { CONTROL_BASE, type ControlRouter } from "./service.ts"

export { CONTROL_BASE, SimulationControl, type ControlRouter } from "./service.ts"

/**
 * What the control plane needs of a network (a `SimulationNetworkApi` has all of it).
 */
export interface ControlledNetwork {
  readonly registerSpec: (json: unknown, options?: { readonly source?: string }) => Effect.Effect<ReadonlyArray<string>, SimnetError>
  readonly unregister: (id: string) => Effect.Effect<boolean>
  readonly reset: Effect.Effect<void, SimnetError>
  readonly routes: Effect.Effect<ReadonlyArray<unknown>>
  readonly logSince: (seq: number) => Effect.Effect<ReadonlyArray<{ readonly seq: number }>>
  readonly state: Effect.Effect<unknown>
  readonly restore: (state: unknown) => Effect.Effect<void, SimnetError>
  readonly llm: SimulatedProviderApi
}

/**
 * Options of the control plane.
 * - `token`: every call needs `Authorization: Bearer TOKEN` (default: `SIMNET_TOKEN` when set).
 * - `bodyLimit`: the largest body accepted, in bytes (default 1 MiB), but by `POST snapshot`.
 * - `snapshotLimit`: the largest snapshot `POST snapshot` takes (default 128 MiB).
 * - `onChange`: told of every change made through the endpoint (for `--trace`).
 */
export interface ControlOptions {
  readonly token?: string | undefined
  readonly bodyLimit?: number | undefined
  readonly snapshotLimit?: number | undefined
  readonly onChange?: ((event: ControlEvent) => void) | undefined
}

/**
 * A change made through the control endpoint, as a trace records it.
 */
export type ControlEvent =
  | { readonly type: "register"; readonly specs: unknown; readonly ids: ReadonlyArray<string> }
  | { readonly type: "unregister"; readonly id: string }
  | { readonly type: "enqueue"; readonly scripts: ReadonlyArray<unknown> }
  | { readonly type: "reset" }
  | { readonly type: "restore"; readonly state: unknown }

const DEFAULT_BODY_LIMIT = 1024 * 1024

/**
 * The largest snapshot `POST snapshot` restores (128 MiB): above what simnet writes for a full
 * request log (16 MiB of records) and a full model log (16 MiB), so every snapshot it wrote comes
 * back.
 */
export const DEFAULT_SNAPSHOT_LIMIT = 128 * 1024 * 1024

/** The 400 of a typed error: its tag, message and, when it names one, the JSON path. */
const badRequest = (error: SimnetError) =>
  refuse(400, error._tag, error.message, "path" in error && typeof error.path === "string" ? error.path : undefined)

/**
 * Runs `handler` after the checks every control call passes (`guard.ts`): a loopback peer, a
 * `Host` naming this machine, no foreign `Origin`, and the token.
 */
const guarded = <E, R>(
  token: string | undefined,
  handler: (request: HttpServerRequest.HttpServerRequest) => Effect.Effect<HttpServerResponse.HttpServerResponse, E, R>,
  options: { readonly queryToken?: boolean } = {}
) => behind((request) => check(request, token, options.queryToken === true), handler)

/**
 * The JSON body of a request, or the response refusing it: 415 when it is not declared JSON,
 * 413 past `limit` bytes, 400 when it does not parse.
 */
const readJson = (request: HttpServerRequest.HttpServerRequest, limit: number): Effect.Effect<{ readonly json: unknown } | HttpServerResponse.HttpServerResponse> =>
  Effect.gen(function*() {
    const type = (request.headers["content-type"] ?? "").split(";")[0].trim().toLowerCase()
    if (type !== "application/json" && !type.endsWith("+json")) {
      return refuse(415, "UnsupportedMediaType", `expected a JSON body (content-type: application/json), got ${type === "" ? "none" : type}`)
    }
    const declared = request.headers["content-length"]
    if (declaredOver(declared, limit)) return refuse(413, "PayloadTooLarge", `the body is ${declared} bytes; the limit is ${limit}`)
    const chunks: Array<Uint8Array> = []
    const body = limitedStream(request.stream, limit)
    const read = yield* Effect.exit(Stream.runForEach(body.stream, (chunk) => Effect.sync(() => void chunks.push(chunk))))
    if (read._tag === "Failure") {
      return body.over()
        ? refuse(413, "PayloadTooLarge", `the body is over the limit of ${limit} bytes`)
        : refuse(400, "BadRequest", "the body could not be read")
    }
    let json: unknown
    try {
      json = JSON.parse(Buffer.concat(chunks).toString("utf8"))
    } catch (error) {
      return refuse(400, "NotJson", `the body is not JSON: ${error instanceof Error ? error.message : String(error)}`, "$")
    }
    // Nothing deeper is applied, so every change applied can be written to the trace as well.
    if (depthExceeds(json, MAX_JSON_DEPTH)) return refuse(400, "TooDeep", `the body nests arrays and objects more than ${MAX_JSON_DEPTH} deep`, "$")
    return { json }
  })

const withJson = (
  limit: number,
  f: (json: unknown, request: HttpServerRequest.HttpServerRequest) => Effect.Effect<HttpServerResponse.HttpServerResponse>
) => (request: HttpServerRequest.HttpServerRequest) =>
  Effect.flatMap(readJson(request, limit), (body) => ("json" in body ? f(body.json, request) : Effect.succeed(body)))

const ok = (body: unknown, status = 200) => HttpServerResponse.jsonUnsafe(body, { status })

/** Scripts queue all or nothing: each is tried on a scratch model first. */
const enqueueAll = (llm: SimulatedProviderApi, json: unknown): Effect.Effect<ReadonlyArray<unknown>, InvalidLlmInput> =>
  Effect.suspend(() => {
    try {
      const scripts: ReadonlyArray<unknown> = Array.isArray(json) ? json : [json]
      const scratch = SimulatedProvider.make()
      scripts.forEach((script) => scratch.enqueue(script as never))
      scripts.forEach((script) => llm.enqueue(script as never))
      return Effect.succeed(scripts)
    } catch (error) {
      return failAs(Schema.is(InvalidLlmInput), error)
    }
  })

/**
 * The control endpoint's routes (and the driver socket) for a network, as a router layer: mount
 * it beside the app's own routes, or beside `simnet serve`'s network forwarder.
 */
export const controlRoutes = (network: ControlledNetwork, options: ControlOptions = {}): Layer.Layer<never, never, HttpRouter.HttpRouter> => {
  const token = options.token ?? process.env["SIMNET_TOKEN"]
  const limit = options.bodyLimit ?? DEFAULT_BODY_LIMIT
  const snapshotLimit = options.snapshotLimit ?? DEFAULT_SNAPSHOT_LIMIT
  const tell = options.onChange ?? (() => {})
  const at = (path: string) => `${CONTROL_BASE}/${path}` as `/${string}`
  const recovered = <E extends SimnetError>(effect: Effect.Effect<HttpServerResponse.HttpServerResponse, E>) =>
    Effect.catch(effect, (error) => Effect.succeed(badRequest(error)))
  return HttpRouter.addAll([
    HttpRouter.route("POST", at("reset"), guarded(token, () =>
      recovered(Effect.map(network.reset, () => {
        tell({ type: "reset" })
        return ok({ reset: true })
      })))),
    HttpRouter.route("POST", at("network/register"), guarded(token, withJson(limit, (json) =>
      recovered(Effect.map(network.registerSpec(json, { source: "control" }), (ids) => {
        tell({ type: "register", specs: json, ids })
        return ok({ ids }, 201)
      }))))),
    HttpRouter.route("GET", at("network/routes"), guarded(token, () => Effect.map(network.routes, (routes) => ok({ routes })))),
    HttpRouter.route("DELETE", at("network/routes/:id"), guarded(token, () =>
      Effect.flatMap(HttpRouter.params, (params) => {
        const id = params["id"] ?? ""
        return Effect.map(network.unregister(id), (removed) => {
          if (!removed) return refuse(404, "UnknownRoute", `no route has id ${JSON.stringify(id)}`, "id")
          tell({ type: "unregister", id })
          return ok({ removed: id })
        })
      }))),
    HttpRouter.route("GET", at("network/log"), guarded(token, (request) => {
      const since = new URL(request.url, "http://control").searchParams.get("since") ?? "0"
      if (!/^\d+$/.test(since)) return Effect.succeed(refuse(400, "BadRequest", `since must be a whole number, got ${JSON.stringify(since)}`, "since"))
      return Effect.map(network.logSince(Number(since)), (records) => ok({ records }))
    })),
    HttpRouter.route("POST", at("llm/enqueue"), guarded(token, withJson(limit, (json) =>
      recovered(Effect.map(enqueueAll(network.llm, json), (scripts) => {
        tell({ type: "enqueue", scripts })
        return ok({ queued: network.llm.queued }, 201)
      }))))),
    HttpRouter.route("GET", at("llm/pending"), guarded(token, () => Effect.sync(() => ok({ pending: network.llm.pending })))),
    HttpRouter.route("GET", at("snapshot"), guarded(token, () => Effect.map(network.state, (state) => ok(state)))),
    HttpRouter.route("POST", at("snapshot"), guarded(token, withJson(snapshotLimit, (json) =>
      recovered(Effect.map(network.restore(json), () => {
        tell({ type: "restore", state: json })
        return ok({ restored: true })
      }))))),
    HttpRouter.route("GET", at("drive"), guarded(token, (request) => driverSocket(network, request), { queryToken: true })),
    HttpRouter.route("*", at("*"), guarded(token, (request) =>
      Effect.succeed(refuse(404, "NotFound", `no control endpoint ${request.method} ${request.url.split("?")[0]}`))))
  ])
}

/**
 * The router the control layer exposes for the host's own endpoints under the base.
 */
export const controlRouter = (options: ControlOptions = {}): ControlRouter => {
  const token = options.token ?? process.env["SIMNET_TOKEN"]
  return {
    base: CONTROL_BASE,
    add: (method, path, handler) =>
      HttpRouter.add(method, `${CONTROL_BASE}/${path.replace(/^\/+/, "")}` as `/${string}`, guarded(token, handler)) as never
  }
}
