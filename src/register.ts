/**
 * `node --import simnet/register app.js`: simulates a whole process that was never written for
 * tests. Before the app's first line runs, a network is built from the fixture named by
 * `SIMNET_FIXTURE` (none: an empty network, so every request fails closed and is logged) with
 * the seed in `SIMNET_SEED` (else the fixture's), and installed for the whole process: the global
 * `fetch`, undici and `node:http(s)`. When the process exits (or ends on SIGINT/SIGTERM), the
 * request log is written to `SIMNET_LOG` as JSON lines, one `RequestRecord` per line. Any other
 * outbound connection fails with `ConnectionDenied` but to the hosts in `SIMNET_ALLOW_HOSTS`
 * (comma-separated `host` or `host:port`); `SIMNET_GUARD=off` turns that guard off.
 *
 * A fixture that cannot be read or decoded stops the process with one line on stderr (exit 1).
 */
import "./registry/version.ts"
import { writeFileAtomic } from "./fileSystem/files.ts"
import * as path from "node:path"
import { Effect } from "effect"
import { loadFixture } from "./Fixture.ts"
import { SimulationNetwork } from "./SimulationNetwork.ts"

const fail = (message: string): never => {
  process.stderr.write(`simnet/register: ${message}\n`)
  process.exit(1)
}

const fixtureFile = process.env.SIMNET_FIXTURE
const fixture =
  fixtureFile === undefined || fixtureFile === ""
    ? { seed: undefined, routes: [], llm: [], llmRules: [] }
    : await Effect.runPromise(Effect.result(loadFixture(path.resolve(fixtureFile)))).then((result) =>
        result._tag === "Success"
          ? result.success
          : fail(
              `${result.failure._tag}${"path" in result.failure ? ` at ${result.failure.path}` : ""}: ${result.failure.message}`
            )
      )
const rawSeed = process.env.SIMNET_SEED
const seed =
  rawSeed === undefined || rawSeed === "" ? fixture.seed : /^-?\d+$/.test(rawSeed) ? Number(rawSeed) : rawSeed

const network = await SimulationNetwork.start({
  seed,
  routes: fixture.routes,
  llm: fixture.llm,
  llmRules: fixture.llmRules
}).catch((error: { _tag?: string; message?: string }) =>
  fail(`${error._tag ?? "Error"}: ${error.message ?? String(error)}`)
)
// The network guard (see `installGlobal`): `SIMNET_ALLOW_HOSTS` lists the hosts (`host` or
// `host:port`, comma-separated) the process may still connect to, such as a local database;
// `SIMNET_GUARD=off` turns the guard off.
const allowHosts = (process.env.SIMNET_ALLOW_HOSTS ?? "")
  .split(",")
  .map((host) => host.trim())
  .filter((host) => host !== "")
const guard = process.env.SIMNET_GUARD
if (guard !== undefined && guard !== "" && guard !== "on" && guard !== "off")
  fail(`SIMNET_GUARD is "on" or "off", got ${JSON.stringify(guard)}`)
await network.installGlobal({ allowHosts, guard: guard !== "off" })

const logFile = process.env.SIMNET_LOG
if (logFile !== undefined && logFile !== "") {
  const target = path.resolve(logFile)
  let written = false
  const writeLog = () => {
    if (written) return
    written = true
    const lines = network.log().map((record) => JSON.stringify(record))
    writeFileAtomic(target, lines.length === 0 ? "" : `${lines.join("\n")}\n`)
  }
  process.once("exit", writeLog)
  for (const signal of ["SIGINT", "SIGTERM"] as const) {
    const onSignal = () => {
      writeLog()
      // Without another listener the signal would have ended the process: end it the same way.
      if (process.listenerCount(signal) === 0) process.kill(process.pid, signal)
    }
    process.once(signal, onSignal)
  }
}
