/**
 * A network's options: what `make` takes (`NetworkOptions`), the keys it knows (another is
 * refused, with the nearest known name), the fixture it starts from put first (a path, or a
 * fixture `Fixture.load` gave: a loaded fixture is network options), and the options that are
 * data decoded by their Schema (`schemas/options.ts`).
 */
import { Effect, Result, Schema } from "effect"
import type { ChaosOptions } from "../registry/chaos.ts"
import type { RedactOptions } from "../registry/redact.ts"
import { isRoute, type Route } from "../registry/route.ts"
import { decodeAt } from "../registry/schemaPath.ts"
import type { FileContent } from "../fileSystem/workspace.ts"
import { familiesWith } from "../families/index.ts"
import type { Handler } from "../routes/handler/handler.ts"
import { withModels } from "../models/apis.ts"
import type { ModelFamily } from "../models/wire/wire.ts"
import type { LlmScript } from "../schemas/llmScript.ts"
import { NetworkOptionsData } from "../schemas/options.ts"
import { type FixtureError, InvalidNetworkOption } from "../SimnetError.ts"
import { type Fixture, loadFixture } from "./fixture.ts"

/**
 * Options for a new network.
 * - `seed`: the run seed (number or string, default 0); generated answers derive from it.
 * - `routes`: routes to register at start (and again on `reset`).
 * - `logLimit`: how many request records the ring keeps (default 10 000); counters stay exact.
 * - `logBytes`: how many bytes of records the ring keeps at most (default 16 MiB; records hold
 *   body previews, never whole bodies); the oldest go first.
 * - `handlers`: named handlers that RouteSpec JSON can refer to (`{ kind: "handler", name }`).
 * - `epoch`: the `created` time (Unix seconds) the simulated model's answers report (default
 *   `DEFAULT_EPOCH`, fixed so that runs serve identical bytes; `"clock"` follows Effect's Clock).
 * - `redact`: header, query parameter and JSON body field names to redact on top of the
 *   documented defaults (`Redaction.CREDENTIAL_HEADERS`, `CREDENTIAL_QUERY`,
 *   `CREDENTIAL_BODY_FIELDS`), wherever this network shows a request.
 */
export interface NetworkOptions {
  readonly seed?: number | string | undefined
  readonly routes?: Iterable<Route> | undefined
  readonly logLimit?: number | undefined
  readonly logBytes?: number | undefined
  readonly redact?: RedactOptions | undefined
  readonly handlers?: Readonly<Record<string, Handler>> | undefined
  /** Scripts to queue on the simulated model at start (and again on `reset`). */
  readonly llm?: Iterable<LlmScript> | undefined
  /**
   * Rules of the simulated model as JSON (`LlmRuleSpec`, as a fixture's `llm.rules` gives them),
   * added at start (and again on `reset`) after the queue; a bad one is an `InvalidLlmInput`
   * naming it (`llmRules[1].match.system`).
   */
  readonly llmRules?: ReadonlyArray<unknown> | undefined
  readonly epoch?: number | "clock" | undefined
  /**
   * Model requests that no script or rule takes wait for a driver even before one attaches
   * (`simnet serve --drive`); a driver that attaches later is handed them.
   */
  readonly drive?: boolean | undefined
  /**
   * Seeded chaos (see `registry/chaos.ts`): `{ rate, faults?, latencyMs?, routes? }`. Whether a
   * request is hit, and how, is a pure function of the seed, the route, the request and its
   * occurrence; each hit is in its log record (`record.chaos`).
   */
  readonly chaos?: ChaosOptions | undefined
  /**
   * Record mode (`network/record/record.ts`): what no route answers is forwarded to its real host (or
   * `upstream[host]`), answered and kept; `network.recording` is it as a fixture, written to
   * `file` (merged) when the network closes. Without it nothing is ever forwarded.
   */
  readonly record?:
    | {
        readonly file?: string | undefined
        readonly upstream?: Readonly<Record<string, string>> | undefined
        readonly cookies?: boolean | undefined
      }
    | undefined
  /**
   * Keep each exchange's bodies (at most 1 MiB each) and its answer's headers in the log, for
   * `har()` (`GET network/log?format=har`): off by default, as keeping costs every answer a copy
   * of its head and body (and a streamed body one more stream). What is kept counts against `logBytes`.
   * Without it a HAR still carries every answer that is a pure function of its route and seed
   * (text, bytes, a status, generated JSON), made again at export; a handler's, the model's, an
   * MCP server's are only there with it.
   */
  readonly keepBodies?: boolean | undefined
  /**
   * What `network.fetch` does with a request the network refuses (unregistered, a route that
   * failed): `"reject"` (the default) rejects `TypeError("fetch failed")` whose `cause` is the
   * typed error, as undici's `fetch` does when it cannot connect; `"502"` resolves with the 502
   * `simnet serve` answers (JSON `{ error: { tag, message, … } }`, `x-should-retry: false`), so a
   * model SDK fails at once, without retries, with simnet's message first. `httpClient` is not
   * affected: its refusals are typed errors.
   */
  readonly refusals?: "reject" | "502" | undefined
  /**
   * A fixture to start from: the path of a fixture file (relative to the current directory), read
   * as `simnet serve --fixture` reads it, or a fixture already loaded (`Fixture.load`). Its routes,
   * model scripts and rules come first, then those given here; its seed and chaos apply unless
   * given here; its prompts and files are added to these. A file that cannot be read or decoded
   * is the make's error (`FixtureUnreadable`, `FixtureNotJson`, `InvalidRouteSpec` naming the field).
   */
  readonly fixture?: string | Fixture | undefined
  /**
   * What a person might type into the app (a fixture's `prompts`): `simnet explore` types them.
   * A network takes them, so that a loaded fixture is network options, and answers nothing by them.
   */
  readonly prompts?: ReadonlyArray<string> | undefined
  /**
   * Files to start with (a fixture's `files`: `{ PATH: text | { base64 } }`, paths inside the
   * root): a `SimulationFileSystem.layer()` given this network lays them out, and the network
   * keeps them as `files`. A path that leaves the root is refused, naming it.
   */
  readonly files?: Readonly<Record<string, FileContent>> | undefined
  /**
   * Model families this network speaks beyond simnet's own (`ModelFamily`: a family name, its
   * model APIs' wires and its routes; one of the same name replaces simnet's): fixtures and
   * `registerSpec` can name them, record mode reads their calls back into model rules, and they
   * are answered by the network's one `SimulatedProvider` like the built-in APIs.
   */
  readonly models?: ReadonlyArray<ModelFamily> | undefined
  /**
   * As nock's `disableNetConnect` with `done()`: the network is checked when it closes (the
   * handle's `close`, the layer's end), and fails the test with `StrictViolation` when a request
   * was refused or a route marked `required` was never used. `verify` checks it at any time.
   */
  readonly strict?: boolean | undefined
}

/** Every key `NetworkOptions` has: another one is refused, with the nearest known name. */
const NETWORK_OPTION_KEYS: ReadonlySet<string> = new Set([
  "seed",
  "routes",
  "logLimit",
  "logBytes",
  "redact",
  "handlers",
  "llm",
  "llmRules",
  "epoch",
  "drive",
  "chaos",
  "record",
  "keepBodies",
  "refusals",
  "fixture",
  "models",
  "strict",
  "prompts",
  "files"
])
const NetworkOptionKeys = Schema.Struct(
  Object.fromEntries([...NETWORK_OPTION_KEYS].map((key) => [key, Schema.optional(Schema.Unknown)]))
)

/**
 * Whether a value is a fixture as `Fixture.load` gives it: routes built, scripts and rules as
 * lists, prompts and files. What is in them is checked as the same options given alone are.
 */
const isLoadedFixture = (value: unknown): value is Fixture => {
  if (typeof value !== "object" || value === null) return false
  const fixture = value as Partial<Record<keyof Fixture, unknown>>
  return (
    Array.isArray(fixture.routes) &&
    fixture.routes.every(isRoute) &&
    Array.isArray(fixture.llm) &&
    Array.isArray(fixture.llmRules) &&
    Array.isArray(fixture.prompts) &&
    typeof fixture.files === "object" &&
    fixture.files !== null
  )
}

/**
 * `given`, with the fixture it names (a path) or holds (a loaded fixture) put first, after
 * checking that it has no key `NetworkOptions` does not know (a typo must not be ignored).
 */
export const withFixture = (
  given: NetworkOptions
): Effect.Effect<NetworkOptions, InvalidNetworkOption | FixtureError> =>
  Effect.gen(function* () {
    // The keys checked by a set first (a network is made per property case); the Schema only
    // names an unknown one and the nearest known name.
    if (Object.keys(given).some((key) => !NETWORK_OPTION_KEYS.has(key))) {
      const keys = decodeAt(NetworkOptionKeys, given, "", { onExcessProperty: "error" })
      if (Result.isFailure(keys))
        return yield* new InvalidNetworkOption({ option: keys.failure.path || "options", detail: keys.failure.message })
    }
    if (given.fixture === undefined) return given
    if (typeof given.fixture === "string") {
      return fixtureFirst(
        given,
        yield* loadFixture(given.fixture, {
          handlers: new Map(Object.entries(given.handlers ?? {})),
          families: familiesWith(withModels(given.models))
        })
      )
    }
    if (isLoadedFixture(given.fixture)) return fixtureFirst(given, given.fixture)
    return yield* new InvalidNetworkOption({
      option: "fixture",
      detail: "must be the path of a fixture file or a fixture Fixture.load gave"
    })
  })

/** `given` over `file`: the fixture's routes, scripts, rules, prompts and files first; its seed and chaos unless given. */
const fixtureFirst = (given: NetworkOptions, file: Fixture): NetworkOptions => ({
  ...given,
  seed: given.seed ?? file.seed,
  routes: [...file.routes, ...(given.routes ?? [])],
  llm: [...file.llm, ...(given.llm ?? [])],
  llmRules: [...file.llmRules, ...(given.llmRules ?? [])],
  chaos: given.chaos ?? file.chaos,
  prompts: [...new Set([...file.prompts, ...(given.prompts ?? [])])],
  files: { ...file.files, ...given.files }
})

/** The options that are data, decoded (`schemas/options.ts`), or the refusal naming the bad one. */
export const decodeOptions = (
  options: NetworkOptions
): Result.Result<typeof NetworkOptionsData.Type, InvalidNetworkOption> =>
  Result.mapError(
    decodeAt(
      NetworkOptionsData,
      {
        logLimit: options.logLimit,
        logBytes: options.logBytes,
        redact: options.redact,
        chaos: options.chaos,
        keepBodies: options.keepBodies,
        refusals: options.refusals,
        strict: options.strict,
        prompts: options.prompts,
        files: options.files
      },
      "",
      { onExcessProperty: "error" }
    ),
    (issue) => new InvalidNetworkOption({ option: issue.path, detail: issue.message })
  )
