/**
 * Which copy of `effect` built a Schema. A Schema is read with the code of the copy that made it:
 * when a project loads two copies of effect (simnet's own beside the app's), simnet cannot read
 * the app's Schemas, and what goes wrong names no cause (an `Int` field refused as "Expected an
 * integer", since the check belongs to the other copy). simnet takes effect as a peer dependency,
 * so an install gives one copy; when a project has two anyway (a nested copy, a linked checkout, a
 * workspace with its own effect), a Schema from the other copy is refused here with a message that
 * names both copies and the fix.
 */
import { readFileSync, realpathSync } from "node:fs"
import { createRequire } from "node:module"
import { dirname, join } from "node:path"
import { Schema, SchemaAST } from "effect"
import { InvalidRouteSpec } from "../SimnetError.ts"

// Every AST node this copy of effect builds derives from one base class that another copy's nodes
// do not share. The Schema and AST marks are strings both copies write, so `Schema.isSchema` and
// `SchemaAST.isAST` hold for either.
const thisCopysNode: object = Object.getPrototypeOf(Object.getPrototypeOf(Schema.String.ast) as object) as object

/** The copy of effect a module at `from` resolves: its version and folder, or nothing when none resolves. */
const copyFrom = (from: string): { readonly version: string; readonly folder: string } | undefined => {
  try {
    const file = realpathSync(createRequire(from).resolve("effect/package.json"))
    const { version } = JSON.parse(readFileSync(file, "utf8")) as { readonly version?: unknown }
    return { version: String(version), folder: dirname(file) }
  } catch {
    return undefined
  }
}

/** The copies to name: simnet's, and the project's (resolved from the working directory) when it is another. */
const copiesLoaded = (): string => {
  const named = (copy: { readonly version: string; readonly folder: string }) =>
    `effect ${copy.version} at ${copy.folder}`
  const simnets = copyFrom(import.meta.url)
  if (simnets === undefined) return "two copies of effect are loaded"
  const projects = copyFrom(join(process.cwd(), "package.json"))
  if (projects === undefined || projects.folder === simnets.folder)
    return `two copies of effect are loaded (simnet's: ${named(simnets)})`
  return `two copies of effect are loaded (simnet's: ${named(simnets)}; this project's: ${named(projects)})`
}

/**
 * The refusal of a Schema built by another copy of effect than simnet's, or nothing when the value
 * is not a Schema (the caller's own check refuses that) or is one of this copy's. `path` is the
 * field that holds it (`schema`, `narrow`, `tools[0].input`).
 */
export const foreignSchema = (value: unknown, path: string): InvalidRouteSpec | undefined => {
  if (
    !Schema.isSchema(value) ||
    !SchemaAST.isAST(value.ast) ||
    Object.prototype.isPrototypeOf.call(thisCopysNode, value.ast)
  )
    return undefined
  return new InvalidRouteSpec({
    path,
    message:
      `this Schema was built by another copy of effect than simnet's, and only its own copy can read it: ${copiesLoaded()}. ` +
      "simnet takes effect as a peer dependency to share the project's copy: keep one (`npm ls effect` lists them; " +
      "`npm dedupe` merges copies whose versions allow it; a linked checkout of simnet loads its own, so install its `npm pack` tarball instead)."
  })
}
