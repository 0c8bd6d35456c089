/**
 * The shapes a network's log and route listing are read in: `RequestRecord`, `RequestCounters`,
 * `RouteInfo`. Types only, so that code beside the network (the control plane, the inspector)
 * can name them without importing the network itself.
 */
export type { RequestCounters, RequestRecord, RequestViolation } from "./registry/requestLog.ts"
export type { RouteInfo } from "./registry/network.ts"
