/**
 * The session-sharing family.
 */
import type { Route } from "../registry/route.ts"
import { status } from "../routes/static/static.ts"
import * as Share from "../schemas/share.ts"
import { named, perBase, schemaOf, trimBase } from "./shared.ts"

const shareCreatedGenerated = perBase(Share.ShareCreatedGenerated)

/**
 * The session-sharing service: `POST {baseUrl}/api/share` creates a share (`{id, url, secret}`),
 * `POST {baseUrl}/api/share/:id/sync` and `DELETE {baseUrl}/api/share/:id` answer 204.
 */
export const share = (baseUrl = "https://opncd.ai"): Array<Route> => {
  const base = trimBase(baseUrl)
  return [
    named(`POST ${base}/api/share`, schemaOf(Share.ShareCreated, shareCreatedGenerated(base)), "share"),
    status(`POST ${base}/api/share/:id/sync`, 204, { source: "share" }),
    status(`DELETE ${base}/api/share/:id`, 204, { source: "share" })
  ]
}
