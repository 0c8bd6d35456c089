/**
 * The control plane of `simnet serve`: the control endpoint and driver socket beside the network,
 * the line per request (unless `quiet`) and the replay trace (`trace`).
 */
import { Console, Effect, Layer } from "effect"
import type { Scope } from "effect"
import type * as HttpRouter from "effect/http/HttpRouter"
import { CONTROL_BASE, type ControlEvent, controlRoutes } from "./endpoint.ts"
import { ExitNotices } from "./driver.ts"
import { INSPECTOR_PATH, inspector } from "./inspector.ts"
import type { DoorWatch } from "../doors/node.ts"
import { controlLine, reportRequests, requestLine, traceFile } from "./trace.ts"
import { printable } from "../registry/util.ts"
import type { Terminal } from "../terminal/terminal.ts"
import type { SimulationNetworkApi } from "../network/network.ts"
import { simnetVersion } from "../registry/version.ts"
import { MCP_PATH, agentToolRoutes } from "./agentTools.ts"

/** Where a server at `base` (`http://127.0.0.1:PORT`) answers, each as a URL: what `--manifest` writes and the start-up lines print. */
export interface Endpoints {
  /** The network: `BASE/HOST/PATH` is `https://HOST/PATH`, and the same port is an HTTP(S) proxy. */
  readonly network: string
  readonly control: string
  /** The driver socket (WebSocket, JSON-RPC 2.0). */
  readonly driver: string
  readonly inspector: string
  /** The MCP tools over Streamable HTTP. */
  readonly mcp: string
}

/** The endpoints of a server at `base`. */
export const endpointsOf = (base: string): Endpoints => ({
  network: base,
  control: `${base}${CONTROL_BASE}`,
  driver: `${base.replace(/^http/, "ws")}${CONTROL_BASE}/drive`,
  inspector: `${base}${INSPECTOR_PATH}`,
  mcp: `${base}${MCP_PATH}`
})

/**
 * Options of the serve-time control plane.
 */
export interface ControlRuntimeOptions {
  readonly trace?: string | undefined
  readonly quiet?: boolean | undefined
  /** Where the line per request goes (default: standard output; `simnet run` uses standard error, leaving the child's output alone). */
  readonly out?: ((line: string) => void) | undefined
  /** The terminal `simnet run --tty` runs its command in, for the driver socket's `ui.*` methods. */
  readonly terminal?: (() => Terminal | undefined) | undefined
  /** The workspace of `simnet run --isolate`, for the `filesystem` paths and the `files` tool. */
  readonly workspace?: (() => string | undefined) | undefined
}

/**
 * Opens the trace (for the life of the scope, its start line written) and returns the router
 * layers to mount beside the network, the watchers of the requests for the network, and the lines
 * that announce the control URLs.
 */
export const controlRuntime = (
  network: SimulationNetworkApi,
  options: ControlRuntimeOptions
): Effect.Effect<
  {
    readonly routes: Layer.Layer<never, never, HttpRouter.HttpRouter>
    /** Told by the server's Node door of each request for the network (the trace, the line, the inspector): give it to `serveLayer`. */
    readonly watch: ReadonlyArray<DoorWatch>
    /** Writes a line to the trace, when there is one. */
    readonly traceLine: (line: Record<string, unknown>) => void
    /** Writes a change made through another door (the MCP tools over stdio) to the trace, when there is one. */
    readonly traceChange: (event: ControlEvent) => void
    /** Completes once every driver socket watching the terminal has been told its program exited (or has closed). */
    readonly exitsTold: Effect.Effect<void>
    readonly announce: (base: string) => Effect.Effect<void>
  },
  never,
  Scope.Scope
> =>
  Effect.gen(function* () {
    const trace = options.trace === undefined ? undefined : yield* traceFile(options.trace)
    if (trace !== undefined) trace.write({ type: "start", seed: network.seed, state: yield* network.state })
    const print =
      options.quiet === true ? undefined : (options.out ?? ((line: string) => void process.stdout.write(`${line}\n`)))
    const exits = new ExitNotices()
    const onChange = trace === undefined ? undefined : (event: ControlEvent) => trace.write(controlLine(event))
    const control = controlRoutes(network, {
      onChange,
      terminal: options.terminal,
      exits,
      workspace: options.workspace
    })
    const reporting =
      trace === undefined && print === undefined
        ? undefined
        : reportRequests(
            network,
            (line) => {
              trace?.write(line)
              print?.(printable(requestLine(line)))
            },
            { bodies: trace !== undefined }
          )
    const page = inspector(network, { terminal: options.terminal })
    const mcp = agentToolRoutes(
      network,
      options.terminal ?? (() => undefined),
      simnetVersion(),
      { onChange },
      options.workspace
    )
    return {
      routes: Layer.mergeAll(control, reporting?.layer ?? Layer.empty, page.layer, mcp),
      watch: reporting === undefined ? [page.watch] : [reporting.watch, page.watch],
      traceLine: (line) => trace?.write(line),
      traceChange: (event) => onChange?.(event),
      exitsTold: exits.told,
      announce: (base: string) =>
        Effect.gen(function* () {
          const at = endpointsOf(base)
          yield* Console.log(
            `  control:  ${at.control}/   (reset, network/register, network/routes, network/log, llm/enqueue, llm/rules, llm/pending, snapshot)`
          )
          yield* Console.log(`  driver:   ${at.driver}   (JSON-RPC 2.0)`)
          yield* Console.log(
            `  inspector: ${at.inspector}${process.env["SIMNET_TOKEN"] ? "   (append #token=$SIMNET_TOKEN, or enter it on the page)" : ""}`
          )
          yield* Console.log(`  mcp:      ${at.mcp}   (MCP over Streamable HTTP: the tools of simnet mcp)`)
          if (options.trace !== undefined) yield* Console.log(`  trace:    ${options.trace}`)
        })
    }
  })
