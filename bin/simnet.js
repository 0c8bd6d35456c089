#!/usr/bin/env node
// The `simnet` command. It checks the Node version before loading anything that needs a newer
// one, then runs the CLI: the TypeScript sources in a checkout of the repository, the built
// `dist/` in an installed package (which ships no sources).
import { existsSync } from "node:fs"

const REQUIRED = [22, 19]
const [major, minor] = process.versions.node.split(".").map(Number)
if (major < REQUIRED[0] || (major === REQUIRED[0] && minor < REQUIRED[1])) {
  console.error(`simnet needs Node.js >= ${REQUIRED.join(".")}; this is Node.js ${process.versions.node}`)
  process.exit(1)
}

const source = new URL("../src/cli/main.ts", import.meta.url)
await import(existsSync(source) ? source.href : new URL("../dist/cli.js", import.meta.url).href)
