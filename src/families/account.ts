/**
 * The account service family: device authorization, token refresh, user, orgs and config.
 */
import type { Route } from "../registry/route.ts"
import * as Account from "../schemas/account.ts"
import { named, perBase, schemaOf, withBase } from "./shared.ts"

const deviceCodeGenerated = perBase(Account.DeviceCodeGenerated)

/**
 * An account service at `baseUrl`: device authorization (`POST /auth/device/code`, then
 * `POST /auth/device/token`, which answers a token at once), token refresh (`POST /auth/token`),
 * `GET /api/user`, `GET /api/orgs` and `GET /api/config`. Token lifetimes are seconds on the
 * wire, `Duration`s in the app. To test the pending branch of the device flow, register
 * `Route.json("POST {baseUrl}/auth/device/token", DeviceTokenResponse, { narrow: DeviceTokenError, status: 400 })`
 * with `times: 1` after the family.
 */
export const account = (baseUrl: string): Array<Route> =>
  withBase("account", baseUrl, (base) => [
    named(`POST ${base}/auth/device/code`, schemaOf(Account.DeviceCode, deviceCodeGenerated(base)), "account"),
    named(`POST ${base}/auth/device/token`, schemaOf(Account.DeviceTokenResponse, Account.TokenGenerated), "account"),
    named(`POST ${base}/auth/token`, schemaOf(Account.TokenSuccess, Account.TokenGenerated), "account"),
    named(`GET ${base}/api/user`, schemaOf(Account.User), "account"),
    named(`GET ${base}/api/orgs`, schemaOf(Account.Orgs, Account.OrgsGenerated), "account"),
    named(`GET ${base}/api/config`, schemaOf(Account.RemoteConfig), "account")
  ])
