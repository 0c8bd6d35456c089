/**
 * The typed errors of simnet. Every failure a caller can act on carries a stable `_tag` and the
 * fields needed to act on it: the request that was not matched, the JSON path of a bad route
 * specification, the schema issue of a rejected generated value.
 */
import { Effect, Schema } from "effect"

/**
 * What marks a value as one of simnet's typed errors (`isSimnetError`): every error class below
 * carries it on its prototype.
 */
export const SimnetErrorTypeId: unique symbol = Symbol.for("simnet/SimnetError")
export type SimnetErrorTypeId = typeof SimnetErrorTypeId

/**
 * Why a registered route did not answer a request: the first part of the matcher that missed,
 * `exhausted` (its `times` used up), or `state` (its scenario is not in the state it requires;
 * the detail names the current state).
 */
export const MissReason = Schema.Literals([
  "method",
  "host",
  "path",
  "query",
  "header",
  "body",
  "predicate",
  "exhausted",
  "state"
])
export type MissReason = typeof MissReason.Type

/**
 * A route that came close to matching an unregistered request, with the reason it missed.
 */
export const Candidate = Schema.Struct({
  id: Schema.String,
  match: Schema.String,
  reason: MissReason,
  detail: Schema.String
})
export type Candidate = typeof Candidate.Type

/**
 * A request that no registered route answers. The network fails closed: nothing is sent
 * anywhere. `candidates` lists up to three nearest routes and why each did not match.
 */
export class UnregisteredRequest extends Schema.TaggedError<UnregisteredRequest>()("UnregisteredRequest", {
  method: Schema.String,
  url: Schema.String,
  candidates: Schema.Array(Candidate)
}) {
  override get message(): string {
    const head = `simnet: no route for ${this.method} ${this.url}`
    if (this.candidates.length === 0) return `${head} (no routes registered for this method and host)`
    const near = this.candidates.map((c) => `  - ${c.id} (${c.match}): ${c.reason} ${c.detail}`).join("\n")
    return `${head}; nearest routes:\n${near}`
  }
}

/**
 * A route (RouteSpec JSON or a route built in code) that cannot be registered. `path` is the JSON
 * path of the offending field, such as `[2].match.regex`. The registry is left exactly as it was.
 */
export class InvalidRouteSpec extends Schema.TaggedError<InvalidRouteSpec>()("InvalidRouteSpec", {
  path: Schema.String,
  message: Schema.String
}) {}

/**
 * What the simulated model was handed: a script, a rule, a driver command, or an option of the
 * provider.
 */
export const LlmInputKind = Schema.Literals(["script", "rule", "driver command", "provider option"])
export type LlmInputKind = typeof LlmInputKind.Type

/**
 * Input the simulated model refuses: a bad LLM script, rule or driver command. `path` names the
 * field (`steps[0][1].status`, `options.times`); the queue and the rules are left as they were.
 */
export class InvalidLlmInput extends Schema.TaggedError<InvalidLlmInput>()("InvalidLlmInput", {
  input: LlmInputKind,
  path: Schema.String,
  detail: Schema.String
}) {
  override get message(): string {
    return `simnet: invalid LLM ${this.input} at ${this.path}: ${this.detail}`
  }
}

/**
 * A network option that cannot be used (`logLimit: -1`, say). `option` names it; nothing is built.
 */
export class InvalidNetworkOption extends Schema.TaggedError<InvalidNetworkOption>()("InvalidNetworkOption", {
  option: Schema.String,
  detail: Schema.String
}) {
  override get message(): string {
    return `simnet: invalid network option ${this.option}: ${this.detail}`
  }
}

/**
 * Why a fixture file cannot be read (`FixtureUnreadable.reason`): it is not there, it is a
 * directory, reading it is not permitted, or reading it failed otherwise (`detail` says how).
 */
export const FixtureUnreadableReason = Schema.Literals([
  "file not found",
  "is a directory",
  "permission denied",
  "unreadable"
])
export type FixtureUnreadableReason = typeof FixtureUnreadableReason.Type

/**
 * A fixture file that cannot be read; `reason` says why (`FixtureUnreadableReason`), for callers
 * that branch on it (a missing file is where a recording starts). `file` is the path as given.
 */
export class FixtureUnreadable extends Schema.TaggedError<FixtureUnreadable>()("FixtureUnreadable", {
  file: Schema.String,
  reason: FixtureUnreadableReason,
  detail: Schema.optional(Schema.String)
}) {
  override get message(): string {
    return `simnet: cannot read fixture ${this.file}: ${this.reason}${this.detail === undefined ? "" : `: ${this.detail}`}`
  }
}

/**
 * A fixture file that is not JSON. `line` and `column` (from 1) point at the first character the
 * JSON parser could not take.
 */
export class FixtureNotJson extends Schema.TaggedError<FixtureNotJson>()("FixtureNotJson", {
  file: Schema.String,
  line: Schema.Number,
  column: Schema.Number,
  detail: Schema.String
}) {
  override get message(): string {
    return `simnet: fixture ${this.file} is not JSON at line ${this.line}, column ${this.column}: ${this.detail}`
  }
}

/**
 * A generated value that does not decode under the production schema it was generated for.
 * It is never served. `issue` is the schema's own account of what failed.
 */
export class GeneratedValueRejected extends Schema.TaggedError<GeneratedValueRejected>()("GeneratedValueRejected", {
  route: Schema.String,
  path: Schema.String,
  issue: Schema.String
}) {
  override get message(): string {
    return `simnet: generated value for route ${this.route} was rejected at ${this.path}: ${this.issue}`
  }
}

/**
 * A loopback route aimed at a host that is not this machine (only 127.0.0.0/8, ::1 and
 * localhost are allowed).
 */
export class LoopbackDenied extends Schema.TaggedError<LoopbackDenied>()("LoopbackDenied", {
  host: Schema.String,
  /** Where the route stands in RouteSpec JSON, when it came from there. */
  at: Schema.optional(Schema.String)
}) {
  override get message(): string {
    return `${this.at === undefined ? "" : `${this.at}: `}loopback routes reach only 127.0.0.0/8, ::1 and localhost; "${this.host}" is not this machine`
  }
}

/**
 * A model request that no rule of the simulated provider matches. `material` summarises the
 * request (model, last user message) so the missing rule can be written.
 */
export class UnmatchedLlmRequest extends Schema.TaggedError<UnmatchedLlmRequest>()("UnmatchedLlmRequest", {
  model: Schema.String,
  material: Schema.String,
  /** The nearest rules (those that missed on the fewest fields) and why each missed, as HTTP refusals name their candidates. */
  nearest: Schema.optional(Schema.Array(Schema.Struct({ id: Schema.String, misses: Schema.Array(Schema.String) })))
}) {
  override get message(): string {
    const near = (this.nearest ?? []).map((rule) => `nearest rule "${rule.id}": ${rule.misses.join("; ")}`)
    return `simnet: no LLM rule matches this call (${this.material})${near.length === 0 ? "" : `; ${near.join("; ")}`}`
  }
}

/**
 * Why no script took a model call (`NoScriptQueued.reason`): none was queued (`empty`); scripts
 * were queued but the call follows tool results and none is under way (`handoff`: a queued script
 * starts at a new turn); or the script under way has no step for this round (`exhausted`).
 */
export const NoScriptReason = Schema.Literals(["empty", "handoff", "exhausted"])
export type NoScriptReason = typeof NoScriptReason.Type

/**
 * A model request that no script takes, with no rule to fall back on; `reason` says why
 * (`NoScriptReason`), `material` summarises the call. `queued` is how many scripts wait
 * (`handoff`); `steps`, `rounds` and `startRound` describe the script under way (`exhausted`).
 */
export class NoScriptQueued extends Schema.TaggedError<NoScriptQueued>()("NoScriptQueued", {
  model: Schema.String,
  reason: NoScriptReason,
  material: Schema.String,
  queued: Schema.optional(Schema.Number),
  steps: Schema.optional(Schema.Number),
  rounds: Schema.optional(Schema.Number),
  startRound: Schema.optional(Schema.Number)
}) {
  override get message(): string {
    if (this.reason === "empty") return `simnet: no LLM script queued for this call (${this.material})`
    if (this.reason === "handoff") {
      return `simnet: ${this.queued ?? 0} LLM script(s) queued, but none takes this call: it follows tool results and no script is under way (a queued script starts at a new turn, or after a script whose last step calls a tool) (${this.material})`
    }
    // "exhausted", the one reason left.
    const started = (this.startRound ?? 0) === 0 ? "" : ` (started at tool-result round ${this.startRound})`
    return `simnet: the current LLM script has ${this.steps ?? 0} step(s)${started} but this call follows ${this.rounds ?? 0} tool-result round(s) (${this.material})`
  }
}

/**
 * A driver command (`chunk`, `finish`, `fail`, `disconnect`) for a model invocation that is not
 * pending: it already ended, or its client went away. `id` is the invocation the command named.
 */
export class InvocationNotPending extends Schema.TaggedError<InvocationNotPending>()("InvocationNotPending", {
  id: Schema.String
}) {
  override get message(): string {
    return `simnet: no pending model invocation ${this.id}`
  }
}

/**
 * Why a route failed to answer (`RouteFailed.reason`), for callers that branch on it:
 * - `handler`: the route's own code (a handler, an MCP server, a matcher predicate) threw or failed;
 * - `upstream`: a loopback route, or record mode, got no answer from the real server;
 * - `service`: the network lacks a service the route needs (a route used outside `SimulationNetwork`);
 * - `driver`: the driver of a driven model call went away before finishing it;
 * - `abandoned`: the client went away before the answer;
 * - `misconfigured`: the route cannot answer as it stands (an OpenAPI schema that does not
 *   compile, an operation that was not registered, an answer head Node refuses);
 * - `unsimulated`: the route stands for a server simnet does not simulate (an MCP server of a
 *   config that is neither local nor known);
 * - `template`: a templated answer could not be written (over its bounds, JSON that does not
 *   parse, a header value the request broke).
 */
export const RouteFailedReason = Schema.Literals([
  "handler",
  "upstream",
  "service",
  "driver",
  "abandoned",
  "misconfigured",
  "unsimulated",
  "template"
])
export type RouteFailedReason = typeof RouteFailedReason.Type

/**
 * A route failed while answering; `reason` says how (`RouteFailedReason`). The network reports
 * it as a transport failure of that request (a 502 from `simnet serve`, naming the reason).
 */
export class RouteFailed extends Schema.TaggedError<RouteFailed>()("RouteFailed", {
  route: Schema.String,
  reason: RouteFailedReason,
  message: Schema.String,
  cause: Schema.optional(Schema.Defect())
}) {}

/**
 * A second whole-process installation while one is active: the process has one global `fetch`,
 * so one network answers it at a time. Restore the first one before installing another.
 */
export class GlobalInstallConflict extends Schema.TaggedError<GlobalInstallConflict>()("GlobalInstallConflict", {}) {
  override get message(): string {
    return "a simulated network already answers this process's requests; restore it before installing another"
  }
}

/**
 * An outbound connection that the network guard refused while simnet answers the process
 * (`installGlobal`, `--import simnet/register`): a TCP or TLS connection to a host that no
 * allowance names, whatever library opened it. `host` and `port` name the destination.
 */
export class ConnectionDenied extends Schema.TaggedError<ConnectionDenied>()("ConnectionDenied", {
  host: Schema.String,
  port: Schema.optional(Schema.Number)
}) {
  override get message(): string {
    const where = `${this.host}${this.port === undefined ? "" : `:${this.port}`}`
    return `simnet: connection to ${where} refused by the network guard: simnet answers this process, and no route, passthrough host or allowHosts entry names ${where}`
  }
  /** The code a socket error carries, as Node's own connection errors do. */
  get code(): string {
    return "ECONNREFUSED"
  }
}

/**
 * A logged request whose body cannot be generated again: it was not answered by a seeded route
 * (a generated or model-free static body), or that route is no longer registered. `seq` is the
 * request's number in the log.
 */
export class NotRegenerable extends Schema.TaggedError<NotRegenerable>()("NotRegenerable", {
  seq: Schema.Number
}) {
  override get message(): string {
    return `simnet: request ${this.seq} was not answered by a seeded route that is still registered`
  }
}

/**
 * A strict network (`strict: true`, `simnet run --strict`) that was not clean when checked (at
 * `close`, or by `verify`): requests were refused, or routes marked `required` were never used.
 * `denied` counts every refusal; `refused` names up to 20 of them (the URL redacted), `unused`
 * every required route that went unused.
 */
export class StrictViolation extends Schema.TaggedError<StrictViolation>()("StrictViolation", {
  denied: Schema.Number,
  refused: Schema.Array(Schema.Struct({ method: Schema.String, url: Schema.String, tag: Schema.String })),
  unused: Schema.Array(Schema.String)
}) {
  override get message(): string {
    const parts = [
      ...(this.denied === 0
        ? []
        : [
            `${this.denied} request${this.denied === 1 ? " was" : "s were"} refused (${this.refused.map((r) => `${r.method} ${r.url}: ${r.tag}`).join("; ")}${this.refused.length < this.denied ? "; …" : ""})`
          ]),
      ...(this.unused.length === 0
        ? []
        : [
            `${this.unused.length} required route${this.unused.length === 1 ? " was" : "s were"} never used (${this.unused.join(", ")})`
          ])
    ]
    return `simnet: strict: ${parts.join("; and ")}`
  }
}

// The one definition of the mark `isSimnetError` reads: on each class's prototype, so a copy
// spread into a plain object is not taken for a simnet error.
for (const error of [
  UnregisteredRequest,
  InvalidRouteSpec,
  InvalidLlmInput,
  InvalidNetworkOption,
  FixtureUnreadable,
  FixtureNotJson,
  GeneratedValueRejected,
  LoopbackDenied,
  UnmatchedLlmRequest,
  NoScriptQueued,
  InvocationNotPending,
  RouteFailed,
  GlobalInstallConflict,
  ConnectionDenied,
  NotRegenerable,
  StrictViolation
])
  Object.defineProperty(error.prototype, SimnetErrorTypeId, { value: SimnetErrorTypeId })

/**
 * Every typed error simnet raises: for a request, a registration, a fixture, an option or the
 * simulated model's input. Each operation names the part it can fail with (`RegisterError`,
 * `MakeError`, ...).
 */
export type SimnetError =
  | UnregisteredRequest
  | InvalidRouteSpec
  | InvalidLlmInput
  | InvalidNetworkOption
  | FixtureUnreadable
  | FixtureNotJson
  | GeneratedValueRejected
  | LoopbackDenied
  | UnmatchedLlmRequest
  | NoScriptQueued
  | RouteFailed
  | InvocationNotPending
  | GlobalInstallConflict
  | ConnectionDenied
  | NotRegenerable
  | StrictViolation

/**
 * What registering routes can fail with (`register`, `registerSpec`): a route that cannot be
 * registered, a generator that cannot produce a value its schema accepts, a loopback route aimed
 * elsewhere. Nothing is registered.
 */
export type RegisterError = InvalidRouteSpec | GeneratedValueRejected | LoopbackDenied

/** What building a network can fail with: a bad option, a bad initial route or script. */
export type MakeError = InvalidNetworkOption | InvalidLlmInput | RegisterError | FixtureUnreadable | FixtureNotJson

/**
 * What restoring a state can fail with (a snapshot, or the start: `reset` registers the initial
 * routes and scripts again): a bad state, route or script. Nothing changes.
 */
export type RestoreError = InvalidLlmInput | RegisterError

/** What generating a logged request's body again can fail with. */
export type RegenerateError = NotRegenerable | InvalidRouteSpec | GeneratedValueRejected | RouteFailed

/** What reading a fixture can fail with: the file, its JSON, a route or a script in it. */
export type FixtureError = FixtureUnreadable | FixtureNotJson | InvalidRouteSpec | InvalidLlmInput

/**
 * Fails with `error` when it is an `E` (`is`, such as `Schema.is(InvalidLlmInput)`), and dies with
 * it otherwise: a throw that is not the typed error the caller expects is a defect, not an `E`.
 */
export const failAs = <E>(is: (u: unknown) => u is E, error: unknown): Effect.Effect<never, E> =>
  is(error) ? Effect.fail(error) : Effect.die(error)

/**
 * Whether a value is one of simnet's typed errors (it carries `SimnetErrorTypeId`).
 */
export const isSimnetError = (u: unknown): u is SimnetError =>
  typeof u === "object" && u !== null && SimnetErrorTypeId in u
