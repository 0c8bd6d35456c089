/**
 * simnet: a simulated network for Effect apps and their tests.
 */
export * as Route from "./Route.ts"
export * as Routes from "./Routes.ts"
export * as RouteSpec from "./RouteSpec.ts"
export * as Schemas from "./schemas/index.ts"
export * from "./SimnetError.ts"
export { SimulationNetwork } from "./SimulationNetwork.ts"
export type { NetworkHandle, NetworkOptions, NetworkSnapshot, RouteInfo, SimulationNetworkApi } from "./SimulationNetwork.ts"
export type { RequestCounters, RequestRecord } from "./RequestLog.ts"
export type { McpServers, McpServerView, McpSession } from "./mcp-route/state.ts"
export { SimulatedProvider } from "./provider/SimulatedProvider.ts"
export type {
  LlmAnswer,
  LlmBehaviour,
  LlmFailure,
  LlmInvocationNotice,
  LlmLogEntry,
  LlmMatch,
  LlmRequest,
  LlmRuleOptions,
  PendingInvocation,
  StreamFault
} from "./provider/SimulatedProvider.ts"
export type { LlmScript, LlmAction, LlmDriverItem } from "./schemas/llmScript.ts"
export { decodeFixture, loadFixture, type Fixture } from "./Fixture.ts"
