/**
 * The one table of families a fixture can name (`{ "family": NAME, ... }`), and what RouteSpec
 * JSON can refer to by default: every family, and the kinds built outside `RouteSpec.ts`.
 */
import { codesearch, mcpFromConfig, websearch } from "./mcpPresets.ts"
import type { DecodeContext, FamilyFactory } from "../schemas/decode.ts"
import { DEFAULT_MODEL_APIS, type ModelApis } from "../models/apis.ts"
import { openapi } from "./openapi.ts"
import { account } from "./account.ts"
import { claudeCode, codex, geminiCli } from "./agents.ts"
import { installation } from "./installation.ts"
import { models } from "./models.ts"
import { share } from "./share.ts"
import { skills } from "./skills.ts"

/**
 * Every family by name but the model families (`models/apis.ts`). A family given a bad
 * `baseUrl` answers one refused route whose registration names the field.
 */
const OTHER_FAMILIES: ReadonlyArray<readonly [string, FamilyFactory]> = [
  ["models", (spec) => models(spec.baseUrl, { generated: spec.generated })],
  ["account", (spec) => account(spec.baseUrl ?? "")],
  ["share", (spec) => share(spec.baseUrl)],
  ["skills", (spec) => skills(spec.baseUrl ?? "")],
  ["installation", (spec) => installation(spec.baseUrl)],
  [
    "openapi",
    (spec) =>
      openapi(spec.document, {
        baseUrl: spec.baseUrl,
        examples: spec.examples === false ? false : undefined,
        validate: spec.validate === false ? false : undefined,
        idPrefix: spec.idPrefix
      })
  ],
  ["mcpFromConfig", (spec) => mcpFromConfig(spec.config ?? {}, spec.servers)],
  ["websearch", () => websearch()],
  ["codesearch", () => codesearch()],
  ["claude-code", (spec) => claudeCode(spec.baseUrl)],
  ["codex", () => codex()],
  ["gemini-cli", () => geminiCli()]
]

const tableOf = (models: ModelApis): ReadonlyMap<string, FamilyFactory> =>
  new Map<string, FamilyFactory>([
    ...OTHER_FAMILIES,
    ...models.families.map((family): [string, FamilyFactory] => [family.name, family.routes])
  ])

/** Every family by name, simnet's model families included. */
export const FAMILIES: ReadonlyMap<string, FamilyFactory> = tableOf(DEFAULT_MODEL_APIS)

/**
 * The families of a network that speaks `models`: every family above, and a model family of each
 * (`FAMILIES` itself for simnet's own, so a network made per property case builds no table).
 */
export const familiesWith = (models: ModelApis): ReadonlyMap<string, FamilyFactory> =>
  models === DEFAULT_MODEL_APIS ? FAMILIES : tableOf(models)

/**
 * What RouteSpec JSON can refer to by default: every family (every kind is always there: `routes/kinds.ts`).
 */
export const defaultDecodeContext: DecodeContext = { families: FAMILIES }
