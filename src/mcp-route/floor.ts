/**
 * The one door from the MCP route to the rest of simnet's machinery: the seeded generator, the
 * JSON Schema → Schema conversion, seeds and canonical JSON, the route builder and the shapes a
 * route answers with. When those modules move, only these imports change.
 */
export { canonicalJson, deriveSeed, hashString } from "../registry/seed.ts"
export { KeyCounts } from "../registry/keyCounts.ts"
export { decodeAt, joinPath } from "../registry/schemaPath.ts"
export { errorMessage, isJsonObject, isPlainJson, MAX_JSON_DEPTH } from "../registry/util.ts"
export { REDACTED } from "../registry/redact.ts"
export { bufferedResponse } from "../registry/heldResponse.ts"
export type { Answerer, RespondContext, Route, SimRequest } from "../registry/route.ts"
export { matchNothing, type MatcherInput } from "../registry/matcher.ts"
export { withFields } from "../registry/route.ts"
export { compileGenerator, type CompiledGenerator } from "../routes/jsonSchema/generate.ts"
export { make, refused, type RouteOptions } from "../routes/make.ts"
export { checked, ROUTE_OPTIONS_ONLY } from "../routes/codeOptions.ts"
export { fromJsonSchema } from "../routes/jsonSchema/jsonSchemaDocument.ts"
