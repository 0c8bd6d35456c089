/**
 * The request class of simnet's Node servers (`simnet serve` and the in-memory server behind
 * whole-process interception): Node's `IncomingMessage` with `headers` built the way Node builds
 * it, for less. Node's server reads `req.headers` (its `host` and `expect`) on every HTTP/1.1
 * request, so the object is made for each one; Node's own getter sorts every line through its
 * table of known names, which cost a served model call more than any other single step of Node's
 * (33k of its 200k user-space instructions, with the SDK's 19 header lines). The quick reading
 * gives the same object: each name lower-cased, in the order sent, each value as sent. Where Node's
 * rules would change anything (a name sent twice is joined, dropped or gathered by them; a
 * `set-cookie` is always an array) Node's own getter reads the lines instead.
 */
import type * as http from "node:http"

let made: typeof http.IncomingMessage | undefined

/** `node:http`'s `IncomingMessage` with the quick `headers`; made once. */
export const doorIncomingMessage = (node: typeof http): typeof http.IncomingMessage => {
  if (made !== undefined) return made
  const nodeHeaders = Object.getOwnPropertyDescriptor(node.IncomingMessage.prototype, "headers")?.get
  // A Node whose `headers` is not a getter of its own: left to build them its way.
  if (nodeHeaders === undefined) return (made = node.IncomingMessage)
  const HEADERS = Symbol("simnet.headers")
  type Held = http.IncomingMessage & { [HEADERS]?: http.IncomingHttpHeaders }
  class DoorIncomingMessage extends node.IncomingMessage {}
  Object.defineProperty(DoorIncomingMessage.prototype, "headers", {
    get(this: Held) {
      return (this[HEADERS] ??= quickHeaders(this.rawHeaders) ?? nodeHeaders.call(this))
    },
    set(this: Held, value: http.IncomingHttpHeaders) {
      this[HEADERS] = value
    }
  })
  return (made = DoorIncomingMessage)
}

/**
 * The headers of `raw` (name, value, name, value…) as Node reads them, or undefined when Node's
 * rules for a repeated name or `set-cookie` apply. A name seen twice leaves fewer keys than
 * lines, and so does a `__proto__` (an assignment that makes no key, in Node's reading too).
 *
 * A client sends the same names in the same order request after request, and a name the
 * parser made is a new string each time, which an object's key must first be looked up as: the
 * names of the last request read are kept, as sent and lower-cased, and a name sent as it was
 * then takes the key it took then (a key already looked up, and an object the shape of the last).
 */
const quickHeaders = (raw: ReadonlyArray<string>): http.IncomingHttpHeaders | undefined => {
  const out: Record<string, string> = {}
  for (let i = 0; i < raw.length; i += 2) {
    const sent = raw[i]
    const at = i >> 1
    let name = at < sentNames.length && sentNames[at] === sent ? keyNames[at] : undefined
    if (name === undefined) {
      name = sent.toLowerCase()
      if (name === "set-cookie") return undefined
      if (at < KEPT_NAMES) {
        sentNames[at] = sent
        keyNames[at] = name
      }
    }
    out[name] = raw[i + 1]
  }
  return Object.keys(out).length * 2 === raw.length ? out : undefined
}

/**
 * The names of the last request read, as sent and as keys (`set-cookie` never among them): names
 * only, never a value, and no more than Node's header size limit lets a request send.
 */
const sentNames: Array<string> = []
const keyNames: Array<string> = []
/** The most names kept of a request. */
const KEPT_NAMES = 64
