/**
 * The models.dev catalog family.
 */
import type { Route } from "../registry/route.ts"
import { text } from "../routes/static/static.ts"
import * as Models from "../schemas/models.ts"
import { REAL_CATALOG } from "./modelsCatalog.ts"
import { named, schemaOf, trimBase } from "./shared.ts"

/**
 * Options of `Routes.models`: `generated` serves a catalog generated from the schema with the
 * network's seed (real provider and model ids, capabilities, prices and limits varying with the
 * seed), for code that must cope with any catalog.
 */
export interface ModelsOptions {
  readonly generated?: boolean | undefined
}

/** The real catalog's bytes, made once. */
let catalogText: string | undefined

/**
 * The models.dev catalog: `GET {baseUrl}/api.json` answers a record of providers and their
 * models. By default, well-known models as they are (`src/families/modelsCatalog.ts`: tool
 * calling, reasoning, modalities, limits, prices), the same bytes on every run, so an app that
 * reads capabilities from the catalog (whether a model reasons, what it accepts) behaves as it
 * does against the real one. With `{ generated: true }`, generated from a narrowed schema with the
 * network's seed and proven to decode under the full catalog schema.
 *
 * Replaces, at app startup: the fetch of `https://models.dev/api.json` (or a vendored snapshot).
 */
export const models = (baseUrl = "https://models.dev", options: ModelsOptions = {}): Array<Route> => {
  const match = `GET ${trimBase(baseUrl)}/api.json`
  if (options.generated === true) return [named(match, schemaOf(Models.Catalog, Models.CatalogGenerated), "models")]
  return [
    text(match, (catalogText ??= JSON.stringify(REAL_CATALOG)), { contentType: "application/json", source: "models" })
  ]
}
