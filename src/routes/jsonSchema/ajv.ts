/**
 * Ajv and its formats, loaded on first use rather than with simnet (about 35 ms together): a
 * network that never validates an OpenAPI request nor registers a JSON Schema from data never
 * loads them. Ajv ships CommonJS, so the callers stay synchronous.
 */
import { createRequire } from "node:module"
import type * as Ajv2020Module from "ajv/dist/2020.js"
import type * as AjvModule from "ajv"
import type FormatsPlugin from "ajv-formats"

const require = createRequire(import.meta.url)

/** Ajv for JSON Schema draft 2020-12. */
export const ajv2020 = (): typeof Ajv2020Module.Ajv2020 => (require("ajv/dist/2020.js") as typeof Ajv2020Module).Ajv2020

/** Ajv for JSON Schema draft-07 (its default dialect). */
export const ajvDraft07 = (): typeof AjvModule.Ajv => (require("ajv") as typeof AjvModule).Ajv

/** The `ajv-formats` plugin. */
export const ajvFormats = (): typeof FormatsPlugin => {
  const module = require("ajv-formats") as { default?: typeof FormatsPlugin } & typeof FormatsPlugin
  return module.default ?? module
}
