/**
 * GraphQL generation (issue 58): a `graphql` route's answer — parse, validate, bound and execute
 * the query with seeded, realistic values — against the floor of a hand-written graphql-js server
 * (`parse`, `validate` and `execute` over the same schema with constant resolvers), at equal
 * selection sets (lists of the same length, every leaf answered), in the same process,
 * interleaved, best of three rounds; then the same route answered through `fetch`.
 *
 * `npm run bench -- graphql` (`--quick` for shorter runs).
 */
import { buildSchema, execute, parse, validate } from "graphql"
import { makeSimRequest } from "../src/registry/request.ts"
import type { RespondContext } from "../src/registry/route.ts"
import { answerGraphql, compileGraphql } from "../src/routes/graphql/engine.ts"
import { Route, SimulationNetwork } from "../src/index.ts"
import { type Measure, measure, report } from "./harness.ts"

const quick = process.argv.includes("--quick")
const minMs = quick ? 300 : 1_000
const LIST = 5

const SDL = `
  enum Role { ADMIN EDITOR VIEWER }
  type User { id: ID!, name: String!, email: String!, role: Role!, createdAt: String!, age: Int, friends: [User!]!, posts: [Post!]! }
  type Post { id: ID!, title: String!, score: Float!, published: Boolean! }
  type Query { users: [User!]! }
`
const QUERY = `query Team { users { id name email role createdAt age friends { id name email } posts { id title score published } } }`
const URL_ = "https://api.example.com/graphql"

/** The floor: a graphql-js server with constant resolvers, lists of the same length. */
const floorSchema = buildSchema(SDL)
const post = { id: "p1", title: "Release notes", score: 4.5, published: true }
const friend = {
  id: "u2",
  name: "Grace Hopper",
  email: "grace@example.com",
  role: "EDITOR",
  createdAt: "2024-01-02T03:04:05Z",
  age: 40,
  friends: [],
  posts: []
}
const user = {
  id: "u1",
  name: "Ada Lovelace",
  email: "ada@example.com",
  role: "ADMIN",
  createdAt: "2024-01-02T03:04:05Z",
  age: 36,
  friends: Array(LIST).fill(friend),
  posts: Array(LIST).fill(post)
}
const floorRoot = { users: Array(LIST).fill(user) }

const floor = () => {
  const document = parse(QUERY)
  if (validate(floorSchema, document).length > 0) throw new Error("the floor's query is not valid")
  return JSON.stringify(execute({ schema: floorSchema, document, rootValue: floorRoot }))
}

const compiled = compileGraphql({ schema: SDL, listSize: { min: LIST, max: LIST } })
if (!("schema" in compiled)) throw compiled
const body = JSON.stringify({ query: QUERY })
const context = (seed: number): RespondContext => ({
  identity: "bench",
  seed,
  occurrence: 0,
  runSeed: 0,
  services: undefined as never,
  run: () => Promise.reject(new Error("not used"))
})

/** simnet's engine alone: the request read, the query checked and answered with generated values. */
const engine = (i: number) => {
  const request = makeSimRequest({
    method: "POST",
    url: URL_,
    headers: { "content-type": "application/json", accept: "application/graphql-response+json" },
    body
  })
  const answer = answerGraphql(compiled, request, context(i))
  if (answer._tag !== "Whole" || answer.status !== 200) throw new Error(`the engine answered ${answer._tag}`)
  return answer.body
}

/** Both answers have the same shape: the same keys at every depth, lists of the same length. */
const shapeOf = (value: unknown): unknown =>
  Array.isArray(value)
    ? value.map(shapeOf)
    : typeof value === "object" && value !== null
      ? Object.fromEntries(Object.entries(value).map(([k, v]) => [k, shapeOf(v)]))
      : typeof value
if (JSON.stringify(shapeOf(JSON.parse(floor()))) !== JSON.stringify(shapeOf(JSON.parse(String(engine(0))))))
  throw new Error("the floor and simnet answer different shapes")

const throughFetch = async (): Promise<Measure> => {
  const handle = await SimulationNetwork.start({
    seed: 1,
    routes: [Route.graphql(URL_, { schema: SDL, listSize: { min: LIST, max: LIST } })]
  })
  const init = { method: "POST", headers: { "content-type": "application/json" }, body }
  const result = await measure(
    "simnet graphql route through fetch",
    async () => (await handle.fetch(URL_, init)).text(),
    { minMs, warmup: 300, minIterations: 200 }
  )
  await handle.close()
  return result
}

const best = (runs: ReadonlyArray<Measure>): Measure => runs.reduce((a, b) => (b.opsPerSec > a.opsPerSec ? b : a))

const rounds: Array<Array<Measure>> = [[], [], []]
for (let round = 0; round < 3; round++) {
  rounds[0].push(
    await measure("graphql-js, constant resolvers (floor)", floor, { minMs, warmup: 300, minIterations: 200 })
  )
  rounds[1].push(await measure("simnet graphql engine (generated)", engine, { minMs, warmup: 300, minIterations: 200 }))
  rounds[2].push(await throughFetch())
}
const leaves = LIST * (6 + LIST * 3 + LIST * 4)
console.log(`graphql bench (node ${process.version}${quick ? ", --quick" : ""}); best of 3 interleaved rounds`)
report(
  `${LIST} users × (${LIST} friends + ${LIST} posts): ${leaves} leaves an answer, parse + validate + execute, answers/s`,
  rounds.map(best),
  "graphql-js, constant resolvers (floor)"
)
