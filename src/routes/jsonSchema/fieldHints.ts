/**
 * Per-field overrides of realistic generation (`fields` of `Route.json`, `jsonSchema` routes and
 * OpenAPI operations): a kind of the table, fixed values or `"plain"`, checked before a route is
 * built, and what a field generates from when none is given (its name's kind).
 */
import { SchemaAST } from "effect"
import { kindOfName, REALISTIC_KINDS, type RealisticKind } from "./realisticValues.ts"

/**
 * A realistic-value override for one field: a kind of the table (`"email"`, `"fullName"`,
 * `"dateTime"`, ...; see `REALISTIC_KINDS`), `{ values }` to draw from, or `"plain"` for no
 * name-based value (format and words only).
 */
export type FieldHint = string | { readonly values: ReadonlyArray<string | number | boolean> }

/**
 * Overrides by field: a key without a dot names a field wherever it occurs (`email`); a dotted key
 * is a path of field names from the root, array elements skipped (`owner.email`, `items.name`).
 */
export type FieldHints = Readonly<Record<string, FieldHint>>

/**
 * What a field generates from: a kind of the table (`explicit` when a `fields` override names it,
 * which then outranks the field's `format`), fixed values, or nothing special.
 */
export type Hint =
  | (RealisticKind & { readonly explicit?: true })
  | { readonly values: ReadonlyArray<string | number | boolean> }
  | undefined

const PLAIN: RealisticKind & { readonly explicit: true } = { explicit: true }

/** The table's kinds as explicit overrides, made once. */
const EXPLICIT_KINDS: ReadonlyMap<string, RealisticKind & { readonly explicit: true }> = new Map(
  Object.entries(REALISTIC_KINDS).map(([name, kind]) => [name, { ...kind, explicit: true }] as const)
)

/**
 * The first override that names no known kind, if any: `[key, message]`.
 */
export const checkFieldHints = (fields: FieldHints | undefined): readonly [string, string] | undefined => {
  for (const [key, hint] of Object.entries(fields ?? {})) {
    if (typeof hint === "string") {
      if (hint !== "plain" && !(hint in REALISTIC_KINDS)) {
        return [key, `unknown realistic kind "${hint}"; known: plain, ${Object.keys(REALISTIC_KINDS).join(", ")}`]
      }
    } else if (typeof hint !== "object" || hint === null || !Array.isArray(hint.values) || hint.values.length === 0) {
      return [key, "an override is a kind name or { values: [...] } with at least one value"]
    }
  }
  return undefined
}

export const hintOf = (name: string, path: string, fields: FieldHints | undefined): Hint => {
  const override = fields?.[path] ?? fields?.[name]
  if (override !== undefined) {
    if (typeof override !== "string") return override
    return override === "plain" ? PLAIN : EXPLICIT_KINDS.get(override)
  }
  const kind = kindOfName(name)
  return kind === undefined ? undefined : REALISTIC_KINDS[kind]
}

export const isValuesHint = (hint: Hint): hint is { readonly values: ReadonlyArray<string | number | boolean> } =>
  hint !== undefined && "values" in hint

/** Fixed override values for a primitive node: those its type admits, as literals (its checks still apply). */
export const fromValues = (
  ast: SchemaAST.AST,
  values: ReadonlyArray<string | number | boolean>
): SchemaAST.AST | undefined => {
  const type =
    ast._tag === "String" ? "string" : ast._tag === "Number" ? "number" : ast._tag === "Boolean" ? "boolean" : undefined
  const fitting = values.filter((v) => typeof v === type)
  if (fitting.length === 0) return undefined
  return new SchemaAST.Union(
    fitting.map((v) => new SchemaAST.Literal(v)),
    undefined,
    ast.annotations,
    ast.checks,
    undefined,
    ast.context
  )
}
