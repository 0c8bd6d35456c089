/**
 * An OpenAPI document made ready to serve: every `$ref` resolved by
 * `@apidevtools/json-schema-ref-parser` (the dereferencer behind swagger-parser), once per
 * document however many routes share it. External references (files, URLs) are never followed:
 * a simulated network reads nothing from outside.
 */
import type * as RefParser from "@apidevtools/json-schema-ref-parser"
import { Effect } from "effect"
import { errorMessage, escapePointer, isJsonObject } from "../../registry/util.ts"
import type { Dialect } from "../../schemas/jsonSchemaDocument.ts"
import { InvalidRouteSpec } from "../../SimnetError.ts"

/** A JSON pointer from its tokens: `["paths", "/pets", "get"]` → `/paths/~1pets/get`. */
export const pointerOf = (tokens: ReadonlyArray<string | number>): string =>
  tokens.map((token) => `/${escapePointer(String(token))}`).join("")

/**
 * A dereferenced document. References that close a cycle are left as `$ref`s (to
 * `#/components/schemas/...` in any real document), so the result is a finite tree that JSON
 * Schema converters and validators can walk; every other `$ref` is replaced by its target.
 */
export interface Dereferenced {
  readonly document: Record<string, unknown>
  readonly dialect: Dialect
  /** `components.schemas`, dereferenced: the targets of the references left in place. */
  readonly schemas: Readonly<Record<string, unknown>>
  /** Whether some references close a cycle (and were left in place). */
  readonly circular: boolean
}

const refused = (pointer: string, message: string) => new InvalidRouteSpec({ path: `openapi#${pointer}`, message })

/** The dereferencer, loaded with the first OpenAPI document rather than with simnet. */
let refParser: Promise<typeof RefParser> | undefined
const loadRefParser = () => (refParser ??= import("@apidevtools/json-schema-ref-parser"))

const firstError = (module: typeof RefParser | undefined) => (error: unknown): InvalidRouteSpec => {
  const errors: ReadonlyArray<RefParser.JSONParserError> = module !== undefined && error instanceof module.JSONParserErrorGroup ? error.errors : []
  const first = errors[0]
  if (first === undefined) return refused("", `the document cannot be dereferenced: ${errorMessage(error)}`)
  const at = `${pointerOf(first.path ?? [])}/$ref`
  return refused(at, `unresolvable $ref at #${at}: ${first.message}`)
}

/**
 * Dereferences a document (a copy: the caller's object is left as it is). An unresolvable
 * reference is an `InvalidRouteSpec` whose path is the JSON pointer of that `$ref`
 * (`openapi#/paths/~1pets/get/responses/200/$ref`).
 */
export const dereference = (document: Record<string, unknown>, dialect: Dialect): Effect.Effect<Dereferenced, InvalidRouteSpec> =>
  Effect.flatMap(Effect.tryPromise({ try: loadRefParser, catch: firstError(undefined) }), (module) =>
    Effect.tryPromise({
    try: async () => {
      const parser = new module.default()
      const copy = structuredClone(document)
      const dereferenced = await parser.dereference(copy, {
        continueOnError: true,
        resolve: { external: false },
        dereference: { circular: "ignore" }
      })
      return { parser, dereferenced }
    },
    catch: firstError(module)
  })).pipe(
    Effect.map(({ dereferenced, parser }) => {
      const root = dereferenced as Record<string, unknown>
      const components = isJsonObject(root.components) ? root.components : {}
      return {
        document: root,
        dialect,
        schemas: isJsonObject(components.schemas) ? components.schemas : {},
        circular: parser.$refs.circular
      }
    })
  )

/**
 * The names of `components.schemas` a schema still refers to (cycles), transitively: the
 * definitions a converter needs for it, and no others.
 */
export const referencedSchemas = (schema: unknown, schemas: Readonly<Record<string, unknown>>): Record<string, unknown> => {
  const out: Record<string, unknown> = {}
  const seen = new Set<unknown>()
  const visit = (node: unknown): void => {
    if (typeof node !== "object" || node === null || seen.has(node)) return
    seen.add(node)
    if (Array.isArray(node)) {
      node.forEach(visit)
      return
    }
    const record = node as Record<string, unknown>
    const ref = record.$ref
    if (typeof ref === "string" && ref.startsWith("#/components/schemas/")) {
      const name = ref.slice("#/components/schemas/".length).replace(/~1/g, "/").replace(/~0/g, "~")
      if (!(name in out) && name in schemas) {
        out[name] = schemas[name]
        visit(schemas[name])
      }
    }
    for (const key in record) visit(record[key])
  }
  visit(schema)
  return out
}
