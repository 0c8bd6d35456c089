/**
 * The `passthrough` family: the one way a request leaves a simulated network, and only when asked
 * for by name. A route at the lowest priority for each host given (or `*` for every host) sends
 * what no other route answers to the real host — or to the `upstream` given for it, how tests
 * reach a local server — and answers with what comes back, in the log like any answer (route id
 * `passthrough HOST`). Without it nothing is ever forwarded.
 */
import { Effect } from "effect"
import { answerWith, type Route } from "../registry/route.ts"
import { make } from "../routes/make.ts"
import { forward, rebased } from "../routes/loopback/loopback.ts"
import { InvalidRouteSpec } from "../SimnetError.ts"

/** Below every route a user registers: a passthrough answers only what nothing else does. */
const LOWEST = -1_000_000_000

/**
 * Routes that forward requests for `hosts` (names with an optional port, or `*`) to the real
 * network; `upstream` maps a host to the base URL to send its requests to instead
 * (`{ "api.example.com": "http://127.0.0.1:8080" }`). With `sealed` (a sealed run's network),
 * `*` forwards to no address on the host's own networks (`hostLocal.ts`): only a host named
 * reaches one.
 */
export const passthrough = (
  hosts: ReadonlyArray<string>,
  upstream: Readonly<Record<string, string>> = {},
  sealed = false
): Array<Route> =>
  hosts.map((host) => {
    const id = `passthrough ${host}`
    const target = upstream[host]
    const base = target === undefined ? undefined : URL.canParse(target) ? new URL(target) : undefined
    const refused =
      target !== undefined && base === undefined
        ? new InvalidRouteSpec({ path: `upstream.${host}`, message: `not a URL: ${JSON.stringify(target)}` })
        : !/^(\*|[A-Za-z0-9.-]+(:\d{1,5})?)$/.test(host)
          ? new InvalidRouteSpec({
              path: "passthrough",
              message: `a host name (with an optional port) or *, got ${JSON.stringify(host)}`
            })
          : undefined
    return make(
      "passthrough",
      { url: (url: URL) => host === "*" || url.host === host },
      {
        answer: answerWith((request) =>
          forward(
            request,
            base === undefined ? request.url : rebased(request.url, base),
            id,
            "passthrough",
            sealed && host === "*"
          )
        ),
        ...(refused === undefined ? {} : { prepare: Effect.fail(refused) }),
        describe: { passthrough: host, ...(target === undefined ? {} : { upstream: target }) }
      },
      { id, priority: LOWEST, source: "passthrough" }
    )
  })
