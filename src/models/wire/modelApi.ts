/**
 * A model family's routes: each endpoint of an API at a base URL, with the family's kind, source
 * and ids, answered by the one model call (`call.ts`) in its wire's format or, for an endpoint of
 * simnet's own that is not a plain model call (a models list, images, speech, a WebSocket), by its
 * own route parts.
 */
import type { Route } from "../../registry/route.ts"
import { make as makeRoute, type RouteParts } from "../../routes/make.ts"
import { modelAnswerer } from "./call.ts"
import type { ModelWire } from "./wire.ts"

/**
 * One endpoint of a model API: the last part of its route id (`chat` in `openai.chat`), its
 * method and path under the base (`:name` segments are path parameters), the endpoint its
 * listing names, and the wire its calls are read and answered in.
 */
export interface ModelEndpoint {
  readonly name: string
  readonly method: "GET" | "POST"
  readonly path: string
  readonly endpoint: string
  readonly wire: ModelWire
}

/**
 * An endpoint of simnet's own answered by its own route parts rather than by the one model call:
 * one that is not a model call (a models list, images, speech, embeddings), or one that reads a
 * call its own way first (a WebSocket's turns, a multipart upload). Not in the public kit.
 */
export type PartsEndpoint = Omit<ModelEndpoint, "wire"> & { readonly parts: Omit<RouteParts, "describe"> }

/**
 * The routes of one model API (`family`: openai, anthropic, gemini) at `baseUrl` (default
 * `defaultBase`; trailing slashes dropped): each endpoint's route has kind and source `family`,
 * id `family.name` (followed by the base when one is given, so two bases can be registered side
 * by side) and the endpoint in its listing.
 */
export const modelApi = (
  family: string,
  defaultBase: string,
  baseUrl: string | undefined,
  endpoints: ReadonlyArray<ModelEndpoint | PartsEndpoint>
): ReadonlyArray<Route> => {
  const base = (baseUrl ?? defaultBase).replace(/\/+$/, "")
  const suffix = baseUrl === undefined ? "" : ` ${base}`
  return endpoints.map((endpoint) =>
    makeRoute(
      family,
      `${endpoint.method} ${base}${endpoint.path}`,
      {
        ...("wire" in endpoint ? { answer: modelAnswerer(endpoint.wire) } : endpoint.parts),
        describe: { family, endpoint: endpoint.endpoint }
      },
      { id: `${family}.${endpoint.name}${suffix}`, source: family }
    )
  )
}
