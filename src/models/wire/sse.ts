/**
 * Server-sent events as the model APIs write them: a frame of JSON data, one with an event name, a
 * frame cut off halfway (what a writer's `malformed` sends), and a driver's raw chunk as one event
 * of its API.
 */

/**
 * An SSE frame of JSON data and no event name (`data: JSON`, then the blank line), as Chat
 * Completions writes every event.
 */
export const dataFrame = (value: unknown): string => `data: ${JSON.stringify(value)}\n\n`

/**
 * An SSE frame with an event name (`event: NAME` then `data: JSON`).
 */
export const namedFrame = (event: string, value: unknown): string =>
  `event: ${event}\ndata: ${JSON.stringify(value)}\n\n`

/**
 * A frame cut off halfway through its JSON, as a truncated write leaves it: what every writer's
 * `malformed` sends, named (`event: NAME`) for the APIs that name their events, with the line
 * ending its API uses.
 */
export const truncatedFrame = (value: unknown, event?: string, newline = "\n"): string => {
  const whole = JSON.stringify(value)
  return `${event === undefined ? "" : `event: ${event}${newline}`}data: ${whole.slice(0, Math.floor(whole.length / 2))}${newline}${newline}`
}

/**
 * The SSE frame of a driver's raw chunk (`{type: "raw", chunk}`), passed through exactly as
 * given: `data: JSON` for the APIs whose events are unnamed (Chat Completions, Gemini); for the
 * APIs that name each event after its `type` (Responses, Anthropic), `event: TYPE` first when the
 * chunk has a string `type`.
 */
export const rawChunkFrame = (chunk: unknown, named: boolean): string => {
  const type =
    named && typeof chunk === "object" && chunk !== null ? (chunk as { readonly type?: unknown }).type : undefined
  return typeof type === "string" ? namedFrame(type, chunk) : dataFrame(chunk)
}
