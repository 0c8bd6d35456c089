/**
 * The installation family: what a self-update check asks for.
 */
import type { Route } from "../registry/route.ts"
import * as Installation from "../schemas/installation.ts"
import { named, schemaOf } from "./shared.ts"

/**
 * What a self-update check asks for: the latest GitHub release of any repository
 * (`GET https://api.github.com/repos/:owner/:repo/releases/latest`), npm registry metadata
 * (`GET https://registry.npmjs.org/:pkg` with `dist-tags`, and `/:pkg/latest`), and Homebrew
 * formula metadata (`GET https://formulae.brew.sh/api/formula/:name.json`).
 */
export const installation = (): Array<Route> => [
  named(
    "GET https://api.github.com/repos/:owner/:repo/releases/latest",
    schemaOf(Installation.GitHubRelease, Installation.GitHubReleaseGenerated),
    "installation"
  ),
  named(
    "GET https://registry.npmjs.org/:pkg",
    schemaOf(Installation.NpmPackument, Installation.NpmPackumentGenerated),
    "installation"
  ),
  named("GET https://registry.npmjs.org/:pkg/latest", schemaOf(Installation.NpmVersion), "installation"),
  named("GET https://formulae.brew.sh/api/formula/:name.json", schemaOf(Installation.BrewFormula), "installation")
]
