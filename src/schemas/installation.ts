/**
 * What an app's self-update check asks for: the latest GitHub release of its repository, and its
 * package's metadata on the npm registry and on Homebrew.
 */
import { Schema } from "effect"

/** One downloadable asset of a release. */
export const ReleaseAsset = Schema.Struct({
  name: Schema.String,
  browser_download_url: Schema.String,
  size: Schema.Number,
  content_type: Schema.String
})

/** `GET https://api.github.com/repos/{owner}/{repo}/releases/latest`. */
export const GitHubRelease = Schema.Struct({
  tag_name: Schema.String,
  name: Schema.NullOr(Schema.String),
  html_url: Schema.String,
  draft: Schema.Boolean,
  prerelease: Schema.Boolean,
  published_at: Schema.DateTimeUtcFromString,
  assets: Schema.Array(ReleaseAsset)
})

/** `GET https://registry.npmjs.org/{package}/latest`: one version's manifest. */
export const NpmVersion = Schema.Struct({
  name: Schema.String,
  version: Schema.String,
  dist: Schema.Struct({ tarball: Schema.String, integrity: Schema.optional(Schema.String) })
})

/** `GET https://registry.npmjs.org/{package}` (abbreviated): the dist-tags an update check reads. */
export const NpmPackument = Schema.Struct({
  name: Schema.String,
  "dist-tags": Schema.Struct({ latest: Schema.String, next: Schema.optional(Schema.String) })
})

/** `GET https://formulae.brew.sh/api/formula/{name}.json` (the fields an update check reads). */
export const BrewFormula = Schema.Struct({
  name: Schema.String,
  versions: Schema.Struct({ stable: Schema.String })
})

/** A semantic version such as `1.14.2`. */
export const SemVer = Schema.String.check(Schema.isPattern(/^(0|[1-9][0-9]?)\.(0|[1-9][0-9]?)\.(0|[1-9][0-9]?)$/))

/** The narrowed generator of `GitHubRelease`: a published, non-draft `vX.Y.Z` with platform assets. */
export const GitHubReleaseGenerated = Schema.Struct({
  tag_name: Schema.String.check(Schema.isPattern(/^v(0|[1-9][0-9]?)\.(0|[1-9][0-9]?)\.(0|[1-9][0-9]?)$/)),
  name: Schema.String.check(Schema.isPattern(/^v[1-9]\.[0-9]{1,2}\.[0-9]{1,2}$/)),
  html_url: Schema.String.annotate({ format: "uri" }),
  draft: Schema.Literal(false),
  prerelease: Schema.Literal(false),
  published_at: Schema.DateTimeUtc,
  assets: Schema.Array(
    Schema.Struct({
      name: Schema.Literals(["app-linux-x64.tar.gz", "app-darwin-arm64.zip", "app-windows-x64.zip"]),
      browser_download_url: Schema.String.annotate({ format: "uri" }),
      size: Schema.Int.check(Schema.isBetween({ minimum: 10_000_000, maximum: 90_000_000 })),
      content_type: Schema.Literals(["application/gzip", "application/zip"])
    })
  ).check(Schema.isMaxLength(3))
})

/** The narrowed generator of `NpmPackument`. */
export const NpmPackumentGenerated = Schema.Struct({
  name: Schema.String.check(Schema.isPattern(/^[a-z][a-z0-9-]{2,12}$/)),
  "dist-tags": Schema.Struct({ latest: SemVer })
})
