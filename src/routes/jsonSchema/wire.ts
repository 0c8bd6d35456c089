/**
 * The wire a generated value travels to the app: which codec turns the app's value into JSON and
 * back. An app decodes a JSON body in one of two ways: `HttpClientResponse.schemaBodyJson(S)`
 * (Effect's own way, through `Schema.toCodecJson(S)`, which also puts dates, `DateTime`s, maps,
 * `Option`s, bigints and class instances on the wire) or `Schema.decodeUnknown(S)` over
 * `response.json()`. When the schema's own encoded side is already JSON (strings, numbers,
 * structs, `NumberFromString`, `DateTimeUtcFromString`, ...) both read the same bytes, and the
 * schema's own encoding is the wire: what either way decodes. When it is not (`Schema.Date`,
 * `Schema.DateTimeUtc`, a class with a `Date` field, `Schema.Option`), only the JSON codec can
 * carry it, and that is the wire.
 */
import { Result, Schema, SchemaAST, SchemaIssue } from "effect"

/**
 * Whether JSON carries every value of the encoded side of `ast` as it is: no declaration (a
 * `Date`, a class instance, an `Option`), no bigint or symbol, no `undefined` except as the value
 * of an optional key (which `JSON.stringify` leaves out, and the schema accepts missing).
 */
export const encodesToJson = (ast: SchemaAST.AST): boolean => plainJson(SchemaAST.toEncoded(ast), false, new Set())

/**
 * A declaration whose values are JSON already (`Schema.Json`): its JSON codec says so by giving
 * no link (Effect's "self-canonical" declaration).
 */
const isJsonDeclaration = (ast: SchemaAST.Declaration): boolean => {
  const toCodecJson = ast.annotations?.toCodecJson
  return typeof toCodecJson === "function" && ast.typeParameters.length === 0 && toCodecJson([]) === undefined
}

const plainJson = (ast: SchemaAST.AST, optionalKey: boolean, seen: Set<SchemaAST.AST>): boolean => {
  switch (ast._tag) {
    case "Declaration":
      return isJsonDeclaration(ast)
    case "BigInt":
    case "Symbol":
    case "UniqueSymbol":
    case "Void":
      return false
    case "Undefined":
      return optionalKey
    case "Literal":
      return typeof ast.literal !== "bigint"
    case "Objects":
      return (
        ast.propertySignatures.every(
          (p) => typeof p.name === "string" && plainJson(p.type, SchemaAST.isOptional(p.type), seen)
        ) && ast.indexSignatures.every((i) => plainJson(i.parameter, false, seen) && plainJson(i.type, false, seen))
      )
    case "Arrays":
      return [...ast.elements, ...ast.rest].every((element) => plainJson(element, false, seen))
    case "Union":
      return ast.types.every((member) => plainJson(member, optionalKey, seen))
    case "Suspend": {
      // A recursive schema refers back to a node already being looked at: it adds nothing new.
      if (seen.has(ast)) return true
      seen.add(ast)
      return plainJson(ast.thunk(), optionalKey, seen)
    }
    default:
      return true
  }
}

/**
 * The codec of the wire for a schema (see the module's comment): the schema itself when its
 * encoded side is JSON, else `Schema.toCodecJson(schema)`.
 */
export const wireCodec = (schema: Schema.Codec<unknown, unknown>): Schema.Codec<unknown, unknown> =>
  encodesToJson(schema.ast) ? schema : (Schema.toCodecJson(schema) as Schema.Codec<unknown, unknown>)

const jsonRoundTrip = (value: unknown): unknown => {
  const text = JSON.stringify(value)
  return text === undefined ? undefined : JSON.parse(text)
}

/**
 * A filter for a node that has its own encoding (a transformation such as seconds on the wire →
 * `Duration` in the app, or a declaration only the JSON codec carries): a generated value is kept
 * only when it encodes to JSON on the node's wire and that JSON decodes again. It discards, for
 * instance, the infinite durations Effect generates that `DurationFromMillis` cannot put on the wire.
 */
export const survivesWire = (ast: SchemaAST.AST): SchemaAST.Filter<unknown> => {
  const codec = wireCodec(Schema.make<Schema.Codec<unknown, unknown>>(ast))
  const encode = Schema.encodeUnknownResult(codec)
  const decode = Schema.decodeUnknownResult(codec)
  return new SchemaAST.Filter(
    (input) => {
      try {
        const encoded = encode(input)
        if (Result.isSuccess(encoded) && Result.isSuccess(decode(jsonRoundTrip(encoded.success)))) return undefined
      } catch {
        // A value the codec cannot handle is discarded like any other rejected value.
      }
      return new SchemaIssue.InvalidValue({ message: "does not survive the wire" }, input)
    },
    { expected: "a value that survives the wire" }
  )
}
