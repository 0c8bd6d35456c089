/**
 * `simnet run -- COMMAND`: the environment that points a process of any language at `simnet
 * serve`'s proxy and its CA, and the child itself, with signals forwarded and its exit status
 * kept.
 */
import { spawn } from "node:child_process"
import { Effect, type Scope } from "effect"
import { printable } from "../core/util.ts"
import { CONTROL_BASE } from "../control/service.ts"
import { findable, heldCommand, hold } from "../terminal/holder.ts"
import { spawnTerminal, type Terminal } from "../terminal/terminal.ts"

/** Whether loopback traffic goes through the proxy too (`--proxy-loopback`); by default the app's own servers are reached directly. */
export interface ProxyEnvOptions {
  readonly proxyLoopback?: boolean | undefined
}

/**
 * The variables the common stacks read: proxies (upper and lower case: curl, Python, Go, Ruby,
 * git and npm read one or the other), `NO_PROXY` for loopback, `NODE_USE_ENV_PROXY=1` (Node's
 * `fetch` and `http(s)` honour the proxy variables only with it), and the CA for OpenSSL-based
 * tools (`SSL_CERT_FILE`), Node (`NODE_EXTRA_CA_CERTS`), Python's requests, curl, git and npm.
 */
export const proxyEnv = (proxyUrl: string, caFile: string, options: ProxyEnvOptions = {}): Record<string, string> => {
  const env: Record<string, string> = {
    NODE_USE_ENV_PROXY: "1",
    NODE_EXTRA_CA_CERTS: caFile,
    SSL_CERT_FILE: caFile,
    REQUESTS_CA_BUNDLE: caFile,
    CURL_CA_BUNDLE: caFile,
    GIT_SSL_CAINFO: caFile,
    npm_config_proxy: proxyUrl,
    npm_config_https_proxy: proxyUrl,
    npm_config_cafile: caFile
  }
  for (const name of ["HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY"]) {
    env[name] = proxyUrl
    env[name.toLowerCase()] = proxyUrl
  }
  const noProxy = options.proxyLoopback === true ? "" : "localhost,127.0.0.1,::1"
  env["NO_PROXY"] = noProxy
  env["no_proxy"] = noProxy
  return env
}

/**
 * The environment of `simnet run`'s command: the proxy's (`proxyEnv`), and where the control
 * endpoint and the driver socket are (`SIMNET_CONTROL_URL`, `SIMNET_DRIVER_URL`).
 */
export const runEnv = (proxyUrl: string, caFile: string, options: ProxyEnvOptions = {}): { readonly env: Record<string, string>; readonly driverUrl: string } => {
  const driverUrl = `${proxyUrl.replace(/^http/, "ws")}${CONTROL_BASE}/drive`
  return { env: { ...proxyEnv(proxyUrl, caFile, options), SIMNET_CONTROL_URL: `${proxyUrl}${CONTROL_BASE}`, SIMNET_DRIVER_URL: driverUrl }, driverUrl }
}

/** How long a command stopped with simnet (its scope closed) has to end on SIGTERM before it is killed. */
const GRACE = "3 seconds"

/**
 * Runs `command` with `args` and `env` added to this process's environment (a variable given as
 * undefined is taken out), its standard streams this process's, SIGINT/SIGTERM/SIGHUP passed on
 * to it, and held (`holder.ts`, unless `held` is false: a sealed run's command is held by its
 * room) so that every process it starts ends with it. Succeeds with its exit code (128 plus the
 * signal's number when a signal ended it); fails when it cannot be started. Closing the scope
 * sends it SIGTERM and, after a short grace, SIGKILL to whatever is left.
 */
export const runChild = (command: string, args: ReadonlyArray<string>, env: Readonly<Record<string, string | undefined>>, options: { readonly held?: boolean } = {}): Effect.Effect<number, Error> =>
  Effect.callback<number, Error>((resume) => {
    const merged = Object.fromEntries(Object.entries({ ...process.env, ...env }).filter((entry): entry is [string, string] => entry[1] !== undefined))
    if (process.platform !== "win32" && !findable(command, merged["PATH"])) {
      resume(Effect.fail(new Error(`cannot run ${command}: not found${command.includes("/") ? " (or not an executable file)" : " on PATH"}`)))
      return
    }
    const program = options.held === false ? { command, args } : hold(command, args)
    const child = spawn(program.command, program.args, { stdio: "inherit", env: merged })
    // The command itself, below its holder (which blocks SIGINT and SIGTERM) or nsenter (which
    // would die of them and leave it running).
    const signal = (name: NodeJS.Signals) => {
      if (child.pid === undefined || child.exitCode !== null || child.signalCode !== null) return
      try {
        process.kill(heldCommand(child.pid), name)
      } catch {
        // already gone
      }
    }
    const signals = ["SIGINT", "SIGTERM", "SIGHUP"] as const
    const handlers = signals.map((name) => [name, () => signal(name)] as const)
    for (const [name, handler] of handlers) process.on(name, handler)
    const done = () => {
      for (const [name, handler] of handlers) process.off(name, handler)
    }
    child.once("error", (error) => {
      done()
      resume(Effect.fail(new Error(`cannot run ${command}: ${error.message}`)))
    })
    child.once("exit", (code, name) => {
      done()
      const numbers: Record<string, number> = { SIGHUP: 1, SIGINT: 2, SIGKILL: 9, SIGTERM: 15 }
      resume(Effect.succeed(code ?? 128 + (name === null ? 0 : numbers[name] ?? 0)))
    })
    const ended = Effect.callback<void>((resumeEnded) => {
      if (child.exitCode !== null || child.signalCode !== null) return resumeEnded(Effect.void)
      child.once("exit", () => resumeEnded(Effect.void))
      signal("SIGTERM")
    })
    return Effect.sync(done).pipe(
      Effect.andThen(Effect.timeoutOption(ended, GRACE)),
      Effect.andThen(Effect.sync(() => void child.kill("SIGKILL")))
    )
  })

/**
 * Runs the command of `simnet run`: with `tty`, in a pseudo-terminal of its size whose screen the
 * driver socket's `ui.*` methods see (`opened` is handed the terminal; the driver's URL is
 * printed on standard error), killed when the scope closes; else with this process's standard
 * streams (`runChild`). Either way held (see `runChild`) unless `held` is false. Succeeds with
 * its exit code.
 */
export const runCommand = (
  command: string,
  args: ReadonlyArray<string>,
  env: Readonly<Record<string, string | undefined>>,
  tty: { readonly cols: number; readonly rows: number; readonly driverUrl: string; readonly opened: (terminal: Terminal) => void } | undefined,
  held = true
): Effect.Effect<number, Error, Scope.Scope> =>
  tty === undefined
    ? runChild(command, args, env, { held })
    : Effect.gen(function*() {
      const terminal = yield* spawnTerminal(command, args, { cols: tty.cols, rows: tty.rows, env, held })
      tty.opened(terminal)
      process.stderr.write(`${printable(`simnet: ${command} runs in a ${tty.cols}x${tty.rows} terminal; driver: ${tty.driverUrl} (ui.screen, ui.type, ui.press, ui.resize, ui.wait)`)}\n`)
      const ended = yield* terminal.exited
      return ended.signal === undefined ? ended.code : 128 + ended.signal
    }).pipe(Effect.mapError((error) => new Error(error.message)))
