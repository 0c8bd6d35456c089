/**
 * The installation family: what a self-update check asks for.
 */
import type { Route } from "../registry/route.ts"
import * as Installation from "../schemas/installation.ts"
import { named, schemaOf, withBase } from "./shared.ts"

/**
 * What a self-update check asks for: the latest GitHub release of any repository
 * (`GET https://api.github.com/repos/:owner/:repo/releases/latest`), npm registry metadata
 * (`GET https://registry.npmjs.org/:pkg` with `dist-tags`, and `/:pkg/latest`), and Homebrew
 * formula metadata (`GET https://formulae.brew.sh/api/formula/:name.json`). `registryUrl` (a
 * fixture's `{ "family": "installation", "baseUrl" }`) serves npm metadata from another registry
 * (a company's own); one that is not a URL is refused when the routes register.
 */
export const installation = (registryUrl: string = NPM_REGISTRY): Array<Route> =>
  withBase("installation", registryUrl, (registry) => [
    named(
      "GET https://api.github.com/repos/:owner/:repo/releases/latest",
      schemaOf(Installation.GitHubRelease, Installation.GitHubReleaseGenerated),
      "installation"
    ),
    named(
      `GET ${registry}/:pkg`,
      schemaOf(Installation.NpmPackument, Installation.NpmPackumentGenerated),
      "installation"
    ),
    named(`GET ${registry}/:pkg/latest`, schemaOf(Installation.NpmVersion), "installation"),
    named("GET https://formulae.brew.sh/api/formula/:name.json", schemaOf(Installation.BrewFormula), "installation")
  ])

/** The npm registry `installation` answers when no other is given. */
export const NPM_REGISTRY = "https://registry.npmjs.org"
