/**
 * Replay traces, as a public face: `simnet serve --trace FILE` writes one (JSON lines: the start
 * state, every control change, every request with its route, outcome, headers and body, with
 * credentials redacted), `replayTrace` reads it back, and `replayOver` sends it to a fresh server,
 * which answers the same requests with the same bodies.
 *
 * @example
 * const replay = replayTrace(readFileSync("trace.jsonl", "utf8"))
 * const answers = await replayOver(replay, "http://127.0.0.1:4747")
 */
export { replayOver, replayTrace } from "./control/replay.ts"
export type { ReplayStep, RequestReport, TraceReplay, TracedBody } from "./control/replay.ts"
