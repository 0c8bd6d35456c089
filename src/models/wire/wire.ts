/**
 * A model API's wire format as every model route needs it (`ModelWire`): how a request is read,
 * an answer written whole and streamed, an error and a refusal shaped, how record mode tells its
 * calls and reads its answers back; a dialect of one (`dialectOf`); the family that serves one or
 * more at a base URL (`ModelFamily`); and the helpers a wire is written with (`readWith`,
 * `baseUrlUnder`). The one model call that answers through a wire is `call.ts`; a family's routes
 * are built by `modelApi.ts`.
 */
import { Exit, Result, type Schema } from "effect"
import type { Route, SimRequest } from "../../registry/route.ts"
import type { FrameEncoder } from "../provider/body.ts"
import type { ConversationInput, LlmApi } from "../provider/conversation.ts"
import type { Finish, Part, StreamWriter, TokenUsage } from "../provider/parts.ts"
import type { LlmInvocation } from "../provider/SimulatedProvider.ts"
import type { FamilySpec } from "../../schemas/routeSpec.ts"
import { compiledDecoder } from "./compiled.ts"
import type { ReadBack } from "./readBack.ts"

/**
 * One model API's wire format as the shared responder needs it.
 */
export interface ModelWire {
  /** The API, as the provider's log names it. */
  readonly api: LlmApi
  /** The route name errors carry, and the RouteSpec family that serves the API (`openai`, `anthropic`, `gemini`). */
  readonly name: string
  /** The base URL its family serves by default (an SDK's default `baseURL`). */
  readonly defaultBaseUrl: string
  /** Whether a request (its method and path) is a model call of this API: how record mode tells them. */
  readonly calls: (method: string, pathname: string) => boolean
  /** The family's `baseUrl` for an upstream at `origin` (what record mode writes), undefined for the default one. */
  readonly baseUrlAt: (origin: string) => string | undefined
  /** The header that carries the request id (`x-request-id`, `request-id`). */
  readonly requestIdHeader: string
  /**
   * Writes into `into` (the answer's headers as they are built) the rate-limit headers this API
   * sends with every answer, for the call numbered `seq` (`exhausted` on a 429): see
   * `openAiRateLimits` and `anthropicRateLimits`; none for Gemini.
   */
  readonly rateLimits?:
    | ((invocation: LlmInvocation, exhausted: boolean, into: Record<string, string>) => void)
    | undefined
  /** Reads a request of this API; a failure is the reason it is not one (answered with a 400). */
  read(request: SimRequest, raw: unknown): Result.Result<ConversationInput, string>
  /**
   * A writer for one streamed answer. `usage` is the usage a script gives, known before the
   * stream starts (a driver's comes with its finish); a format that reports input tokens up front
   * (Anthropic's `message_start`) uses it.
   */
  writer(invocation: LlmInvocation, usage: TokenUsage | undefined): StreamWriter
  /** The JSON body of a non-streamed answer: the value, or its text written already (`JsonText`, from a template). */
  answer(invocation: LlmInvocation, parts: ReadonlyArray<Part>, finish: Finish, usage: TokenUsage): unknown
  /**
   * The JSON body of an error with `status`. `reason` is simnet's tag for a refusal
   * (`NoScriptQueued`, `UnmatchedLlmRequest`), undefined for a simulated failure.
   */
  errorBody(status: number, message: string, reason: string | undefined): unknown
  /**
   * How a streamed answer goes on the wire when it is not SSE: its content type (NDJSON,
   * `application/vnd.amazon.eventstream`) and, for a binary framing, each frame's bytes.
   */
  readonly streaming?:
    | {
        readonly contentType: string
        readonly encode?: FrameEncoder | undefined
        /** A binary stream read back as text its `readBack` reads (record mode): Bedrock's events as JSON lines. */
        readonly decode?: ((bytes: Uint8Array) => string) | undefined
      }
    | undefined
  /** Reads an answer of this API back from the bytes a real provider sent (record mode); undefined when it is not one. */
  readBack(text: string, streamed: boolean): ReadBack | undefined
}

/**
 * `wire` spoken under another name: an API that takes the same bodies at other paths (Azure
 * OpenAI's deployments, OpenRouter's Chat Completions) is the same wire with its own `api` (as the
 * model's log names it), family, base URL and way of telling its calls.
 */
export const dialectOf = (
  wire: ModelWire,
  as: Pick<ModelWire, "api" | "name" | "defaultBaseUrl" | "calls" | "baseUrlAt"> & {
    readonly rateLimits?: ModelWire["rateLimits"]
  }
): ModelWire => ({
  ...wire,
  ...as,
  read: (request, raw) => Result.map(wire.read(request, raw), (input) => ({ ...input, api: as.api }))
})

/**
 * A model family: the RouteSpec family (`{ "family": NAME, "baseUrl"? }`, `Routes.*`) that serves
 * one or more model APIs at a base URL, and its routes. `MODEL_FAMILIES` (`apis.ts`) holds
 * simnet's own; a network given more (`NetworkOptions.models`) answers, records and lists
 * theirs the same way.
 */
export interface ModelFamily {
  /** The family's name, as a fixture names it; each of its APIs' wire carries it as `name`. */
  readonly name: string
  /** The model APIs it serves. */
  readonly apis: ReadonlyArray<ModelWire>
  /** Its routes for a family reference (`baseUrl` and what else its spec gives). */
  readonly routes: (spec: FamilySpec) => ReadonlyArray<Route>
}

/**
 * The `read` of a wire format: the body decoded with the API's request Schema (a mismatch is the
 * reason it is not a `what` request), then `fields` reads what is particular to the API; the
 * API, the URL and the raw body are filled in here.
 */
export const readWith = <S extends Schema.Top>(
  api: LlmApi,
  schema: S,
  what: string,
  fields: (body: S["Type"], request: SimRequest, raw: unknown) => Omit<ConversationInput, "api" | "url" | "raw">
): ModelWire["read"] => {
  const decode = compiledDecoder(schema)
  return (request, raw) => {
    const decoded = decode(raw)
    if (Exit.isFailure(decoded)) return Result.fail(`the body is not a ${what} request: ${String(decoded.cause)}`)
    return Result.succeed({ api, url: request.url.href, raw, ...fields(decoded.value, request, raw) })
  }
}

/**
 * A wire's `baseUrlAt`: undefined for its default origin, else `origin` with `path` (`/v1`), as
 * the API's SDKs spell a base URL.
 */
export const baseUrlUnder = (defaultBaseUrl: string, path: string) => {
  const home = new URL(defaultBaseUrl).origin
  return (origin: string): string | undefined => (origin === home ? undefined : `${origin}${path}`)
}
