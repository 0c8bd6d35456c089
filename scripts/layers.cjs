/**
 * The layers of simnet, bottom first: the folders under `src/`, each importing only the ones
 * before it. Read by `.dependency-cruiser.cjs` (the rules) and `scripts/look.ts` (the picture).
 *
 * registry  the network's registry: route table, matching, dispatch to one `Answer`, the request
 *           log, refusals, chaos, seeds, redaction; the utilities every floor shares
 * fileSystem files in memory (SimulationFileSystem's store) and on disk (workspaces, safe writes)
 * terminal  a program in a pseudo-terminal, its screen as a person sees it (issue 36)
 * doors     the ways a request comes in and its answer goes out: fetch, HttpClient, the Node server's
 *           door, whole-process interception and its guard
 * routes    the route kinds, one folder each (static, handler, fault, loopback, jsonSchema, openapi,
 *           webSocket), and what every kind shares (make)
 * mcp-route the MCP route kind
 * schemas   the public Schemas (family shapes, LLM script, driver, options, RouteSpec) and RouteSpec
 *           decoding
 * models    the simulated model (provider/), the kit its APIs share (wire/), one folder per API
 * families  the presets a user names
 * network   the network assembled; fixtures, snapshots, HAR out and in, record mode (record/)
 * testing   the kit of simnet/testing (arbitraries, hostile values, property): no terminal, no server
 * control   the control endpoint, the driver socket, ui.*, the trace, the inspector, the control plane
 *           beside a served network (runtime), the agents' MCP tools
 * serve     serving a network to other processes: the loopback server, its proxy and CA, the child of
 *           simnet run, the sealed room
 * explore   simnet explore: a program in a terminal under generated actions
 * cli       the commands, one file each, and the flags they share
 */
module.exports = [
  "registry",
  "fileSystem",
  "terminal",
  "doors",
  "routes",
  "mcp-route",
  "schemas",
  "models",
  "families",
  "network",
  "testing",
  "control",
  "serve",
  "explore",
  "cli"
]
