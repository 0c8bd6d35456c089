/**
 * Routes: what answers a request. Each kind has a constructor here (`text`, `json`, `bytes`,
 * `status`, `handler`, `fault`, `loopback`, `mcp`); `make` builds a route of any kind from its
 * parts. A public face: the kinds live in `routes/`.
 */
export * from "./routes/kinds.ts"
