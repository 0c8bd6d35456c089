/**
 * The session-sharing service (`https://opncd.ai` by default): creating a share answers its id,
 * public URL and the secret that authorises later syncs and removal.
 */
import { Schema } from "effect"

/** `POST /api/share`: the created share. */
export const ShareCreated = Schema.Struct({
  id: Schema.String,
  url: Schema.String,
  secret: Schema.String
})

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")

/** The narrowed generator of `ShareCreated`: an 8-character id and a URL under `baseUrl`. */
export const ShareCreatedGenerated = (baseUrl: string) =>
  Schema.Struct({
    id: Schema.String.check(Schema.isPattern(/^[A-Za-z0-9]{8}$/)),
    url: Schema.String.check(Schema.isPattern(new RegExp(`^${escapeRegExp(baseUrl)}/s/[A-Za-z0-9]{8}$`))),
    secret: Schema.String.check(
      Schema.isPattern(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/)
    )
  })
