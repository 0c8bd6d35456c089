/**
 * The control endpoint's scenario paths (see `RouteOptions.scenario`), WireMock's admin calls:
 *
 * | method and path               | does                                                     |
 * |-------------------------------|----------------------------------------------------------|
 * | `GET scenarios`               | `{ scenarios: [{ name, state, states }] }`               |
 * | `POST scenarios/reset`        | every scenario back to `"Started"`: `{ reset: true }`    |
 * | `PUT scenarios/NAME/state`    | body `{ "state": S }`: the scenario moves to S, `{ name, state }`; 404 for a scenario no route names |
 *
 * The paths run behind the endpoint's one middleware (its access checks and refusals); each change
 * is told to `onChange`, so a trace replays it.
 */
import { Effect, Result, Schema } from "effect"
import * as HttpRouter from "effect/http/HttpRouter"
import type * as HttpServerRequest from "effect/http/HttpServerRequest"
import * as HttpServerResponse from "effect/http/HttpServerResponse"
import { decodeAt } from "../registry/schemaPath.ts"
import type { ScenarioInfo } from "../registry/scenarios.ts"
import { StateName } from "../routes/make.ts"

/** What the scenario paths need of a network (a `SimulationNetworkApi` has it). */
export interface ScenarioNetwork {
  readonly scenarios: {
    readonly list: Effect.Effect<ReadonlyArray<ScenarioInfo>>
    readonly reset: Effect.Effect<void>
    readonly set: (name: string, state: string) => Effect.Effect<boolean>
  }
}

/** A change of scenarios through the endpoint, as a trace records it. */
export type ScenarioEvent =
  | { readonly type: "scenarios.reset" }
  | { readonly type: "scenario"; readonly name: string; readonly state: string }

/** The body of `PUT scenarios/NAME/state`: a state named as a route's `newState` is. */
const StateBody = Schema.Struct({ state: StateName })

/**
 * The scenario paths, given the endpoint's parts: `at` (a path under the base), `body` (the
 * request's JSON, refused as the endpoint refuses), `refuse` (a refusal with its status) and `tell`.
 */
export const scenarioRoutes = <E, R>(
  network: ScenarioNetwork,
  parts: {
    readonly at: (path: string) => `/${string}`
    readonly body: Effect.Effect<unknown, E, R | HttpServerRequest.HttpServerRequest>
    readonly refuse: (status: number, tag: string, message: string, path?: string) => E
    readonly tell: (event: ScenarioEvent) => void
  }
) => [
  HttpRouter.route(
    "GET",
    parts.at("scenarios"),
    Effect.map(network.scenarios.list, (scenarios) => HttpServerResponse.jsonUnsafe({ scenarios }))
  ),
  HttpRouter.route(
    "POST",
    parts.at("scenarios/reset"),
    Effect.gen(function* () {
      yield* network.scenarios.reset
      parts.tell({ type: "scenarios.reset" })
      return HttpServerResponse.jsonUnsafe({ reset: true })
    })
  ),
  HttpRouter.route(
    "PUT",
    parts.at("scenarios/:name/state"),
    Effect.gen(function* () {
      const name = (yield* HttpRouter.params)["name"] ?? ""
      const decoded = decodeAt(StateBody, yield* parts.body, "", { onExcessProperty: "error" })
      if (Result.isFailure(decoded))
        return yield* Effect.fail(parts.refuse(400, "BadRequest", decoded.failure.message, decoded.failure.path || "$"))
      const { state } = decoded.success
      if (!(yield* network.scenarios.set(name, state))) {
        return yield* Effect.fail(
          parts.refuse(404, "UnknownScenario", `no route names a scenario ${JSON.stringify(name)}`, "name")
        )
      }
      parts.tell({ type: "scenario", name, state })
      return HttpServerResponse.jsonUnsafe({ name, state })
    })
  )
]
