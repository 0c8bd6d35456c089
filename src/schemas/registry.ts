/**
 * The named-schema registry: the production-shaped schemas simnet ships, by name, for fixtures
 * (`{ "kind": "jsonSchema", "schema": { "ref": "models.catalog" } }`) and for the route families.
 * Each entry is the production schema and, where it is too broad to generate realistic values
 * from, the narrowed schema generated instead.
 */
import { Result, type Schema } from "effect"
import type { NamedSchema } from "../routes/spec.ts"
import { InvalidRouteSpec } from "../SimnetError.ts"
import * as Account from "./account.ts"
import * as Installation from "./installation.ts"
import * as Models from "./models.ts"
import * as Share from "./share.ts"
import * as Skills from "./skills.ts"

export type { NamedSchema } from "../routes/spec.ts"

const entry = (schema: Schema.Top, narrow?: Schema.Top): NamedSchema => ({
  schema: schema as Schema.Codec<unknown, unknown>,
  narrow
})

/**
 * Every schema simnet ships, by name. Names are `family.thing`; they are stable within a
 * simnet version.
 */
export const NAMED_SCHEMAS: ReadonlyMap<string, NamedSchema> = new Map([
  ["models.catalog", entry(Models.Catalog, Models.CatalogGenerated)],
  ["models.provider", entry(Models.Provider)],
  ["models.model", entry(Models.Model)],
  ["account.deviceCode", entry(Account.DeviceCode, Account.DeviceCodeGenerated("https://auth.example.com"))],
  ["account.deviceToken", entry(Account.DeviceTokenResponse, Account.TokenGenerated)],
  ["account.deviceTokenError", entry(Account.DeviceTokenError)],
  ["account.token", entry(Account.TokenSuccess, Account.TokenGenerated)],
  ["account.orgs", entry(Account.Orgs, Account.OrgsGenerated)],
  ["account.user", entry(Account.User)],
  ["account.config", entry(Account.RemoteConfig)],
  ["share.created", entry(Share.ShareCreated, Share.ShareCreatedGenerated("https://opncd.ai"))],
  ["skills.index", entry(Skills.SkillIndex, Skills.SkillIndexGenerated)],
  ["installation.githubRelease", entry(Installation.GitHubRelease, Installation.GitHubReleaseGenerated)],
  ["installation.npmPackument", entry(Installation.NpmPackument, Installation.NpmPackumentGenerated)],
  ["installation.npmVersion", entry(Installation.NpmVersion)],
  ["installation.brewFormula", entry(Installation.BrewFormula)]
])

/**
 * Looks a named schema up. An unknown name is an `InvalidRouteSpec` at `path` that lists the
 * known names.
 */
export const lookupSchema = (
  ref: string,
  path = "respond.schema.ref"
): Result.Result<NamedSchema, InvalidRouteSpec> => {
  const found = NAMED_SCHEMAS.get(ref)
  return found !== undefined
    ? Result.succeed(found)
    : Result.fail(
        new InvalidRouteSpec({
          path,
          message: `unknown schema "${ref}"; known schemas: ${[...NAMED_SCHEMAS.keys()].sort().join(", ")}`
        })
      )
}
