/**
 * What the control layer provides the host app, kept light so that the network's public face
 * names it without loading the control endpoint and its router (which load only when
 * `SimulationNetwork.layerControl` is built).
 */
import { Context } from "effect"
import type * as HttpRouter from "effect/http/HttpRouter"
import type * as HttpServerRequest from "effect/http/HttpServerRequest"
import type * as HttpServerResponse from "effect/http/HttpServerResponse"
import type { Effect, Layer, Scope } from "effect"

/** Where the control endpoint lives on a server: `/experimental/simulation`. */
export const CONTROL_BASE = "/experimental/simulation"

/**
 * What the control layer exposes to the host app: `add` mounts the app's own endpoint under the
 * control base (behind the same loopback and token checks), such as `filesystem/seed`.
 */
export interface ControlRouter {
  readonly base: string
  readonly add: <E, R>(
    method: "GET" | "POST" | "PUT" | "PATCH" | "DELETE",
    path: string,
    handler: (
      request: HttpServerRequest.HttpServerRequest
    ) => Effect.Effect<HttpServerResponse.HttpServerResponse, E, R>
  ) => Layer.Layer<never, never, HttpRouter.HttpRouter | Exclude<R, Scope.Scope | HttpServerRequest.HttpServerRequest>>
}

/**
 * The service `SimulationNetwork.layerControl` provides: the router for the host app's own
 * endpoints under the control base.
 */
export class SimulationControl extends Context.Service<SimulationControl, ControlRouter>()(
  "simnet/SimulationControl"
) {}
