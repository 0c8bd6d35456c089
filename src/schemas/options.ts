/**
 * The options that are data, as Schemas: the network's and the simulated model's (every route's
 * are `RouteOptionsData`, beside the kinds in `routes/make.ts`). Each is decoded before anything
 * is built, so a bad option is refused naming itself (`logLimit`, `redact.words[1]`), with the
 * nearest name for an unknown key.
 */
import { Schema } from "effect"
import { CHAOS_FAULTS } from "../registry/chaos.ts"
import { must } from "../registry/schemaPath.ts"

/** A count kept at most, or a time in whole units: a whole number of at least 0. */
export const WholeNumber = Schema.Number.check(
  must((n: number) => Number.isInteger(n) && n >= 0, "must be a whole number of at least 0")
)

const Names = Schema.Array(
  Schema.String.check(must((name: string) => name !== "", "must be an array of non-empty names"))
)

/** One effect seeded chaos may have on a request (see `registry/chaos.ts`). */
export const ChaosFaultData = Schema.Union([
  Schema.Literals(CHAOS_FAULTS),
  Schema.Struct({
    status: Schema.Number.check(
      must((n: number) => Number.isInteger(n) && n >= 200 && n <= 599, "status must be a whole number from 200 to 599")
    )
  })
])

const NonNegative = Schema.Number.check(
  must((n: number) => Number.isFinite(n) && n >= 0 && n <= 600_000, "must be a number of milliseconds from 0 to 600000")
)

/** Seeded chaos: `rate` 0 to 1, `faults`, `latencyMs` `[min, max]`, `routes` (ids). */
export const ChaosData = Schema.Struct({
  rate: Schema.Number.check(
    must((n: number) => Number.isFinite(n) && n >= 0 && n <= 1, "rate must be a number from 0 to 1")
  ),
  faults: Schema.optional(Schema.Array(ChaosFaultData)),
  latencyMs: Schema.optional(
    Schema.Tuple([NonNegative, NonNegative]).check(
      must((r: readonly [number, number]) => r[0] <= r[1], "latencyMs is [min, max] with min <= max")
    )
  ),
  routes: Schema.optional(Names)
})

/** A fixture's `files`: each path's text, or its bytes in base64 (paths are checked apart, by `filesRefusal`). */
export const FilesData = Schema.Record(
  Schema.String,
  Schema.Union([Schema.String, Schema.Struct({ base64: Schema.String })])
)

/** A fixture's `prompts`: what a person might type into the app, each at most 4 096 characters. */
export const PromptsData = Schema.Array(Schema.String.check(Schema.isMaxLength(4096)))

/**
 * The network's options that are data (the rest are routes and handlers, checked when they
 * register).
 */
export const NetworkOptionsData = Schema.Struct({
  logLimit: Schema.optional(WholeNumber),
  logBytes: Schema.optional(WholeNumber),
  redact: Schema.optional(
    Schema.Struct({
      headers: Schema.optional(Names),
      query: Schema.optional(Names),
      bodyFields: Schema.optional(Names),
      words: Schema.optional(Names)
    })
  ),
  chaos: Schema.optional(ChaosData),
  keepBodies: Schema.optional(Schema.Boolean),
  refusals: Schema.optional(Schema.Literals(["reject", "502"])),
  strict: Schema.optional(Schema.Boolean),
  prompts: Schema.optional(PromptsData),
  files: Schema.optional(FilesData)
})

/** The simulated model's options. */
export const ProviderOptionsData = Schema.Struct({
  logLimit: Schema.optional(WholeNumber),
  logBytes: Schema.optional(WholeNumber),
  epoch: Schema.optional(Schema.Union([Schema.Literal("clock"), WholeNumber])),
  drive: Schema.optional(Schema.Boolean)
})
