/**
 * RouteSpec JSON: routes as data, the form fixture files, `network.registerSpec` and the control
 * endpoint take. A public face: decoding lives in `spec/`.
 */
export * from "./spec/decode.ts"
