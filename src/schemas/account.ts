/**
 * The account service an app signs in to at startup: OAuth 2.0 device authorization (RFC 8628),
 * the signed-in user, their organisations, the organisation's remote config, and token refresh.
 * Durations travel as seconds on the wire and are `Duration`s in the app, as in production code.
 */
import { Duration, Schema, SchemaTransformation } from "effect"

/** A duration sent as a number of seconds (`expires_in: 3600`), a `Duration` in the app. */
export const DurationFromSeconds = Schema.Number.pipe(
  Schema.decodeTo(
    Schema.Duration,
    SchemaTransformation.transform({
      decode: Duration.seconds,
      encode: (d: Duration.Duration) => Duration.toSeconds(d)
    })
  )
)

/** `POST /auth/device/code`: the codes the user confirms in a browser. */
export const DeviceCode = Schema.Struct({
  device_code: Schema.String,
  user_code: Schema.String,
  verification_uri: Schema.String,
  verification_uri_complete: Schema.optional(Schema.String),
  expires_in: DurationFromSeconds,
  interval: DurationFromSeconds
})

/** A successful token answer (device token, or refresh). */
export const TokenSuccess = Schema.Struct({
  access_token: Schema.String,
  refresh_token: Schema.String,
  token_type: Schema.Literal("Bearer"),
  expires_in: DurationFromSeconds
})

/** An RFC 8628 error answer of the device token endpoint (served with status 400). */
export const DeviceTokenError = Schema.Struct({
  error: Schema.Literals(["authorization_pending", "slow_down", "access_denied", "expired_token"]),
  error_description: Schema.optional(Schema.String)
})

/** `POST /auth/device/token`: a token, or an error such as `authorization_pending`. */
export const DeviceTokenResponse = Schema.Union([TokenSuccess, DeviceTokenError])

/** One organisation the user belongs to. */
export const Org = Schema.Struct({
  id: Schema.String,
  name: Schema.String,
  slug: Schema.String,
  role: Schema.Literals(["owner", "admin", "member"])
})

/** `GET /api/orgs`. */
export const Orgs = Schema.Array(Org)

/** `GET /api/user`: the signed-in user. */
export const User = Schema.Struct({
  id: Schema.String,
  email: Schema.String.annotate({ format: "email" }),
  name: Schema.optional(Schema.String),
  created_at: Schema.DateTimeUtcFromString
})

/** `GET /api/config`: settings the organisation pushes to the app. */
export const RemoteConfig = Schema.Struct({
  model: Schema.optional(Schema.String),
  small_model: Schema.optional(Schema.String),
  share: Schema.optional(Schema.Literals(["manual", "auto", "disabled"])),
  disabled_providers: Schema.optional(Schema.Array(Schema.String)),
  autoupdate: Schema.optional(Schema.Boolean)
})

/**
 * A narrowing helper: a `Duration` generated as whole seconds in `[minimum, maximum]`. Use it in
 * a `narrow` schema where the production schema has a `Duration`.
 */
export const DurationSecondsBetween = (minimum: number, maximum: number) =>
  Schema.declare(Duration.isDuration, {
    toCodecArbitrary: () =>
      Schema.link<Duration.Duration>()(
        Schema.Int.check(Schema.isBetween({ minimum, maximum })),
        SchemaTransformation.transform({ decode: Duration.seconds, encode: Duration.toSeconds })
      )
  })

const token = (prefix: string) => Schema.String.check(Schema.isPattern(new RegExp(`^${prefix}_[A-Za-z0-9]{24}$`)))
const UserCode = Schema.String.check(Schema.isPattern(/^[A-Z]{4}-[A-Z]{4}$/))

/** The narrowed generator of `DeviceCode`: codes that look like real ones, a 10-minute window, 5 s polling. */
export const DeviceCodeGenerated = (baseUrl: string) =>
  Schema.Struct({
    device_code: token("dc"),
    user_code: UserCode,
    verification_uri: Schema.Literal(`${baseUrl}/device`),
    expires_in: DurationSecondsBetween(600, 900),
    interval: DurationSecondsBetween(5, 5)
  })

/** The narrowed generator of `TokenSuccess`: opaque tokens, an hour of validity. */
export const TokenGenerated = Schema.Struct({
  access_token: token("at"),
  refresh_token: token("rt"),
  token_type: Schema.Literal("Bearer"),
  expires_in: DurationSecondsBetween(3600, 3600)
})

/** The narrowed generator of `Orgs`: one to three organisations. */
export const OrgsGenerated = Schema.Array(
  Schema.Struct({
    id: token("org"),
    name: Schema.Literals(["Acme", "Initech", "Globex", "Umbrella"]),
    slug: Schema.Literals(["acme", "initech", "globex", "umbrella"]),
    role: Schema.Literals(["owner", "admin", "member"])
  })
).check(Schema.isMinLength(1), Schema.isMaxLength(3))
