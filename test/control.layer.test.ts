/**
 * `SimulationNetwork.layerControl` in an app's own server (not `simnet serve`): the endpoint and
 * the app's endpoints under the control base (`SimulationControl.add`) run behind the one guard
 * middleware (token, loopback, Host, Origin), its refusals answer as the endpoint's do, and the
 * app's routes outside the base are left alone.
 */
import * as http from "node:http"
import { Effect, Layer } from "effect"
import * as HttpRouter from "effect/http/HttpRouter"
import * as HttpServer from "effect/http/HttpServer"
import * as HttpServerResponse from "effect/http/HttpServerResponse"
import * as NodeHttpServer from "@effect/platform-node/NodeHttpServer"
import { Route, SimulationNetwork } from "simnet"
import { SimulationControl } from "../src/SimulationNetwork.ts"
import { describe, expect, it } from "vitest"

const TOKEN = "s3cret-token"

const AppRoutes = HttpRouter.add("GET", "/health", HttpServerResponse.text("app ok"))
const Seed = Layer.unwrap(
  Effect.map(Effect.service(SimulationControl), (control) =>
    control.add("POST", "filesystem/seed", () =>
      Effect.succeed(HttpServerResponse.jsonUnsafe({ seeded: true }, { status: 201 }))
    )
  )
)

const serve = <A>(use: (base: string) => Promise<A>) =>
  Effect.runPromise(
    Effect.scoped(
      Effect.gen(function* () {
        const app = HttpRouter.serve(
          Layer.mergeAll(AppRoutes, Seed.pipe(Layer.provideMerge(SimulationNetwork.layerControl({ token: TOKEN }))))
        ).pipe(
          Layer.provide(SimulationNetwork.layer({ routes: [Route.text("GET https://api.example.com/hi", "hi")] })),
          Layer.provideMerge(NodeHttpServer.layer(http.createServer, { port: 0, host: "127.0.0.1" }))
        )
        const context = yield* Layer.build(app)
        const server = yield* Effect.provide(Effect.service(HttpServer.HttpServer), Layer.succeedContext(context))
        return yield* Effect.promise(() => use(HttpServer.formatAddress(server.address)))
      })
    )
  )

const bearer = { authorization: `Bearer ${TOKEN}` }

describe("SimulationNetwork.layerControl in an app's server", () => {
  it("guards the endpoint and the app's own control routes with one middleware; other app routes are the app's", async () => {
    const seen = await serve(async (base) => {
      const status = async (path: string, init: RequestInit = {}) => {
        const response = await fetch(`${base}/experimental/simulation/${path}`, init)
        return {
          status: response.status,
          body: (await response.json()) as { readonly error?: { readonly tag: string; readonly path?: string } }
        }
      }
      return {
        routesWithout: await status("network/routes"),
        routesWith: (await status("network/routes", { headers: bearer })).status,
        seedWithout: await status("filesystem/seed", { method: "POST" }),
        seedWith: await status("filesystem/seed", { method: "POST", headers: bearer }),
        seedFromAPage: (
          await status("filesystem/seed", { method: "POST", headers: { ...bearer, origin: "https://evil.example" } })
        ).status,
        badSince: await status("network/log?since=-1", { headers: bearer }),
        notJson: await status("network/register", {
          method: "POST",
          headers: { ...bearer, "content-type": "text/plain" },
          body: "x"
        }),
        badSpec: await status("network/register", {
          method: "POST",
          headers: { ...bearer, "content-type": "application/json" },
          body: JSON.stringify({ match: "GET https://a.example/", respond: { kind: "text" } })
        }),
        unknown: await status("nope", { headers: bearer }),
        health: await (await fetch(`${base}/health`)).text()
      }
    })
    expect(seen.routesWithout).toMatchObject({ status: 401, body: { error: { tag: "Unauthorized" } } })
    expect(seen.routesWith).toBe(200)
    expect(seen.seedWithout).toMatchObject({ status: 401, body: { error: { tag: "Unauthorized" } } })
    expect(seen.seedWith).toEqual({ status: 201, body: { seeded: true } })
    expect(seen.seedFromAPage).toBe(403)
    expect(seen.badSince).toMatchObject({ status: 400, body: { error: { tag: "BadRequest", path: "since" } } })
    expect(seen.notJson).toMatchObject({ status: 415, body: { error: { tag: "UnsupportedMediaType" } } })
    expect(seen.badSpec).toMatchObject({
      status: 400,
      body: { error: { tag: "InvalidRouteSpec", path: "respond.body" } }
    })
    expect(seen.unknown).toMatchObject({ status: 404, body: { error: { tag: "NotFound" } } })
    expect(seen.health).toBe("app ok")
  }, 30_000)
})
