/**
 * simnet: a simulated network for Effect apps and their tests.
 */
export * as Route from "./Route.ts"
export * as RouteSpec from "./RouteSpec.ts"
export * from "./SimnetError.ts"
export { SimulationNetwork } from "./SimulationNetwork.ts"
export type { NetworkHandle, NetworkOptions, NetworkSnapshot, RouteInfo, SimulationNetworkApi } from "./SimulationNetwork.ts"
export type { RequestCounters, RequestRecord } from "./RequestLog.ts"
