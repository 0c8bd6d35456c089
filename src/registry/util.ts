/**
 * Small helpers the whole package shares, each written once.
 */

/**
 * Whether a value is a JSON object (not null, not an array).
 */
export const isJsonObject = (u: unknown): u is Record<string, unknown> => typeof u === "object" && u !== null && !Array.isArray(u)

/**
 * Statuses whose responses carry no body: a WHATWG `Response` with a body and one of these throws.
 */
export const NULL_BODY_STATUSES: ReadonlySet<number> = new Set([204, 205, 304])

/**
 * A URL path without its trailing slash (`/a/` → `/a`; `/` stays `/`), the form routes are filed
 * and compared under.
 */
export const normalizePath = (path: string): string => (path.length > 1 && path.endsWith("/") ? path.slice(0, -1) : path)

/**
 * The message of a thrown value: an `Error`'s message, anything else as a string.
 */
export const errorMessage = (error: unknown): string => (error instanceof Error ? error.message : String(error))
