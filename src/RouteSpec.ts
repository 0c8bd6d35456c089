/**
 * RouteSpec JSON: routes as data, the form fixture files, `network.registerSpec` and the control
 * endpoint take. A public face: decoding lives in `spec/`.
 */
export { decodeRouteSpecs } from "./spec/decode.ts"
export type { DecodeContext, DecodedRoutes, FamilyFactory } from "./spec/decode.ts"
export type { KindContext } from "./spec/kind.ts"
