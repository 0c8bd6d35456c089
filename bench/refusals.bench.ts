/**
 * What a refused request costs a model SDK at its default retry settings, in process: the
 * `openai` SDK against a network that rejects as undici does (`refusals: "reject"`, the default)
 * and one that answers `simnet serve`'s 502 (`refusals: "502"`). How many attempts reached the
 * network, how long until the SDK gave up, and the error it threw. Three runs each.
 */
import OpenAI from "openai"
import { SimulationNetwork } from "../src/index.ts"

console.log("\na refused request through the openai SDK, default retries (3 runs)")
for (const refusals of ["reject", "502"] as const) {
  const times: Array<number> = []
  let attempts = 0
  let thrown = ""
  for (let i = 0; i < 3; i++) {
    const network = await SimulationNetwork.start({ refusals })
    const client = new OpenAI({
      apiKey: "sk-test",
      baseURL: "https://api.nowhere.example/v1",
      fetch: network.fetch,
      logLevel: "off"
    })
    const started = performance.now()
    const error = await client.chat.completions
      .create({ model: "gpt-4o", messages: [{ role: "user", content: "hi" }] })
      .then(
        () => undefined,
        (e: unknown) => e
      )
    times.push(performance.now() - started)
    attempts = network.log().length
    thrown = error instanceof Error ? `${error.constructor.name}: ${error.message.slice(0, 70)}` : String(error)
    await network.close()
  }
  console.log(
    `  refusals: ${refusals.padEnd(6)}  ${attempts} attempt${attempts === 1 ? " " : "s"}  ${times.map((t) => `${t.toFixed(0)} ms`).join(" / ")}  ${thrown}`
  )
}
