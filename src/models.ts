/**
 * `simnet/models`: the kit to write a model API simnet does not ship, as a `ModelFamily` a network
 * is given (`NetworkOptions.models`). A family is a name, the wires of its APIs (`ModelWire`: how a
 * request is read into a conversation, how an answer is written whole and streamed, its errors,
 * how record mode tells its calls and reads its answers back) and its routes (`modelApi`, each
 * endpoint answered by the network's one simulated model in its wire's format). The network then
 * answers it from the same script queue, rules and driver as simnet's own APIs, logs, lists,
 * snapshots and records it the same way. `docs/model.md` ("Writing a model family") walks through
 * one.
 */
import "./registry/version.ts"
import type { Route } from "./registry/route.ts"
import type { FamilySpec as FamilyReference } from "./schemas/routeSpec.ts"
import { type ModelEndpoint, modelApi as familyRoutes } from "./models/wire/modelApi.ts"

/** The wire of a model API, the family that serves one or more at a base URL, and the helpers a wire is written with. */
export { baseUrlUnder, dialectOf, type ModelFamily, type ModelWire, readWith } from "./models/wire/wire.ts"

/** One endpoint of a family's API: its route id's last part, method, path, listed name and wire. */
export type { ModelEndpoint } from "./models/wire/modelApi.ts"

/**
 * The routes of one API of a model family (`family`, as a fixture names it) at `baseUrl`
 * (default `defaultBase`; trailing slashes dropped): each endpoint a route of kind and source
 * `family`, id `family.NAME` (followed by the base when one is given), answered by the network's
 * simulated model in the endpoint's wire format. What a `ModelFamily`'s `routes` returns.
 */
export const modelApi: (
  family: string,
  defaultBase: string,
  baseUrl: string | undefined,
  endpoints: ReadonlyArray<ModelEndpoint>
) => ReadonlyArray<Route> = familyRoutes

/**
 * A family reference as a fixture, `registerSpec` or `Routes.*` gives it (`{ "family": NAME,
 * "baseUrl"?: URL }`): what a `ModelFamily`'s `routes` is called with.
 */
export type FamilySpec = FamilyReference

/** What a wire reads a request into: the conversation, its turns, the API's name, and the key a request is counted by. */
export { type ConversationInput, type LlmApi, type LlmTurn, requestKeyOf } from "./models/provider/conversation.ts"

/** What a wire writes an answer from: the invocation (its number, `created` and request). */
export type { LlmInvocation } from "./models/provider/options.ts"

/** The answer as parts, how it ends, its token counts, and the helpers a wire counts and splits them with. */
export {
  type ContentPart,
  countOutputTokens,
  estimateTokens,
  type Finish,
  type FinishReason,
  gather,
  type Gathered,
  naturalFinish,
  parseArguments,
  type Part,
  partTokens,
  splitArguments,
  splitWords,
  type TokenUsage,
  usageOf
} from "./models/provider/parts.ts"

/** The writer of one streamed answer (whole frames each call), and the server-sent-event frames wires write. */
export type { StreamWriter } from "./models/provider/parts.ts"
/** Server-sent-event frames: JSON data, a named event, a frame cut off halfway, a driver's raw chunk. */
export { dataFrame, namedFrame, rawChunkFrame, truncatedFrame } from "./models/wire/sse.ts"

/** Reading a real provider's answer back into script actions (record mode), and the readers of event streams and JSON lines. */
export { eventData, jsonLines, type ReadBack, type ReadBackAction } from "./models/wire/readBack.ts"
