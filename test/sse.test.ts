/**
 * The `sse` route kind (issue 58), judged by the `eventsource` package (the WHATWG EventSource for
 * Node): through `network.fetch` (its `fetch` option) and through `simnet serve` on loopback, a
 * reconnect that sends `Last-Event-ID` resumes after it, chaos that cuts the stream mid-way is
 * resumed the same way, pacing runs on `TestClock`, a handler answers with `Route.eventStream`, and
 * bad events are refused at registration naming their index.
 */
import { describe, expect, it } from "@effect/vitest"
import { afterAll } from "vitest"
import { Effect, Fiber, Stream } from "effect"
import { TestClock } from "effect/testing"
import { EventSource } from "eventsource"
import { Route, SimulationNetwork } from "simnet"
import { serve, stopAll } from "./support/serve.ts"

afterAll(stopAll)

const URL_ = "https://api.example.com/events"

const events = Array.from({ length: 6 }, (_, i) => ({
  event: i % 2 === 0 ? "progress" : "message",
  data: { step: i + 1 },
  id: String(i + 1)
}))

interface Seen {
  readonly type: string
  readonly data: string
  readonly lastEventId: string
}

/**
 * Reads an event source until the server tells it to stop (`204` after the last event: the
 * source closes) or `count` events came; every connection it opened is counted.
 */
const readAll = (source: EventSource, count: number): Promise<ReadonlyArray<Seen>> =>
  new Promise((resolve, reject) => {
    const seen: Array<Seen> = []
    const take = (event: MessageEvent) => {
      seen.push({ type: event.type, data: event.data as string, lastEventId: event.lastEventId })
      if (seen.length === count) {
        source.close()
        resolve(seen)
      }
    }
    source.addEventListener("progress", take)
    source.addEventListener("message", take)
    source.addEventListener("error", () => {
      if (source.readyState === EventSource.CLOSED) resolve(seen)
    })
    setTimeout(() => reject(new Error(`only ${seen.length} events came`)), 30_000).unref()
  })

describe("Route.sse", () => {
  it("EventSource reads every event, named and with its id, through network.fetch; its reconnect after the last id gets 204 and stops", async () => {
    const network = await SimulationNetwork.start({ routes: [Route.sse(URL_, events, { retry: 5, id: "feed" })] })
    const source = new EventSource(URL_, { fetch: network.fetch })
    const seen = await readAll(source, 100)
    expect(seen).toEqual(events.map((e) => ({ type: e.event, data: JSON.stringify(e.data), lastEventId: e.id })))
    const log = await network.log()
    expect(log.map((r) => [r.status, r.route?.id])).toEqual([
      [200, "feed"],
      [204, "feed"]
    ])
    expect(log[1].headers["last-event-id"]).toBe("6")
    await network.close()
  })

  it("a stream chaos cuts mid-way is resumed after the last whole event, the same way for the same seed", async () => {
    const run = async () => {
      const network = await SimulationNetwork.start({
        seed: 7,
        chaos: { rate: 1, faults: ["streamCut"], routes: ["feed"] },
        routes: [Route.sse(URL_, events, { retry: 1, id: "feed" })]
      })
      const seen = await readAll(new EventSource(URL_, { fetch: network.fetch }), events.length)
      const ids = (await network.log()).map((r) => r.headers["last-event-id"] ?? "-")
      await network.close()
      return { seen, ids }
    }
    const first = await run()
    expect(first.seen.map((e) => e.lastEventId)).toEqual(["1", "2", "3", "4", "5", "6"])
    // More than one connection: each was cut, and each reconnect named the last event it had whole.
    expect(first.ids.length).toBeGreaterThan(1)
    expect(first.ids[0]).toBe("-")
    expect(await run()).toEqual(first)
  })

  it("through simnet serve: EventSource on loopback, a reconnect with Last-Event-ID resumes after it", async () => {
    const served = await serve(["--quiet"])
    const registered = await served.post("network/register", {
      id: "feed",
      match: `GET ${URL_}`,
      respond: { kind: "sse", retryMs: 5, events }
    })
    expect(registered.status).toBe(201)
    const url = `${served.base}/api.example.com/events`
    const seen = await readAll(new EventSource(url), 100)
    expect(seen.map((e) => e.lastEventId)).toEqual(["1", "2", "3", "4", "5", "6"])
    const resumed = await fetch(url, { headers: { "last-event-id": "4" } })
    expect(resumed.headers.get("content-type")).toBe("text/event-stream; charset=utf-8")
    expect(await resumed.text()).toBe(
      'retry: 5\n\nid: 5\nevent: progress\ndata: {"step":5}\n\nid: 6\ndata: {"step":6}\n\n'
    )
  })

  it.effect("interval paces the events on the Clock: TestClock moves them, no wall clock", () =>
    Effect.gen(function* () {
      const network = yield* SimulationNetwork.make({
        routes: [
          Route.sse(URL_, [{ data: "a" }, { data: "b" }, { data: "c", delay: "2 seconds" }], { interval: "1 second" })
        ]
      })
      const response = yield* Effect.promise(() => network.fetch(URL_))
      const reader = response.body!.getReader()
      const decoder = new TextDecoder()
      let text = ""
      const readOne = Effect.promise(() => reader.read()).pipe(
        Effect.map((chunk) => (text += chunk.done ? "" : decoder.decode(chunk.value)))
      )
      yield* readOne
      expect(text).toBe("data: a\n\n")
      const next = yield* Effect.forkChild(readOne)
      yield* TestClock.adjust("999 millis")
      yield* Effect.promise(() => new Promise<void>((resolve) => setImmediate(resolve)))
      expect(text).toBe("data: a\n\n")
      yield* TestClock.adjust("1 millis")
      yield* Fiber.join(next)
      expect(text).toBe("data: a\n\ndata: b\n\n")
      const last = yield* Effect.forkChild(readOne)
      yield* TestClock.adjust("2 seconds")
      yield* Fiber.join(last)
      expect(text).toBe("data: a\n\ndata: b\n\ndata: c\n\n")
    })
  )

  it("a handler answers with an event stream from an Effect Stream or an array", async () => {
    const network = await SimulationNetwork.start({
      routes: [
        Route.handler("GET https://api.example.com/stream", () =>
          Route.eventStream(Stream.make({ data: "one", id: "1" }, { data: { two: 2 }, event: "tick" }), { retry: 250 })
        ),
        Route.handler("GET https://api.example.com/array", (request) =>
          Route.eventStream([{ data: `for ${request.headers.get("last-event-id") ?? "a new client"}` }])
        )
      ]
    })
    const streamed = await network.fetch("https://api.example.com/stream")
    expect(streamed.headers.get("content-type")).toBe("text/event-stream; charset=utf-8")
    expect(await streamed.text()).toBe('retry: 250\n\nid: 1\ndata: one\n\nevent: tick\ndata: {"two":2}\n\n')
    const source = new EventSource("https://api.example.com/array", { fetch: network.fetch })
    const [first] = await readAll(source, 1)
    expect(first.data).toBe("for a new client")
    await network.close()
  })

  it("an event without data, an id that breaks its line or a bad interval is refused at registration, naming the place; nothing is registered", async () => {
    const network = await SimulationNetwork.start()
    const refused = (routes: ReadonlyArray<Route.Route>) =>
      network.register(routes).then(
        () => undefined,
        (error: { _tag: string; path: string }) => [error._tag, error.path]
      )
    expect(
      await refused([
        Route.text("GET https://a.example/ok", "ok"),
        Route.sse(URL_, [{ data: "a" }, { event: "x" } as never])
      ])
    ).toEqual(["InvalidRouteSpec", "[1].respond.events[1].data"])
    expect(await refused([Route.sse(URL_, [{ data: "a", id: "1\n2" }])])).toEqual([
      "InvalidRouteSpec",
      "[0].respond.events[0].id"
    ])
    expect(await refused([Route.sse(URL_, [{ data: "a" }], { interval: -1 })])).toEqual([
      "InvalidRouteSpec",
      "[0].respond.interval"
    ])
    const spec = await network
      .registerSpec([{ match: `GET ${URL_}`, respond: { kind: "sse", events: [{ data: 1 }, { id: "2" }] } }])
      .then(
        () => undefined,
        (error: { path: string }) => error.path
      )
    expect(spec).toBe("[0].respond.events[1].data")
    expect(await network.routes()).toEqual([])
    await network.close()
  })

  it('DESIGN\'s shorthand { "sse": { events } }, inside respond or beside match, is the same route as { kind: "sse" }', async () => {
    const network = await SimulationNetwork.start()
    await network.registerSpec([
      { match: "GET https://a.example/s", respond: { sse: { events: [{ data: "one", id: "1" }] } } },
      { match: "GET https://b.example/s", sse: { events: [{ event: "tick", data: "two" }] } }
    ])
    expect(await (await network.fetch("https://a.example/s")).text()).toBe("id: 1\ndata: one\n\n")
    expect(await (await network.fetch("https://b.example/s")).text()).toBe("event: tick\ndata: two\n\n")
    await network.close()
  })
})
