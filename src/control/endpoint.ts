/**
 * The control endpoint: HTTP and JSON under `/experimental/simulation`, so that another process
 * (a test runner in another language, a TUI, an agent) can shape the network and the model while
 * the app runs. Bodies are decoded with the Schemas fixtures use; a refused request changes
 * nothing.
 *
 * | method and path            | does                                                        |
 * |----------------------------|-------------------------------------------------------------|
 * | `POST reset`               | back to the initial routes and scripts                      |
 * | `POST network/register`    | one RouteSpec or an array, all or nothing: 201 `{ids}` (and `refused`, OpenAPI operations not served, with why) |
 * | `GET network/routes`       | `{routes}`                                                  |
 * | `DELETE network/routes/:id`| `{removed}`; 404 for an unknown id                          |
 * | `GET network/log?since=N`  | `{records}` with `seq > N`; `&format=har`: the same as a HAR 1.2 file (`network/har.ts`) |
 * | `POST llm/enqueue`         | one LLM script or an array, all or nothing: 201 `{queued}`  |
 * | `POST llm/rules`           | one LlmRuleSpec or an array, all or nothing: 201 `{ids}`    |
 * | `GET llm/rules`            | `{rules}` in order, with their progress (`uses`, `failures`) |
 * | `DELETE llm/rules/:id`     | `{removed}`; 404 for an unknown id                          |
 * | `GET llm/pending`          | `{pending}` invocations waiting for a driver                |
 * | `POST mcp/:id`             | changes an MCP route's server: the given top-level fields of its definition (`tools`, `resources`, …) replace the current ones; sessions are told (`listChanged`, `resources/updated`) |
 * | `GET snapshot`             | the network's state (see `network/snapshot.ts`)             |
 * | `GET scenarios`, `POST scenarios/reset`, `PUT scenarios/NAME/state` | scenarios (`scenarios.ts`) |
 * | `GET metrics`              | Prometheus text (`metrics.ts`)                              |
 * | `POST snapshot`            | restores a state, all or nothing                            |
 * | `GET drive`                | the driver socket (WebSocket, JSON-RPC 2.0; `driver.ts`)    |
 *
 * Refusals: 400 `{error: {tag, message, path}}` (`path` is the JSON path of the bad field), 401
 * without the bearer token when one is set (compared in constant time; the driver socket also
 * takes it as `?token=`, for browsers, whose `WebSocket` cannot set headers), 403 from a peer that is
 * not loopback, for a `Host` that does not name this machine, or from another origin (`guard.ts`), 404 for an unknown id or path, 413 past the body limit (1 MiB unless told; 128 MiB for
 * `POST snapshot`), 415 for a body that is not JSON, 400 for JSON nested more than 512 deep.
 *
 * Every route (the endpoint's and the host app's under the base) runs behind one router
 * middleware (`guard`): the checks first, then the route's failure (a `Refusal` of the request,
 * or the network's typed error) as its answer. A route is written as what it does.
 */
import { Data, Duration, Effect, Layer, Schema, Stream } from "effect"
import type { Types } from "effect"
import * as HttpRouter from "effect/http/HttpRouter"
import * as HttpServerRequest from "effect/http/HttpServerRequest"
import * as HttpServerResponse from "effect/http/HttpServerResponse"
import { depthExceeds, isJsonObject, MAX_JSON_DEPTH } from "../registry/util.ts"
import {
  type FileContent,
  filesRefusal,
  keepOnly,
  layOut,
  readWorkspace,
  workspaceFiles
} from "../fileSystem/workspace.ts"
import { type InvalidRouteSpec, isSimnetError, type SimnetError } from "../SimnetError.ts"
import type { McpServerDefinition } from "../mcp-route/definitions.ts"
import { McpServerSpec } from "../schemas/routeSpec.ts"
import { decodeAt } from "../registry/schemaPath.ts"
import type { LlmRule } from "../models/provider/rules.ts"
import { SimulatedProviderApi } from "../models/provider/SimulatedProvider.ts"
import { batchOf } from "../models/provider/validate.ts"
import { plain } from "./inspector/state.ts"
import { declaredOver, limitedStream } from "../doors/body.ts"
import { driverSocket, type ExitNotices } from "./driver.ts"
import { check, HOST_FORWARDING, hostForwarding, refuse, roomAccess } from "./access.ts"
import { CONTROL_BASE, type ControlRouter } from "./service.ts"
import type { Terminal } from "../terminal/terminal.ts"
import { type UiCall, uiCall } from "./ui.ts"
import { metricsRegistry, type MeteredNetwork } from "./metrics.ts"
import { scenarioRoutes, type ScenarioEvent, type ScenarioNetwork } from "./scenarios.ts"

export { CONTROL_BASE, SimulationControl, type ControlRouter } from "./service.ts"

/**
 * What the control plane needs of a network (a `SimulationNetworkApi` has all of it).
 */
export interface ControlledNetwork extends ScenarioNetwork, MeteredNetwork {
  readonly registerSpec: (
    json: unknown,
    options?: { readonly source?: string }
  ) => Effect.Effect<ReadonlyArray<string>, SimnetError>
  readonly unregister: (id: string) => Effect.Effect<boolean>
  readonly reset: Effect.Effect<void, SimnetError>
  readonly routes: Effect.Effect<ReadonlyArray<unknown>>
  readonly logSince: (seq: number) => Effect.Effect<ReadonlyArray<{ readonly seq: number }>>
  /** The log after `since` as a HAR 1.2 document. */
  readonly har: (since?: number) => Effect.Effect<unknown>
  readonly state: Effect.Effect<unknown>
  readonly restore: (state: unknown) => Effect.Effect<void, SimnetError>
  readonly llm: SimulatedProviderApi
  readonly mcp: {
    readonly update: (
      id: string,
      change: (current: McpServerDefinition) => McpServerDefinition
    ) => Effect.Effect<void, InvalidRouteSpec>
  }
  readonly quiescent?: Effect.Effect<void> | undefined
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
 * What `simnet run` adds to the control plane: the terminal its command runs in (`--tty`), for
 * the `ui.*` methods, and the count of driver sockets still to be told of its exit (`exits`); the
 * workspace directory of a sealed run (`--isolate`), for `filesystem`.
 */
export interface RunControlOptions extends ControlOptions {
  readonly terminal?: (() => Terminal | undefined) | undefined
  readonly exits?: ExitNotices | undefined
  readonly workspace?: (() => string | undefined) | undefined
}

/**
 * A change made through the control endpoint, as a trace records it.
 */
export type ControlEvent =
  | { readonly type: "register"; readonly specs: unknown; readonly ids: ReadonlyArray<string> }
  | { readonly type: "filesystem.seed"; readonly files: Readonly<Record<string, unknown>> }
  | { readonly type: "unregister"; readonly id: string }
  | { readonly type: "enqueue"; readonly scripts: ReadonlyArray<unknown> }
  | { readonly type: "rules"; readonly specs: unknown; readonly ids: ReadonlyArray<string> }
  | { readonly type: "unrule"; readonly id: string }
  | { readonly type: "drive"; readonly method: string; readonly params: unknown; readonly url: string | undefined }
  | { readonly type: "ui"; readonly method: string; readonly params: unknown; readonly screen: unknown }
  | { readonly type: "reset" }
  | { readonly type: "restore"; readonly state: unknown }
  | { readonly type: "mcp"; readonly id: string; readonly server: unknown }
  | ScenarioEvent

const DEFAULT_BODY_LIMIT = 1024 * 1024

/**
 * The largest snapshot `POST snapshot` restores (128 MiB): above what simnet writes for a full
 * request log (16 MiB of records) and a full model log (16 MiB), so every snapshot it wrote comes
 * back.
 */
export const DEFAULT_SNAPSHOT_LIMIT = 128 * 1024 * 1024

/**
 * A refusal of the request itself (not of what it asks the network): its status, tag, message and,
 * when there is one, the field it names.
 */
class Refusal extends Data.TaggedError("Refusal")<{
  readonly status: number
  readonly tag: string
  readonly message: string
  readonly path?: string | undefined
}> {}

/** What a control route fails with: a refusal of the request, or the network's typed error. */
type ControlFailure = Refusal | SimnetError

const isControlFailure = (u: unknown): u is ControlFailure => u instanceof Refusal || isSimnetError(u)

/**
 * The one middleware of every control route (the endpoint's and the host app's under the base):
 * the checks every control call passes first (`guard.ts`: a loopback peer, a `Host` naming this
 * machine, no foreign `Origin`, the token; the driver socket also takes the token as `?token=`),
 * then a route's failure as its answer: a refusal with its status, a typed error as a 400 naming
 * its tag and, when it has one, the JSON path.
 */
const guard = (token: string | undefined) =>
  // The route's effect is annotated: `catchIf` cannot narrow the union the router hands over as inferred.
  HttpRouter.middleware<{ handles: ControlFailure }>()(
    (httpEffect: Effect.Effect<HttpServerResponse.HttpServerResponse, ControlFailure | Types.unhandled>) =>
      Effect.flatMap(HttpServerRequest.HttpServerRequest, (request) => {
        const refused = check(request, token, request.url.split("?")[0] === `${CONTROL_BASE}/drive`)
        if (refused !== undefined) return Effect.succeed(refuse(refused.status, refused.tag, refused.message))
        return Effect.catchIf(httpEffect, isControlFailure, (error) =>
          Effect.succeed(
            error._tag === "Refusal"
              ? refuse(error.status, error.tag, error.message, error.path)
              : refuse(
                  400,
                  error._tag,
                  error.message,
                  "path" in error && typeof error.path === "string" ? error.path : undefined
                )
          )
        )
      })
  ).layer

/**
 * The JSON body of the request, read up to `limit` bytes: 415 when it is not declared JSON, 413
 * past the limit (declared or streamed), 400 when it does not parse or nests deeper than
 * `MAX_JSON_DEPTH`. What it holds is decoded by the operation it is for (the RouteSpec, script or
 * snapshot Schemas).
 */
const jsonBody = (limit: number): Effect.Effect<unknown, Refusal, HttpServerRequest.HttpServerRequest> =>
  Effect.gen(function* () {
    const request = yield* HttpServerRequest.HttpServerRequest
    const type = (request.headers["content-type"] ?? "").split(";")[0].trim().toLowerCase()
    if (type !== "application/json" && !type.endsWith("+json")) {
      return yield* new Refusal({
        status: 415,
        tag: "UnsupportedMediaType",
        message: `expected a JSON body (content-type: application/json), got ${type === "" ? "none" : type}`
      })
    }
    const declared = request.headers["content-length"]
    if (declaredOver(declared, limit))
      return yield* new Refusal({
        status: 413,
        tag: "PayloadTooLarge",
        message: `the body is ${declared} bytes; the limit is ${limit}`
      })
    const chunks: Array<Uint8Array> = []
    const body = limitedStream(request.stream, limit)
    const read = yield* Effect.exit(
      Stream.runForEach(body.stream, (chunk) => Effect.sync(() => void chunks.push(chunk)))
    )
    if (read._tag === "Failure") {
      return yield* body.over()
        ? new Refusal({ status: 413, tag: "PayloadTooLarge", message: `the body is over the limit of ${limit} bytes` })
        : new Refusal({ status: 400, tag: "BadRequest", message: "the body could not be read" })
    }
    let json: unknown
    try {
      json = JSON.parse(Buffer.concat(chunks).toString("utf8"))
    } catch (error) {
      return yield* new Refusal({
        status: 400,
        tag: "NotJson",
        message: `the body is not JSON: ${error instanceof Error ? error.message : String(error)}`,
        path: "$"
      })
    }
    // Nothing deeper is applied, so every change applied can be written to the trace as well.
    if (depthExceeds(json, MAX_JSON_DEPTH)) {
      return yield* new Refusal({
        status: 400,
        tag: "TooDeep",
        message: `the body nests arrays and objects more than ${MAX_JSON_DEPTH} deep`,
        path: "$"
      })
    }
    return json
  })

/** The query of `GET network/log`: `since`, a whole number (default 0), and `format` (`json`, the default, or `har`). */
const WHOLE_NUMBER = /^\d+$/
const LogQuery = Schema.Struct({
  since: Schema.optional(Schema.String.check(Schema.isPattern(WHOLE_NUMBER))),
  format: Schema.optional(Schema.Literals(["json", "har"]))
})

const ok = (body: unknown, status = 200) => HttpServerResponse.jsonUnsafe(body, { status })

/** `files` as a workspace takes them (`{ PATH: text | { base64 } }`, each path inside), or the 400 naming the first that is not. */
const checkedFiles = (files: unknown): Effect.Effect<void, Refusal> => {
  if (!isJsonObject(files))
    return Effect.fail(
      new Refusal({
        status: 400,
        tag: "BadRequest",
        message: "expected { files: { PATH: text | { base64 } } }",
        path: "files"
      })
    )
  const refused = filesRefusal(files as Record<string, FileContent>)
  return refused === undefined
    ? Effect.void
    : Effect.fail(new Refusal({ status: 400, tag: "BadRequest", message: refused.message, path: refused.path }))
}

/** Lays `files` out in the workspace `dir`, or the 400 naming what could not be written (a link planted there, a file where a directory goes). */
const layOutIn = (dir: string, files: Readonly<Record<string, FileContent>>): Effect.Effect<void, Refusal> =>
  Effect.try({
    try: () => layOut(dir, files),
    catch: (error) =>
      new Refusal({
        status: 400,
        tag: "BadRequest",
        message: error instanceof Error ? error.message : String(error),
        path: "files"
      })
  })

/**
 * Fails when the request comes from a sealed command with `room` access and `specs` forward to
 * the host's network (`hostForwarding`; `known`, what the network already has, passes).
 */
const roomMay = (
  specs: unknown,
  known?: Effect.Effect<ReadonlySet<string>>,
  where: (path: string) => string = (path) => path
) =>
  Effect.gen(function* () {
    if (roomAccess(yield* HttpServerRequest.HttpServerRequest) !== "room") return
    const path = hostForwarding(specs, known === undefined ? undefined : yield* known)
    if (path !== undefined)
      return yield* new Refusal({ status: 403, tag: "RoomForbidden", message: HOST_FORWARDING, path: where(path) })
  })

/** The specs a snapshot's `routes` hold (`[{ source, spec }]`), for `hostForwarding`. */
const specsOf = (state: unknown): ReadonlyArray<unknown> => {
  const routes = isJsonObject(state) ? state["routes"] : undefined
  return Array.isArray(routes) ? routes.map((route) => (isJsonObject(route) ? route["spec"] : undefined)) : []
}

const noWorkspace = new Refusal({
  status: 404,
  tag: "NoWorkspace",
  message: "no workspace: the files of a run are its own only under simnet run --isolate"
})

/** A `ui/ACTION` call: the screen after it (`ui/interactables`: the items), or the terminal's refusal (404 without a terminal, 400 bad params, 409 refused); an action is told to the trace. */
const uiRoute = <R>(
  network: ControlledNetwork,
  options: RunControlOptions,
  action: string,
  body: Effect.Effect<unknown, Refusal, R>
) =>
  Effect.gen(function* () {
    const params = yield* body
    const method = `ui.${action}`
    const told =
      options.onChange === undefined ? undefined : (call: UiCall) => options.onChange?.({ type: "ui", ...call })
    const answer = yield* Effect.mapError(
      uiCall(options.terminal?.(), method, params, network.quiescent, told),
      (error) =>
        new Refusal({
          status: error.code === -32003 ? 404 : error.code === -32602 || error.code === -32601 ? 400 : 409,
          tag: error.code === -32003 ? "NoTerminal" : error.code === -32004 ? "TerminalError" : "InvalidParams",
          message: error.message,
          path:
            typeof (error.data as { path?: unknown } | undefined)?.path === "string"
              ? (error.data as { path: string }).path
              : undefined
        })
    )
    return ok(answer)
  })

/** A rule as `GET llm/rules` lists it: JSON, with its progress (a matcher from code shows as text). */
const ruleView = (rule: LlmRule) => ({
  id: rule.id,
  match: plain(rule.match),
  behaviour: plain(rule.behaviour),
  times: rule.times,
  latencyMs: rule.latency === undefined ? undefined : Duration.toMillis(rule.latency),
  uses: rule.uses,
  failures: rule.failures
})

/**
 * The control endpoint's routes (and the driver socket) for a network, as a router layer: mount
 * it beside the app's own routes, or beside `simnet serve`'s network forwarder.
 */
export const controlRoutes = (
  network: ControlledNetwork,
  options: RunControlOptions = {}
): Layer.Layer<never, never, HttpRouter.HttpRouter> => {
  const token = options.token ?? process.env["SIMNET_TOKEN"]
  const limit = options.bodyLimit ?? DEFAULT_BODY_LIMIT
  const snapshotLimit = options.snapshotLimit ?? DEFAULT_SNAPSHOT_LIMIT
  const tell = options.onChange ?? (() => {})
  const at = (path: string) => `${CONTROL_BASE}/${path}` as `/${string}`
  // The workspace of a sealed run (`simnet run --isolate`): its files, and files added to it.
  // Mounted only by `simnet run`: an app serving its own `filesystem/*` paths through
  // `SimulationControl` keeps them.
  const filesystem =
    options.workspace === undefined
      ? []
      : [
          HttpRouter.route(
            "GET",
            at("filesystem"),
            Effect.suspend(() => {
              const dir = options.workspace?.()
              if (dir === undefined) return Effect.fail(noWorkspace)
              const read = readWorkspace(dir)
              return Effect.succeed(ok({ files: read.files, ...(read.truncated ? { truncated: true } : {}) }))
            })
          ),
          HttpRouter.route(
            "POST",
            at("filesystem/seed"),
            Effect.gen(function* () {
              const dir = options.workspace?.()
              if (dir === undefined) return yield* noWorkspace
              const body = yield* jsonBody(limit)
              const given = isJsonObject(body) ? body["files"] : undefined
              yield* checkedFiles(given)
              const files = given as Record<string, FileContent>
              yield* layOutIn(dir, files)
              tell({ type: "filesystem.seed", files })
              return ok({ seeded: Object.keys(files) }, 201)
            })
          )
        ]
  const metrics = metricsRegistry()
  return HttpRouter.addAll([
    ...filesystem,
    ...scenarioRoutes(network, {
      at,
      body: jsonBody(limit),
      refuse: (status, tag, message, path) => new Refusal({ status, tag, message, path }),
      tell
    }),
    HttpRouter.route(
      "GET",
      at("metrics"),
      Effect.flatMap(network.metrics, (tallies) =>
        Effect.map(
          Effect.promise(() => metrics.text(tallies)),
          (text) => HttpServerResponse.text(text, { contentType: metrics.contentType })
        )
      )
    ),
    HttpRouter.route(
      "POST",
      at("reset"),
      Effect.gen(function* () {
        yield* network.reset
        tell({ type: "reset" })
        return ok({ reset: true })
      })
    ),
    HttpRouter.route(
      "POST",
      at("network/register"),
      Effect.gen(function* () {
        const specs = yield* jsonBody(limit)
        yield* roomMay(specs)
        const ids = yield* network.registerSpec(specs, { source: "control" })
        tell({ type: "register", specs, ids })
        // Operations of an OpenAPI document that cannot be served (the rest of it is), and why.
        const added = new Set(ids)
        const refused = (yield* network.routes).flatMap((route) => {
          const info = route as { readonly id: string; readonly refused?: unknown }
          return added.has(info.id) && typeof info.refused === "string" ? [{ id: info.id, reason: info.refused }] : []
        })
        return ok(refused.length === 0 ? { ids } : { ids, refused }, 201)
      })
    ),
    HttpRouter.route(
      "GET",
      at("network/routes"),
      Effect.map(network.routes, (routes) => ok({ routes }))
    ),
    HttpRouter.route(
      "DELETE",
      at("network/routes/:id"),
      Effect.gen(function* () {
        const id = (yield* HttpRouter.params)["id"] ?? ""
        if (!(yield* network.unregister(id)))
          return yield* new Refusal({
            status: 404,
            tag: "UnknownRoute",
            message: `no route has id ${JSON.stringify(id)}`,
            path: "id"
          })
        tell({ type: "unregister", id })
        return ok({ removed: id })
      })
    ),
    HttpRouter.route(
      "GET",
      at("network/log"),
      Effect.gen(function* () {
        const query = yield* HttpServerRequest.schemaSearchParams(LogQuery).pipe(
          Effect.catchTag("SchemaError", () =>
            Effect.flatMap(HttpServerRequest.ParsedSearchParams, (params) =>
              params["since"] !== undefined && !WHOLE_NUMBER.test(String(params["since"]))
                ? new Refusal({
                    status: 400,
                    tag: "BadRequest",
                    message: `since must be a whole number, got ${JSON.stringify(params["since"])}`,
                    path: "since"
                  })
                : new Refusal({
                    status: 400,
                    tag: "BadRequest",
                    message: `format must be json or har, got ${JSON.stringify(params["format"])}`,
                    path: "format"
                  })
            )
          )
        )
        const since = Number(query.since ?? "0")
        if (query.format !== "har") return ok({ records: yield* network.logSince(since) })
        // A HAR is a file to save: devtools and HAR viewers open `.har`.
        return HttpServerResponse.jsonUnsafe(yield* network.har(since), {
          headers: { "content-disposition": `attachment; filename="simnet.har"` }
        })
      })
    ),
    // The terminal of `simnet run --tty`, as the driver socket's `ui.*` methods (`ui.ts`) see it.
    HttpRouter.route("GET", at("ui/screen"), uiRoute(network, options, "screen", Effect.succeed({}))),
    HttpRouter.route("GET", at("ui/interactables"), uiRoute(network, options, "interactables", Effect.succeed({}))),
    HttpRouter.route(
      "POST",
      at("ui/:action"),
      Effect.flatMap(HttpRouter.params, (params) => uiRoute(network, options, params["action"] ?? "", jsonBody(limit)))
    ),
    HttpRouter.route(
      "POST",
      at("llm/enqueue"),
      Effect.gen(function* () {
        const json = yield* jsonBody(limit)
        yield* SimulatedProviderApi.enqueueAll(network.llm, json)
        tell({ type: "enqueue", scripts: batchOf(json).list })
        return ok({ queued: network.llm.queued }, 201)
      })
    ),
    HttpRouter.route(
      "POST",
      at("llm/rules"),
      Effect.gen(function* () {
        const specs = yield* jsonBody(limit)
        const ids = yield* SimulatedProviderApi.addRules(network.llm, specs)
        tell({ type: "rules", specs, ids })
        return ok({ ids }, 201)
      })
    ),
    HttpRouter.route(
      "GET",
      at("llm/rules"),
      Effect.sync(() => ok({ rules: network.llm.rules.map(ruleView) }))
    ),
    HttpRouter.route(
      "DELETE",
      at("llm/rules/:id"),
      Effect.gen(function* () {
        const id = (yield* HttpRouter.params)["id"] ?? ""
        if (!network.llm.removeRule(id))
          return yield* new Refusal({
            status: 404,
            tag: "UnknownRule",
            message: `no rule has id ${JSON.stringify(id)}`,
            path: "id"
          })
        tell({ type: "unrule", id })
        return ok({ removed: id })
      })
    ),
    HttpRouter.route(
      "GET",
      at("llm/pending"),
      Effect.sync(() => ok({ pending: network.llm.pending }))
    ),
    HttpRouter.route(
      "POST",
      at("mcp/:id"),
      Effect.gen(function* () {
        const id = (yield* HttpRouter.params)["id"] ?? ""
        const body = yield* jsonBody(limit)
        if (typeof body !== "object" || body === null || Array.isArray(body)) {
          return yield* new Refusal({
            status: 400,
            tag: "InvalidRouteSpec",
            message: "an MCP server change is an object of definition fields (tools, resources, prompts, …)",
            path: ""
          })
        }
        // The fields given are checked as a whole server's would be (a name and version stand in).
        const checked = decodeAt(McpServerSpec, { name: "-", version: "-", ...body }, "", { onExcessProperty: "error" })
        if (checked._tag === "Failure")
          return yield* new Refusal({
            status: 400,
            tag: "InvalidRouteSpec",
            message: checked.failure.message,
            path: checked.failure.path
          })
        const fields = Object.fromEntries(
          Object.keys(body).map((key) => [key, (checked.success as Record<string, unknown>)[key]])
        )
        yield* network.mcp.update(id, (current) => ({ ...current, ...fields }))
        tell({ type: "mcp", id, server: body })
        return ok({ updated: id })
      })
    ),
    // A sealed run's snapshot carries its workspace's files (and names those it leaves out: links,
    // files past the walk's limits); restoring one lays them out again and removes the rest.
    HttpRouter.route(
      "GET",
      at("snapshot"),
      Effect.map(network.state, (state) => {
        const dir = options.workspace?.()
        if (dir === undefined) return ok(state)
        const { files, omitted, truncated } = workspaceFiles(dir)
        return ok(
          Object.assign(
            {},
            state,
            { files },
            omitted.length === 0 ? {} : { filesOmitted: omitted },
            truncated ? { filesTruncated: true } : {}
          )
        )
      })
    ),
    HttpRouter.route(
      "POST",
      at("snapshot"),
      Effect.gen(function* () {
        const given = yield* jsonBody(snapshotLimit)
        const dir = options.workspace?.()
        const { files, filesOmitted, filesTruncated, ...state } =
          dir !== undefined && isJsonObject(given) ? given : { files: undefined }
        // The files are checked before anything changes. Without a workspace, the network restores
        // what it carries (an attached SimulationFileSystem's files).
        if (files !== undefined) yield* checkedFiles(files)
        const omitted = filesOmitted === undefined ? [] : filesOmitted
        if (!Array.isArray(omitted) || omitted.some((path) => typeof path !== "string")) {
          return yield* new Refusal({
            status: 400,
            tag: "BadRequest",
            message: "filesOmitted must be a list of workspace paths",
            path: "filesOmitted"
          })
        }
        yield* roomMay(
          specsOf(given),
          Effect.map(network.state, (now) => new Set(specsOf(now).map((spec) => JSON.stringify(spec)))),
          (path) => path.replace(/^\[(\d+)\]\./, "routes[$1].spec.")
        )
        yield* network.restore(files === undefined ? given : state)
        if (files !== undefined && dir !== undefined) {
          yield* layOutIn(dir, files as Record<string, FileContent>)
          // A snapshot of a workspace past the walk's limits does not name every file it held: nothing is removed then.
          if (filesTruncated !== true)
            keepOnly(dir, new Set([...Object.keys(files as object), ...(omitted as Array<string>)]))
        }
        tell({ type: "restore", state: given })
        return ok({ restored: true })
      })
    ),
    HttpRouter.route("GET", at("drive"), (request) =>
      driverSocket(
        network,
        request,
        options.onChange === undefined
          ? undefined
          : (command) => tell("screen" in command ? { type: "ui", ...command } : { type: "drive", ...command }),
        options.terminal,
        options.exits
      )
    ),
    HttpRouter.route(
      "*",
      at("*"),
      (request) =>
        new Refusal({
          status: 404,
          tag: "NotFound",
          message: `no control endpoint ${request.method} ${request.url.split("?")[0]}`
        })
    )
  ]).pipe(Layer.provide(guard(token)))
}

/**
 * The router the control layer exposes for the host's own endpoints under the base.
 */
export const controlRouter = (options: ControlOptions = {}): ControlRouter => {
  const token = options.token ?? process.env["SIMNET_TOKEN"]
  return {
    base: CONTROL_BASE,
    add: (method, path, handler) =>
      HttpRouter.add(method, `${CONTROL_BASE}/${path.replace(/^\/+/, "")}` as `/${string}`, handler).pipe(
        Layer.provide(guard(token))
      ) as never
  }
}
