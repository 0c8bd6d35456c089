/**
 * One OpenAPI operation compiled to answer requests as Prism would: the documented response
 * chosen (the first success, or the one `Prefer: code=` names), its media type negotiated by
 * `Accept`, the body taken from the document's `example`/`examples` or generated from the schema
 * with the request's seed, its declared headers generated likewise, and the request validated
 * first (422 with the violations in Prism's shape).
 */
import { Result, type Schema, Schema as SchemaModule, type SchemaAST } from "effect"
import { escapePointer, isJsonObject, NULL_BODY_STATUSES } from "../../registry/util.ts"
import type { RespondContext, SimRequest } from "../../registry/route.ts"
import { offsetSeed } from "../../registry/seed.ts"
import { fromJsonSchema } from "../jsonSchema/jsonSchemaDocument.ts"
import {
  GeneratedValueRejected,
  InvalidRouteSpec as InvalidRouteSpecError,
  type InvalidRouteSpec,
  RouteFailed,
  type SimnetError
} from "../../SimnetError.ts"

/** What generating a body can fail with: a schema that does not compile, a value its schema refuses. */
type GenerateError = InvalidRouteSpec | GeneratedValueRejected
import { compileGenerator, type CompiledGenerator } from "../jsonSchema/generate.ts"
import type { FieldHints } from "../jsonSchema/realism.ts"
import { textResponse } from "../../registry/heldResponse.ts"
import { type Dereferenced, referencedSchemas } from "./document.ts"
import { negotiate, parsePrefer, problem, unprocessable } from "./negotiate.ts"
import {
  type BodySpec,
  compileRequestValidator,
  type ParameterSpec,
  type RequestCheck,
  UncompilableSchema,
  type Violation
} from "./validate.ts"

/**
 * Options of an OpenAPI route.
 * - `examples` (default true): serve the document's `example`/`examples` where present; `false`
 *   generates every body (as `Prefer: dynamic=true` does for one request).
 * - `validate` (default true): answer a request that breaks its operation with 422 (or the
 *   operation's own 422/400 response); `false` serves it regardless.
 * - `fields`: realistic-value overrides by field name or path (see `Route.json`).
 */
export interface OperationOptions {
  readonly examples?: boolean | undefined
  readonly validate?: boolean | undefined
  readonly fields?: FieldHints | undefined
}

/** Where an operation sits and what it declares, read from the dereferenced document. */
export interface OperationSource {
  readonly path: string
  readonly method: string
  /** `{template name}` → the name the route pattern gives that parameter. */
  readonly patternNames: ReadonlyMap<string, string>
  readonly label: string
}

const isJsonMedia = (type: string): boolean => {
  const base = type.split(";")[0].trim().toLowerCase()
  return base === "application/json" || base.endsWith("+json") || base === "*/*"
}
const isTextMedia = (type: string): boolean => type.trim().toLowerCase().startsWith("text/")

/** A body example: a value, with its name when it came from `examples`. */
interface Example {
  readonly name: string | undefined
  readonly value: unknown
}

interface MediaEntry {
  readonly type: string
  readonly json: boolean
  /** Served as the value itself (text, or a string-typed schema in another media type). */
  readonly raw: boolean
  readonly examples: ReadonlyArray<Example>
  /** The example served by default: the first that conforms to the schema (or the first, without one). */
  readonly served: Example | undefined
  readonly schema: Schema.Codec<unknown, unknown> | undefined
  readonly generator: () => Result.Result<CompiledGenerator, GenerateError>
}

interface HeaderEntry {
  readonly name: string
  readonly example: Example | undefined
  readonly generator: (() => Result.Result<CompiledGenerator, GenerateError>) | undefined
}

interface ResponseEntry {
  readonly code: string
  readonly media: ReadonlyArray<MediaEntry>
  readonly headers: ReadonlyArray<HeaderEntry>
}

/** Whether a schema refers to itself somewhere (its AST holds a `Suspend`): a walk over the nodes, each once. */
const recursive = (ast: SchemaAST.AST): boolean => {
  const seen = new Set<unknown>()
  const stack: Array<unknown> = [ast]
  while (stack.length > 0) {
    const node = stack.pop()
    if (typeof node !== "object" || node === null || seen.has(node)) continue
    seen.add(node)
    if ((node as { _tag?: unknown })._tag === "Suspend") return true
    for (const value of Object.values(node)) if (typeof value === "object" && value !== null) stack.push(value)
  }
  return false
}

const memo = <A>(f: () => A): (() => A) => {
  let done = false
  let value: A
  return () => {
    if (!done) {
      value = f()
      done = true
    }
    return value
  }
}

/**
 * The response an operation answers by default: the lowest `2xx` code, else `2XX`, else
 * `default`; an operation that documents no success answers its lowest other declared status.
 */
export const defaultCode = (codes: ReadonlyArray<string>): string | undefined => {
  const exact = codes.filter((c) => /^2\d\d$/.test(c)).sort()
  if (exact.length > 0) return exact[0]
  if (codes.includes("2XX")) return "2XX"
  if (codes.includes("default")) return "default"
  const others = codes.filter((c) => /^[1-5](\d\d|XX)$/.test(c)).sort()
  return others.find((c) => statusOf(c, undefined) >= 200) ?? others[0]
}

/** The status a response code answers with (`4XX` → 400, `default` → 200 or the asked code). */
const statusOf = (code: string, asked: number | undefined): number =>
  code === "default" ? (asked ?? 200) : /^\dXX$/.test(code) ? (asked ?? Number(code[0]) * 100) : Number(code)

/** The response a requested status picks: that code, else its range, else `default`. */
const responseFor = (responses: ReadonlyMap<string, ResponseEntry>, code: string): ResponseEntry | undefined =>
  responses.get(code) ?? responses.get(`${code[0]}XX`) ?? responses.get("default")

const examplesOf = (media: Record<string, unknown>): Array<Example> => {
  const out: Array<Example> = []
  if (isJsonObject(media.examples)) {
    for (const [name, example] of Object.entries(media.examples)) {
      if (isJsonObject(example) && "value" in example) out.push({ name, value: example.value })
    }
  }
  if ("example" in media && media.example !== undefined) out.unshift({ name: undefined, value: media.example })
  return out
}

/**
 * A JSON media type's examples made to serve their schema: one given as a string holding JSON
 * (`"[{\"name\": \"Fluffy\"}]"` for an array schema, a common slip) is served as the JSON it holds
 * when that, and not the string, conforms. The one served by default is the first that conforms;
 * when none does, the body is generated from the schema. A named example is served by name as it is.
 */
const conforming = (
  examples: ReadonlyArray<Example>,
  schema: Schema.Codec<unknown, unknown> | undefined
): { readonly examples: ReadonlyArray<Example>; readonly served: Example | undefined } => {
  if (schema === undefined || examples.length === 0) return { examples, served: examples[0] }
  const is = SchemaModule.is(SchemaModule.toType(schema) as Schema.Schema<unknown>)
  const fixed = examples.map((example) => {
    if (is(example.value) || typeof example.value !== "string") return { example, ok: is(example.value) }
    try {
      const parsed: unknown = JSON.parse(example.value)
      return is(parsed) ? { example: { name: example.name, value: parsed }, ok: true } : { example, ok: false }
    } catch {
      return { example, ok: false }
    }
  })
  return { examples: fixed.map((f) => f.example), served: fixed.find((f) => f.ok)?.example }
}

const headerValue = (value: unknown): string =>
  typeof value === "string" ? value : Array.isArray(value) ? value.map(headerValue).join(",") : JSON.stringify(value)

/**
 * A compiled operation: `answer` serves one request; `body(seed)` is the default answer's body
 * under a seed (what `regenerate` reproduces).
 */
export interface CompiledOperation {
  readonly answer: (request: SimRequest, context: RespondContext) => Result.Result<Response, SimnetError>
  readonly body: (seed: number) => Result.Result<string, GenerateError>
}

/**
 * The answer of an operation simnet cannot serve (a schema of it does not convert): `501 Not
 * Implemented`, a problem naming the operation and why. The rest of its document is served.
 */
export const notServed = (label: string, reason: string): Response =>
  problem(501, "NOT_IMPLEMENTED", "Operation not served", `simnet cannot serve the operation ${label}: ${reason}`)

/**
 * Compiles an operation of a dereferenced document: every schema it declares is converted now
 * (one that does not convert is an `InvalidRouteSpec` naming its JSON pointer); generators and
 * request validators are compiled at their first use, once per route.
 */
export const compileOperation = (
  document: Dereferenced,
  source: OperationSource,
  options: OperationOptions
): Result.Result<CompiledOperation, InvalidRouteSpec> => {
  const paths = document.document.paths as Record<string, Record<string, unknown>>
  const item = paths[source.path]
  const operation = item[source.method] as Record<string, unknown>
  const pointer = `/paths/${escapePointer(source.path)}/${source.method}`
  const useExamples = options.examples !== false

  const convert = (schema: unknown, at: string): Result.Result<Schema.Codec<unknown, unknown>, InvalidRouteSpec> =>
    fromJsonSchema(schema, {
      dialect: document.dialect,
      definitions: referencedSchemas(schema, document.schemas),
      path: "openapi",
      pointerPrefix: at,
      definitionsPointer: "/components/schemas"
    })
  const generatorFor = (schema: Schema.Codec<unknown, unknown>, label: string) =>
    memo(
      (): Result.Result<CompiledGenerator, GenerateError> =>
        compileGenerator(schema, { label, fields: options.fields, allOptionals: true })
    )

  const responses = new Map<string, ResponseEntry>()
  const declared = isJsonObject(operation.responses) ? operation.responses : {}
  for (const [code, response] of Object.entries(declared)) {
    if (!isJsonObject(response)) continue
    const at = `${pointer}/responses/${escapePointer(code)}`
    const media: Array<MediaEntry> = []
    for (const [type, entry] of Object.entries(isJsonObject(response.content) ? response.content : {})) {
      if (!isJsonObject(entry)) continue
      let schema: Schema.Codec<unknown, unknown> | undefined
      if (entry.schema !== undefined) {
        const converted = convert(entry.schema, `${at}/content/${escapePointer(type)}/schema`)
        if (Result.isFailure(converted)) return Result.fail(converted.failure)
        schema = converted.success
      }
      const json = isJsonMedia(type)
      const stringSchema = isJsonObject(entry.schema) && entry.schema.type === "string"
      const generator =
        schema === undefined
          ? () =>
              Result.fail(
                new GeneratedValueRejected({ route: source.label, path: "$", issue: `${type} declares no schema` })
              )
          : generatorFor(schema, `${source.label} ${code} ${type}`)
      // A recursive schema is compiled now, not at its first answer: one that requires itself has
      // no finite value, and the operation is refused at registration, saying so.
      if (schema !== undefined && recursive(schema.ast)) {
        const compiled = generator()
        if (Result.isFailure(compiled) && compiled.failure._tag === "InvalidRouteSpec") {
          return Result.fail(
            new InvalidRouteSpecError({
              path: `openapi#${at}/content/${escapePointer(type)}/schema`,
              message: `no finite value exists for this schema: it requires itself (a required property, or an array that may not be empty, leads back to it), so no answer can be generated`
            })
          )
        }
      }
      media.push({
        type,
        json,
        raw: !json && (isTextMedia(type) || stringSchema),
        ...conforming(useExamples ? examplesOf(entry) : [], json ? schema : undefined),
        schema,
        generator
      })
    }
    const headers: Array<HeaderEntry> = []
    for (const [name, header] of Object.entries(isJsonObject(response.headers) ? response.headers : {})) {
      if (!isJsonObject(header) || name.toLowerCase() === "content-type") continue
      const examples = useExamples ? examplesOf(header) : []
      let generator: HeaderEntry["generator"]
      if (header.schema !== undefined) {
        const converted = convert(header.schema, `${at}/headers/${escapePointer(name)}/schema`)
        if (Result.isFailure(converted)) return Result.fail(converted.failure)
        generator = generatorFor(converted.success, `${source.label} ${code} header ${name}`)
      }
      headers.push({ name, example: examples[0], generator })
    }
    responses.set(code, { code, media, headers })
  }

  let check: ((request: SimRequest) => RequestCheck) | undefined
  if (options.validate !== false) {
    const parameters: Array<ParameterSpec> = []
    const seen = new Set<string>()
    for (const list of [operation.parameters, item.parameters]) {
      if (!Array.isArray(list)) continue
      for (const parameter of list) {
        if (!isJsonObject(parameter) || typeof parameter.name !== "string") continue
        const where = parameter.in
        if (where !== "path" && where !== "query" && where !== "header" && where !== "cookie") continue
        const key = `${where} ${where === "header" ? parameter.name.toLowerCase() : parameter.name}`
        if (seen.has(key)) continue // operation-level parameters override the path item's
        seen.add(key)
        const style =
          typeof parameter.style === "string"
            ? parameter.style
            : where === "query" || where === "cookie"
              ? "form"
              : "simple"
        parameters.push({
          name: parameter.name,
          in: where,
          required: parameter.required === true || where === "path",
          schema: parameter.schema,
          explode: typeof parameter.explode === "boolean" ? parameter.explode : style === "form",
          style,
          patternName: where === "path" ? source.patternNames.get(parameter.name) : undefined
        })
      }
    }
    const requestBody = isJsonObject(operation.requestBody) ? operation.requestBody : undefined
    const body: BodySpec | undefined =
      requestBody === undefined
        ? undefined
        : {
            required: requestBody.required === true,
            content: Object.entries(isJsonObject(requestBody.content) ? requestBody.content : {}).map(
              ([type, media]) => [type, isJsonObject(media) ? media.schema : undefined] as const
            )
          }
    check = compileRequestValidator(parameters, body, document, pointer)
  }

  const fallback = defaultCode([...responses.keys()].filter((code) => !code.startsWith("1")))
  /**
   * An operation that documents only `1xx` responses: those are interim, never the final answer a
   * client gets (and `fetch` cannot carry one), so it is answered `204 No Content` with
   * `x-simnet-informational` naming the documented status.
   */
  const informational = fallback === undefined ? [...responses.keys()].find((code) => code.startsWith("1")) : undefined

  /** A body for a media type: the named or first example, else a generated value. */
  const bodyOf = (
    media: MediaEntry,
    seed: number,
    example: string | undefined,
    dynamic: boolean
  ): Result.Result<string, GenerateError> => {
    const chosen =
      example !== undefined ? media.examples.find((e) => e.name === example) : dynamic ? undefined : media.served
    if (chosen !== undefined) {
      return Result.succeed(
        media.json || typeof chosen.value !== "string" ? JSON.stringify(chosen.value) : chosen.value
      )
    }
    return Result.flatMap(media.generator(), (generator) => {
      const body = generator.generate(seed)
      if (media.json || Result.isFailure(body)) return body
      const value: unknown = JSON.parse(body.success)
      return Result.succeed(typeof value === "string" ? value : body.success)
    })
  }

  const headersOf = (
    response: ResponseEntry,
    seed: number,
    dynamic: boolean
  ): Result.Result<Record<string, string>, SimnetError> => {
    const out: Record<string, string> = {}
    for (let i = 0; i < response.headers.length; i++) {
      const header = response.headers[i]
      if (header.example !== undefined && !dynamic) {
        out[header.name] = headerValue(header.example.value)
        continue
      }
      if (header.generator === undefined) continue
      const generated = Result.flatMap(header.generator(), (g) => g.generate(offsetSeed(seed, i + 1)))
      if (Result.isFailure(generated)) return Result.fail(generated.failure)
      out[header.name] = headerValue(JSON.parse(generated.success))
    }
    return Result.succeed(out)
  }

  const servable = (media: MediaEntry) => media.json || media.raw || media.examples.length > 0

  const serve = (
    response: ResponseEntry,
    status: number,
    request: SimRequest,
    seed: number,
    prefer: { readonly example: string | undefined; readonly dynamic: boolean },
    extraHeaders: Readonly<Record<string, string>> = {}
  ): Result.Result<Response, SimnetError> => {
    const headers = headersOf(response, seed, prefer.dynamic)
    if (Result.isFailure(headers)) return Result.fail(headers.failure)
    const all: Record<string, string> = { ...headers.success, ...extraHeaders }
    const candidates = response.media.filter(servable)
    if (candidates.length === 0 || NULL_BODY_STATUSES.has(status) || request.method === "HEAD") {
      return Result.succeed(new Response(null, { status, headers: all }))
    }
    const type = negotiate(
      candidates.map((m) => m.type),
      request.headers.get("accept"),
      isJsonMedia
    )
    if (type === undefined) {
      return Result.succeed(
        problem(
          406,
          "NOT_ACCEPTABLE",
          "The server cannot produce a representation for your accept header",
          `Unable to find content for ${request.headers.get("accept")}`
        )
      )
    }
    const media = candidates.find((m) => m.type === type)!
    if (prefer.example !== undefined && !media.examples.some((e) => e.name === prefer.example)) {
      return Result.succeed(
        problem(
          404,
          "NOT_FOUND",
          "The server cannot find the requested content",
          `Response for contentType: ${type} and exampleKey: ${prefer.example} does not exist.`
        )
      )
    }
    return Result.map(bodyOf(media, seed, prefer.example, prefer.dynamic), (body) => {
      all["content-type"] = type === "*/*" ? "application/json" : type
      return textResponse(body, { status, headers: all })
    })
  }

  const answer = (request: SimRequest, context: RespondContext): Result.Result<Response, SimnetError> => {
    const prefer = parsePrefer(request.headers.get("prefer"))
    const dynamic = prefer.dynamic === true || !useExamples
    if (check !== undefined) {
      let checked: RequestCheck
      try {
        checked = check(request)
      } catch (error) {
        return Result.fail(
          new RouteFailed({
            route: source.label,
            reason: "misconfigured",
            message:
              error instanceof UncompilableSchema
                ? `the request schema at openapi#${error.pointer} does not compile: ${error.message}`
                : `validating the request threw: ${String(error)}`,
            cause: error
          })
        )
      }
      if (checked.unsupported !== undefined) {
        return Result.succeed(
          problem(
            415,
            "INVALID_CONTENT_TYPE",
            "Unsupported media type",
            `The request's content type ${checked.unsupported} is not among the operation's (${(
              isJsonObject(operation.requestBody) && isJsonObject(operation.requestBody.content)
                ? Object.keys(operation.requestBody.content)
                : []
            ).join(", ")})`
          )
        )
      }
      if (checked.violations.length > 0) return invalid(checked.violations, request, context, dynamic)
    }
    let response: ResponseEntry | undefined
    let status: number
    if (prefer.code !== undefined && !prefer.code.startsWith("1")) {
      response = /^[1-5]\d\d$/.test(prefer.code) ? responseFor(responses, prefer.code) : responses.get(prefer.code)
      if (response === undefined) {
        return Result.succeed(
          problem(
            404,
            "NOT_FOUND",
            "The server cannot find the requested content",
            `Requested status code ${prefer.code} is not defined in the document.`
          )
        )
      }
      status = /^[1-5]\d\d$/.test(prefer.code) ? Number(prefer.code) : statusOf(response.code, undefined)
    } else if (fallback !== undefined) {
      response = responses.get(fallback)!
      status = statusOf(fallback, undefined)
    } else if (informational !== undefined) {
      return Result.succeed(new Response(null, { status: 204, headers: { "x-simnet-informational": informational } }))
    } else {
      return Result.succeed(new Response(null, { status: 200 }))
    }
    return serve(response, status, request, context.seed, { example: prefer.example, dynamic })
  }

  /** A request that breaks the operation: its own 422 or 400 response, else Prism's 422. */
  const invalid = (
    violations: ReadonlyArray<Violation>,
    request: SimRequest,
    context: RespondContext,
    dynamic: boolean
  ) => {
    context.recordViolations?.(violations)
    const own = responses.get("422") ?? responses.get("400")
    if (own === undefined) return Result.succeed(unprocessable(violations))
    return serve(
      own,
      Number(own.code),
      request,
      context.seed,
      { example: undefined, dynamic },
      {
        "sl-violations": JSON.stringify(violations)
      }
    )
  }

  const body = (seed: number): Result.Result<string, GenerateError> => {
    const response = fallback === undefined ? undefined : responses.get(fallback)
    const media = response?.media.filter(servable) ?? []
    const chosen = media.find((m) => m.json) ?? media[0]
    return chosen === undefined ? Result.succeed("") : bodyOf(chosen, seed, undefined, !useExamples)
  }

  return Result.succeed({ answer, body })
}
