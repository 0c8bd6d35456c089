/**
 * The one door from the MCP route to the rest of simnet's machinery: the seeded generator, the
 * JSON Schema → Schema conversion, seeds and canonical JSON, the route builder and the shapes a
 * route answers with. When those modules move, only these imports change.
 */
export { compileGenerator, formatSchemaPath, type CompiledGenerator } from "../internal/generate.ts"
export { canonicalJson, deriveSeed, hashString } from "../internal/seed.ts"
export { joinPath } from "../internal/schemaPath.ts"
export { fromJsonSchema } from "../schemas/jsonSchemaDocument.ts"
export type { RespondContext, Route, SimRequest } from "../internal/types.ts"
export type { MatcherInput } from "../internal/matcher.ts"
