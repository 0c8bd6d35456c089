/**
 * The request class of simnet's Node servers reads `headers` as Node's own `IncomingMessage`
 * does: the same object (keys, their order, values, repeats joined, dropped or gathered by
 * Node's rules) for any lines a client sends, one request after another (the names kept from
 * the last request are taken only where they were sent alike).
 */
import * as http from "node:http"
import { Socket } from "node:net"
import fc from "fast-check"
import { describe, expect, it } from "vitest"
import { doorIncomingMessage } from "../src/doors/incoming.ts"

type Lines = Array<string>
const DoorIncoming = doorIncomingMessage(http)
/** The socket every message here is read on (never connected: a message keeps no more of it). */
const socket = new Socket()

/** What a message of `Class` reads from the parser's `lines`, as the parser hands them. */
const read = (Class: typeof http.IncomingMessage, lines: Lines) => {
  const message = new Class(socket) as http.IncomingMessage & { _addHeaderLines: (lines: Lines, n: number) => void }
  message._addHeaderLines(lines, lines.length)
  const headers = message.headers
  return {
    headers,
    keys: Object.keys(headers),
    prototype: Object.getPrototypeOf(headers),
    again: message.headers === headers
  }
}

const NAMES = [
  "Host",
  "host",
  "HOST",
  "Content-Type",
  "content-type",
  "Set-Cookie",
  "set-cookie",
  "Cookie",
  "cookie",
  "Authorization",
  "authorization",
  "X-Tag",
  "x-tag",
  "Accept",
  "accept",
  "User-Agent",
  "Expect",
  "Content-Length",
  "__proto__",
  "constructor",
  "toString",
  "hasOwnProperty",
  "Transfer-Encoding",
  "x-stainless-os",
  "anthropic-version"
]
const name = fc.oneof(fc.constantFrom(...NAMES), fc.stringMatching(/^[!#$%&'*+.^_`|~0-9A-Za-z-]{1,12}$/))
const lines = fc.array(fc.tuple(name, fc.string({ maxLength: 8 })), { maxLength: 24 }).map((pairs) => pairs.flat())

describe("the Node door's request headers", () => {
  it("are Node's own, for any lines, request after request", () => {
    fc.assert(
      fc.property(fc.array(lines, { minLength: 1, maxLength: 6 }), (requests) => {
        for (const sent of requests) expect(read(DoorIncoming, sent)).toEqual(read(http.IncomingMessage, sent))
      }),
      { numRuns: 400 }
    )
  })

  it("take the last request's names only where they were sent alike", () => {
    const sdk = ["host", "127.0.0.1", "Accept", "application/json", "x-stainless-os", "Linux", "content-length", "12"]
    const cases: Array<Lines> = [
      sdk,
      sdk,
      ["host", "127.0.0.1", "ACCEPT", "text/plain", "x-stainless-os", "Mac", "content-length", "3"],
      ["host", "127.0.0.1", "accept", "a", "accept", "b"],
      ["host", "127.0.0.1", "Set-Cookie", "a=1"],
      ["host", "127.0.0.1", "Accept", "application/json"],
      sdk
    ]
    for (const sent of cases) expect(read(DoorIncoming, sent)).toEqual(read(http.IncomingMessage, sent))
    expect(read(DoorIncoming, cases[3]).headers).toEqual({ host: "127.0.0.1", accept: "a, b" })
    expect(read(DoorIncoming, cases[4]).headers).toEqual({ host: "127.0.0.1", "set-cookie": ["a=1"] })
  })

  it("can be set, as Node's can", () => {
    const message = new DoorIncoming(socket)
    message.headers = { a: "1" }
    expect(message.headers).toEqual({ a: "1" })
  })
})
