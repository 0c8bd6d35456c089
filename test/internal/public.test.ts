/**
 * The public face is chosen, not leaked: every name `simnet`, `simnet/testing`, `simnet/models`,
 * `simnet/vitest` and `simnet/register` export (types included, and the members of the namespaces
 * `simnet` exports, such as `Route.text`) is listed in `test/internal/public-api.txt`, read off the
 * sources by the TypeScript compiler. A new export fails this test until it is added to the list on
 * purpose; one that goes fails it too (a name outside tests may use).
 */
import { readFileSync } from "node:fs"
import { join } from "node:path"
import ts from "typescript"
import { describe, expect, it } from "vitest"
import { HEAVY_WORK } from "../support/timeouts.ts"

const root = join(import.meta.dirname, "..", "..")
const entries = {
  simnet: "src/index.ts",
  "simnet/testing": "src/testing.ts",
  "simnet/models": "src/models.ts",
  "simnet/register": "src/register.ts",
  "simnet/vitest": "src/vitest.ts"
}

/** Every public name, as `entry: Name` and `entry: Namespace.member`, sorted. */
const publicNames = (): Array<string> => {
  const config = ts.getParsedCommandLineOfConfigFile(
    join(root, "tsconfig.json"),
    {},
    { ...ts.sys, onUnRecoverableConfigFileDiagnostic: () => {} }
  )!
  const program = ts.createProgram(
    Object.values(entries).map((file) => join(root, file)),
    config.options
  )
  const checker = program.getTypeChecker()
  const names: Array<string> = []
  for (const [entry, file] of Object.entries(entries)) {
    const module = checker.getSymbolAtLocation(program.getSourceFile(join(root, file))!)
    for (const symbol of module === undefined ? [] : checker.getExportsOfModule(module)) {
      names.push(`${entry}: ${symbol.name}`)
      const target = symbol.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(symbol) : symbol
      // A namespace (`export * as Route from "./Route.ts"`): its members are public too.
      if (
        target.flags & ts.SymbolFlags.ValueModule &&
        target.valueDeclaration !== undefined &&
        ts.isSourceFile(target.valueDeclaration)
      ) {
        for (const member of checker.getExportsOfModule(target)) names.push(`${entry}: ${symbol.name}.${member.name}`)
      }
    }
  }
  return names.sort()
}

describe("the public face", () => {
  it(
    "exports exactly the names listed in test/internal/public-api.txt",
    () => {
      const listed = readFileSync(join(import.meta.dirname, "public-api.txt"), "utf8")
        .split("\n")
        .filter((line) => line !== "" && !line.startsWith("#"))
      const names = publicNames()
      expect({
        added: names.filter((n) => !listed.includes(n)),
        removed: listed.filter((n) => !names.includes(n))
      }).toEqual({ added: [], removed: [] })
      // None of the machinery the review found published.
      for (const leaked of [
        "Route.RouteFields",
        "Route.DirectResponder",
        "Route.RouteParts",
        "Route.make",
        "Redaction.depthExceeds"
      ]) {
        expect(names).not.toContain(`simnet: ${leaked}`)
      }
      // The model kit is what a family is written with, not simnet's own model call and its speed tricks.
      for (const leaked of [
        "callModel",
        "modelAnswerer",
        "modelResponder",
        "jsonWhole",
        "jsonText",
        "PartsEndpoint",
        "MODEL_FAMILIES"
      ]) {
        expect(names).not.toContain(`simnet/models: ${leaked}`)
      }
    },
    HEAVY_WORK
  )
})
