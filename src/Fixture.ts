/**
 * Fixture files: routes as RouteSpec JSON, model scripts and rules, read and checked before
 * anything registers. A public face: reading lives in `network/fixture.ts`.
 */
export * from "./network/fixture.ts"
