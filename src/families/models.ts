/**
 * The models.dev catalog family.
 */
import type { Route } from "../registry/route.ts"
import * as Models from "../schemas/models.ts"
import { named, schemaOf, trimBase } from "./shared.ts"

/**
 * The models.dev catalog: `GET {baseUrl}/api.json` answers a record of providers and their
 * models (`src/schemas/models.ts`), generated from a narrowed schema with real provider and model
 * ids, and proven to decode under the full catalog schema.
 *
 * Replaces, at app startup: the fetch of `https://models.dev/api.json` (or a vendored snapshot).
 */
export const models = (baseUrl = "https://models.dev"): Array<Route> => [
  named(`GET ${trimBase(baseUrl)}/api.json`, schemaOf(Models.Catalog, Models.CatalogGenerated), "models")
]

