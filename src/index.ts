/**
 * simnet: a simulated network for Effect apps and their tests.
 */
// First: on a Node too old, the import fails here, naming the version simnet needs.
import "./registry/version.ts"
export * as Fixture from "./Fixture.ts"
export * as Redaction from "./Redaction.ts"
export * as Route from "./Route.ts"
export * as Routes from "./Routes.ts"
export * as RouteSpec from "./RouteSpec.ts"
export * as Schemas from "./Schemas.ts"
export * from "./SimnetError.ts"
export { SimulationNetwork } from "./SimulationNetwork.ts"
export { CONTROL_BASE, type ControlRouter, SimulationControl } from "./SimulationNetwork.ts"
export {
  type FileContent,
  SimulationFileSystem,
  type SimulationFileSystemApi,
  type SimulationFileSystemOptions
} from "./SimulationFileSystem.ts"
export type {
  NetworkHandle,
  NetworkMetrics,
  NetworkOptions,
  NetworkSnapshot,
  RouteInfo,
  ScenarioInfo,
  SimulationNetworkApi
} from "./SimulationNetwork.ts"
export type { RequestCounters, RequestRecord } from "./registry/requestLog.ts"
export { DEFAULT_EPOCH, SimulatedProvider, SimulatedProviderApi } from "./models/provider/SimulatedProvider.ts"
export { McpServers, McpServersApi } from "./mcp-route/state.ts"
export type { McpServerView, McpSession } from "./mcp-route/state.ts"
export type {
  DriverFinish,
  LlmAnswer,
  LlmApi,
  LlmBehaviour,
  LlmFailure,
  LlmInvocation,
  LlmInvocationNotice,
  LlmLogEntry,
  LlmMatch,
  LlmReply,
  LlmRequest,
  LlmRule,
  LlmRuleOptions,
  LlmTurn,
  PendingInvocation,
  ProviderOptions,
  StreamFault
} from "./models/provider/SimulatedProvider.ts"
export type { LlmAction, LlmDriverItem, LlmScript } from "./schemas/llmScript.ts"
/** A model family a network can be given beyond simnet's own (`NetworkOptions.models`), and its APIs' wire. */
export type { ModelFamily, ModelWire } from "./models/wire/wire.ts"
export { decodeFixture, loadFixture } from "./Fixture.ts"
export { replayOver, replayTrace } from "./Trace.ts"
export type { ReplayStep, RequestReport, TraceReplay, TracedBody } from "./Trace.ts"
export type { GlobalOptions, RestoreGlobal } from "./doors/global.ts"
