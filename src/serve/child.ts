/**
 * `simnet run -- COMMAND`: the environment that points a process of any language at `simnet
 * serve`'s proxy and its CA, and the child itself, with signals forwarded and its exit status
 * kept.
 */
import { spawn } from "node:child_process"
import { Effect, type Scope } from "effect"
import { printable } from "../registry/util.ts"
import { findable, heldCommand, hold } from "../terminal/holder.ts"
import { endpointsOf } from "../control/runtime.ts"
import { type EmulatorFailure, spawnTerminal, type Terminal } from "../terminal/terminal.ts"
import { describeExit, screenText } from "../terminal/screen.ts"

/**
 * The status a request no route answers gets under `simnet run` (and under `simnet explore`, whose
 * runs are `simnet run`'s): 404, which no common client retries, so a refused side call costs the
 * command one round trip. The body names the request and the nearest routes.
 */
export const RUN_REFUSAL_STATUS = 404

/**
 * Options of `proxyEnv`: whether loopback traffic goes through the proxy too (`--proxy-loopback`;
 * by default the app's own servers are reached directly), and the `NODE_OPTIONS` the command
 * would have had (default: this process's), which simnet's flag is added to.
 */
export interface ProxyEnvOptions {
  readonly proxyLoopback?: boolean | undefined
  readonly nodeOptions?: string | undefined
}

/**
 * The one warning simnet's own variables make Node print: with `NODE_USE_ENV_PROXY=1`, Node 22
 * builds undici's `EnvHttpProxyAgent` at start-up, whose constructor warns `[UNDICI-EHPA] …
 * experimental` with the process id — on every Node app's screen, a different line in every run.
 * `--disable-warning` drops exactly that code (Node ≥ 20.11 and 21.3); the app's own warnings
 * are printed as before. Newer Nodes, whose undici no longer warns, take the flag as well.
 */
const QUIET_PROXY_WARNING = "--disable-warning=UNDICI-EHPA"

/** `NODE_OPTIONS` as given, with `QUIET_PROXY_WARNING` added (once). */
const nodeOptionsOf = (given: string | undefined): string => {
  const options = (given ?? "").trim()
  return options.split(/\s+/).includes(QUIET_PROXY_WARNING) ? options : `${options} ${QUIET_PROXY_WARNING}`.trim()
}

/**
 * The variables the common stacks read: proxies (upper and lower case: curl, Python, Go, Ruby,
 * git and npm read one or the other), `NO_PROXY` for loopback, `NODE_USE_ENV_PROXY=1` (Node's
 * `fetch` and `http(s)` honour the proxy variables only with it) and `NODE_OPTIONS` that keeps it
 * from printing into the app (`QUIET_PROXY_WARNING`), and the CA for OpenSSL-based tools
 * (`SSL_CERT_FILE`), Node (`NODE_EXTRA_CA_CERTS`), Python's requests, curl, git and npm.
 */
export const proxyEnv = (proxyUrl: string, caFile: string, options: ProxyEnvOptions = {}): Record<string, string> => {
  const env: Record<string, string> = {
    NODE_USE_ENV_PROXY: "1",
    NODE_OPTIONS: nodeOptionsOf(options.nodeOptions ?? process.env["NODE_OPTIONS"]),
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
export const runEnv = (
  proxyUrl: string,
  caFile: string,
  options: ProxyEnvOptions = {}
): { readonly env: Record<string, string>; readonly driverUrl: string } => {
  const { control, driver } = endpointsOf(proxyUrl)
  return {
    env: { ...proxyEnv(proxyUrl, caFile, options), SIMNET_CONTROL_URL: control, SIMNET_DRIVER_URL: driver },
    driverUrl: driver
  }
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
export const runChild = (
  command: string,
  args: ReadonlyArray<string>,
  env: Readonly<Record<string, string | undefined>>,
  options: { readonly held?: boolean } = {}
): Effect.Effect<number, Error> =>
  Effect.callback<number, Error>((resume) => {
    const merged = Object.fromEntries(
      Object.entries({ ...process.env, ...env }).filter((entry): entry is [string, string] => entry[1] !== undefined)
    )
    if (process.platform !== "win32" && !findable(command, merged["PATH"])) {
      resume(
        Effect.fail(
          new Error(
            `cannot run ${command}: not found${command.includes("/") ? " (or not an executable file)" : " on PATH"}`
          )
        )
      )
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
      resume(Effect.succeed(code ?? 128 + (name === null ? 0 : (numbers[name] ?? 0))))
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
 * What `simnet run --tty` and `simnet mcp -- COMMAND` do when the terminal emulator throws and
 * simnet contains it (`terminal/emulator.ts`): say so on standard error and in the trace
 * (`terminal.failure`), and go on with the screen rebuilt.
 */
export const emulatorFailed =
  (command: string, traceLine: (line: Record<string, unknown>) => void) =>
  (failure: EmulatorFailure): void => {
    process.stderr.write(
      `${printable(`simnet: the terminal emulator failed (${failure.during}: ${failure.message}) while ${command} ran; the screen was rebuilt and the run goes on`)}\n`
    )
    traceLine({ type: "terminal.failure", ...failure })
  }

/** How `simnet run --tty` runs its command: the terminal's size, the driver's URL, and what it tells of the terminal. */
export interface RunTty {
  readonly cols: number
  readonly rows: number
  readonly driverUrl: string
  /** Handed the terminal once it runs. */
  readonly opened: (terminal: Terminal) => void
  /** Completes once every driver socket has been told the program exited. */
  readonly told: Effect.Effect<void>
  /** Writes a line to the trace. */
  readonly traceLine: (line: Record<string, unknown>) => void
}

/**
 * Runs the command of `simnet run`: with `tty`, in a pseudo-terminal of its size whose screen the
 * driver socket's `ui.*` methods see (`opened` is handed the terminal; the driver's URL is
 * printed on standard error), killed when the scope closes; else with this process's standard
 * streams (`runChild`). Either way held (see `runChild`) unless `held` is false. A terminal's
 * program is seen by no one: when it ends, its drivers are told first (each call under way
 * answered; two seconds at most), then how it ended is said on standard error — with a
 * failure's last screen — and in the trace (`terminal.exit`). Succeeds with its exit code.
 */
export const runCommand = (
  command: string,
  args: ReadonlyArray<string>,
  env: Readonly<Record<string, string | undefined>>,
  tty: RunTty | undefined,
  held = true
): Effect.Effect<number, Error, Scope.Scope> =>
  tty === undefined
    ? runChild(command, args, env, { held })
    : Effect.gen(function* () {
        const terminal = yield* spawnTerminal(command, args, {
          cols: tty.cols,
          rows: tty.rows,
          env,
          held,
          onFailure: emulatorFailed(command, tty.traceLine)
        })
        tty.opened(terminal)
        process.stderr.write(
          `${printable(`simnet: ${command} runs in a ${tty.cols}x${tty.rows} terminal; driver: ${tty.driverUrl} (ui.screen, ui.interactables, ui.type, ui.press, ui.click, ui.paste, ui.submit, ui.resize, ui.wait)`)}\n`
        )
        const ended = yield* terminal.exited
        yield* Effect.timeoutOption(tty.told, 2_000)
        const lines = terminal.screen().lines
        const failed = ended.code !== 0 || ended.signal !== undefined
        tty.traceLine({ type: "terminal.exit", ...ended, screen: lines })
        const shown = failed
          ? `; its last screen:\n${screenText(lines)
              .split("\n")
              .map((line) => `  | ${line}`)
              .join("\n")}`
          : ""
        process.stderr.write(`${printable(`simnet: ${command} exited with ${describeExit(ended)}${shown}`)}\n`)
        return ended.signal === undefined ? ended.code : 128 + ended.signal
      }).pipe(Effect.mapError((error) => new Error(error.message)))
