/**
 * RouteSpec JSON: routes as data, the form fixture files, `network.registerSpec` and the control
 * endpoint take. A public face: decoding lives in `routeSpec/`.
 */
export { decodeRouteSpecs } from "./routeSpec/decode.ts"
export type { DecodeContext, DecodedRoutes, FamilyFactory } from "./routeSpec/decode.ts"
export type { KindContext } from "./routeSpec/kind.ts"
