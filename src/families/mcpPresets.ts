/**
 * MCP route families: the remote servers of an app's MCP configuration, and the hosted search
 * endpoint coding agents call for web and code search.
 */
import { Schema } from "effect"
import { RouteFailed } from "../SimnetError.ts"
import type { McpServerDefinition } from "../mcp-route/definitions.ts"
import { hashString, make, matchNothing, type Route, withFields } from "../mcp-route/floor.ts"
import { mcpRoute } from "../mcp-route/route.ts"
import { refused } from "../registry/answer.ts"

/** One entry of an opencode-style `mcp` configuration. */
export type McpConfigEntry =
  | {
      readonly type: "remote"
      readonly url: string
      readonly headers?: Readonly<Record<string, string>> | undefined
      readonly enabled?: boolean | undefined
    }
  | {
      readonly type: "local"
      readonly command: ReadonlyArray<string>
      readonly environment?: Readonly<Record<string, string>> | undefined
      readonly enabled?: boolean | undefined
    }

/** An entry `mcpFromConfig` registered nothing for, and why. */
export interface NotSimulated {
  readonly name: string
  readonly reason: "local" | "disabled" | "invalid-url"
  readonly message: string
}

/**
 * The routes of `mcpFromConfig`: an array to hand to `register`, and `notSimulated`, the entries
 * it simulates no server for (local stdio servers run as processes, not over the network;
 * disabled entries; entries whose URL does not parse).
 */
export type McpConfigRoutes = ReadonlyArray<Route> & { readonly notSimulated: ReadonlyArray<NotSimulated> }

/**
 * The route that stands for an entry simnet does not simulate, so the route listing (and
 * `GET network/routes`, the inspector, `simnet serve`'s banner) shows it: id `mcp:NAME`, a match
 * that says why (`(not simulated: local) stdio: uvx`; arguments, which may carry keys, are left out), `simulated: false` with `reason`
 * and `message`. It matches no request and is never named as a nearest candidate.
 */
const notSimulatedRoute = (entry: NotSimulated, shown: string): Route => {
  const failed = new RouteFailed({ route: `mcp:${entry.name}`, reason: "unsimulated", message: entry.message })
  const route = make(
    "mcp",
    { url: () => false },
    {
      answer: () => refused(failed),
      describe: {
        server: entry.name,
        mode: "not simulated",
        simulated: false,
        reason: entry.reason,
        message: entry.message
      }
    },
    { id: `mcp:${entry.name}`, source: "mcpFromConfig" }
  )
  return withFields(route, { matcher: matchNothing(`(not simulated: ${entry.reason}) ${shown}`) })
}

/**
 * One `Route.mcp` per remote entry of an opencode-style `mcp` configuration, at the entry's URL
 * (its origin and path; query parameters, which may carry keys, are not part of the match) with
 * the route id `mcp:NAME`, served from `servers[NAME]` (an empty server named after the entry
 * when none is given). Local (stdio), disabled and unparsable entries are not simulated, and not
 * skipped silently: each is listed in `notSimulated`, and the array holds a route for each that
 * matches nothing but shows in the route listing as `simulated: false` with the reason (see
 * `notSimulatedRoute`), so a fixture that names the family reports them too.
 *
 * @example
 * const routes = Routes.mcpFromConfig(config.mcp, { docs: { name: "docs", version: "1.0.0", tools } })
 * await network.register(routes)
 * routes.notSimulated // [{ name: "git", reason: "local", message: "..." }]
 */
export const mcpFromConfig = (
  config: Readonly<Record<string, McpConfigEntry>>,
  servers: Readonly<Record<string, McpServerDefinition>> = {}
): McpConfigRoutes => {
  const routes: Array<Route> = []
  const notSimulated: Array<NotSimulated> = []
  for (const [name, entry] of Object.entries(config)) {
    const skip = (reason: NotSimulated["reason"], message: string, shown: string) => {
      const entry = { name, reason, message }
      notSimulated.push(entry)
      routes.push(notSimulatedRoute(entry, shown))
    }
    const shown = entry.type === "local" ? `stdio: ${entry.command[0] ?? ""}` : redactedUrl(entry.url)
    if (entry.enabled === false) {
      skip("disabled", `mcp server "${name}" is disabled in the configuration`, shown)
    } else if (entry.type === "local") {
      skip(
        "local",
        `mcp server "${name}" is local (runs ${JSON.stringify(entry.command[0] ?? "")} over stdio); simnet simulates network servers only`,
        shown
      )
    } else if (!URL.canParse(entry.url)) {
      skip("invalid-url", `mcp server "${name}" has a URL that does not parse`, "")
    } else {
      const url = new URL(entry.url)
      routes.push(
        mcpRoute({ url: `${url.origin}${url.pathname}` }, servers[name] ?? { name, version: "0.0.0" }, {
          id: `mcp:${name}`,
          source: "mcpFromConfig"
        })
      )
    }
  }
  return Object.assign(routes, { notSimulated })
}

/** A configured URL as the listing shows it: origin and path (query parameters may carry keys). */
const redactedUrl = (url: string): string => {
  if (!URL.canParse(url)) return ""
  const parsed = new URL(url)
  return `${parsed.origin}${parsed.pathname}`
}

/** One search result. */
export interface SearchResult {
  readonly title: string
  readonly url: string
  readonly text: string
}

/**
 * Options of `websearch` and `codesearch`.
 * - `results`: pinned results per query (exact query text); other queries get seeded results.
 * - `url`: the endpoint (default Exa's hosted `https://mcp.exa.ai/mcp`).
 * - `id`: the route id (default `websearch` / `codesearch`).
 */
export interface SearchOptions {
  readonly results?: Readonly<Record<string, ReadonlyArray<SearchResult>>> | undefined
  readonly url?: string | undefined
  readonly id?: string | undefined
}

/** Exa's hosted MCP endpoint. */
export const EXA_URL = "https://mcp.exa.ai/mcp"

const WebSearchInput = Schema.Struct({
  query: Schema.String,
  numResults: Schema.optional(Schema.Int.check(Schema.isBetween({ minimum: 1, maximum: 100 }))),
  type: Schema.optional(Schema.Literals(["auto", "fast", "deep"])),
  livecrawl: Schema.optional(Schema.Literals(["fallback", "preferred"])),
  contextMaxCharacters: Schema.optional(Schema.Number)
})

const CodeSearchInput = Schema.Struct({
  query: Schema.String,
  tokensNum: Schema.optional(Schema.Union([Schema.Number, Schema.String]))
})

const WEB_SITES: ReadonlyArray<readonly [string, string]> = [
  ["en.wikipedia.org", "wiki"],
  ["developer.mozilla.org", "en-US/docs"],
  ["stackoverflow.com", "questions"],
  ["medium.com", "@engineering"],
  ["dev.to", "posts"],
  ["news.ycombinator.com", "item"],
  ["www.reddit.com", "r/programming/comments"],
  ["blog.cloudflare.com", "posts"]
]

const CODE_SITES: ReadonlyArray<readonly [string, string]> = [
  ["github.com", "blob/main/src"],
  ["docs.rs", "latest"],
  ["effect.website", "docs"],
  ["nodejs.org", "api"],
  ["stackoverflow.com", "questions"]
]

const TITLE_FORMS = [
  (q: string) => `${q}: a practical guide`,
  (q: string) => `Understanding ${q}`,
  (q: string) => `${q} — documentation`,
  (q: string) => `How to get started with ${q}`,
  (q: string) => `${q} explained with examples`,
  (q: string) => `Common pitfalls with ${q}`
]

const SENTENCES = [
  (q: string) => `This article walks through ${q} step by step, from the basics to production use.`,
  (q: string) => `Most teams adopt ${q} to reduce boilerplate and make failures explicit.`,
  (q: string) => `The examples below show how ${q} behaves under load and how to test it.`,
  (q: string) => `We compare the trade-offs of ${q} with the approaches it replaces.`,
  (_q: string) => `A short checklist at the end summarises what to verify before shipping.`,
  (q: string) => `Readers asked how ${q} interacts with existing tooling; the answer is in the last section.`
]

const slug = (text: string) =>
  text
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "-")
    .replace(/^-|-$/g, "")
    .slice(0, 60) || "result"

const pick = <A>(items: ReadonlyArray<A>, seed: number, salt: string): A =>
  items[hashString(`${seed}\u0000${salt}`) % items.length]

/** Seeded results for a query: realistic titles, URLs and text, a pure function of seed and query. */
const seededResults = (query: string, count: number, seed: number, code: boolean): ReadonlyArray<SearchResult> =>
  Array.from({ length: count }, (_, i) => {
    const [host, base] = pick(code ? CODE_SITES : WEB_SITES, seed, `site${i}`)
    const id = (hashString(`${seed}\u0000id${i}`) % 90_000_000) + 10_000_000
    const title = pick(TITLE_FORMS, seed, `title${i}`)(query)
    const sentences = [0, 1, 2].map((k) => pick(SENTENCES, seed, `text${i}.${k}`)(query))
    const text = code
      ? `${sentences[0]}\n\n\`\`\`ts\n// ${query}\nexport const example${i} = (input: string) => input.trim()\n\`\`\``
      : sentences.join(" ")
    return { title, url: `https://${host}/${base}/${code ? "" : `${id}/`}${slug(query)}`, text }
  })

const renderWeb = (results: ReadonlyArray<SearchResult>) =>
  results.map((r) => `Title: ${r.title}\nURL: ${r.url}\nText: ${r.text}`).join("\n\n")

const renderCode = (query: string, results: ReadonlyArray<SearchResult>) =>
  [`## Code context for: ${query}`, ...results.map((r) => `### ${r.title}\nSource: ${r.url}\n\n${r.text}`)].join("\n\n")

const searchRoute = (tool: string, options: SearchOptions, defaultId: string, code: boolean): Route => {
  const url = options.url ?? EXA_URL
  const pinned = options.results ?? {}
  const server: McpServerDefinition = {
    name: "exa-search",
    version: "3.0.0",
    stateless: true,
    sse: "always",
    tools: [
      code
        ? {
            name: tool,
            description: "Search code examples, documentation and API references for a programming question.",
            input: CodeSearchInput,
            handler: (args: typeof CodeSearchInput.Type, context) => {
              const results = pinned[args.query] ?? seededResults(args.query, 3, context.seed, true)
              return renderCode(args.query, results)
            }
          }
        : {
            name: tool,
            description: "Search the web and return the text of the most relevant pages.",
            input: WebSearchInput,
            handler: (args: typeof WebSearchInput.Type, context) =>
              renderWeb(
                pinned[args.query] ?? seededResults(args.query, Math.min(args.numResults ?? 8, 10), context.seed, false)
              )
          }
    ]
  }
  const id = options.id ?? defaultId
  const match = { method: "POST", url, body: { method: "tools/call", params: { name: tool } } }
  return mcpRoute(match, server, { id, source: defaultId })
}

/**
 * The hosted web search coding agents call (Exa's `web_search_exa` at `https://mcp.exa.ai/mcp`):
 * a stateless MCP endpoint answering one `tools/call` without a session, as `text/event-stream`,
 * with seeded, realistic results (`Title:`, `URL:`, `Text:` blocks in `result.content[0].text`).
 * Pin the results of a query with `results`. The route matches calls of `web_search_exa` only, so
 * it sits beside `codesearch()` on the same endpoint.
 */
export const websearch = (options: SearchOptions = {}): ReadonlyArray<Route> => [
  searchRoute("web_search_exa", options, "websearch", false)
]

/**
 * The hosted code search coding agents call (Exa's `get_code_context_exa` at
 * `https://mcp.exa.ai/mcp`), like `websearch`: seeded code context with sources, pinnable per
 * query. The route matches calls of `get_code_context_exa` only.
 */
export const codesearch = (options: SearchOptions = {}): ReadonlyArray<Route> => [
  searchRoute("get_code_context_exa", options, "codesearch", true)
]
