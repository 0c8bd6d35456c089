/**
 * RouteSpec JSON: routes as data, the form fixture files, `network.registerSpec` and the control
 * endpoint take. A public face: decoding lives in `schemas/decode.ts`, each kind's part beside the
 * kind (`routes/KIND/KINDSpec.ts`).
 */
export { decodeRouteSpecs } from "./schemas/decode.ts"
export type { DecodeContext, DecodedRoutes, FamilyFactory } from "./schemas/decode.ts"
export type { KindContext } from "./routes/spec.ts"
