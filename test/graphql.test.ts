/**
 * The `graphql` route kind (issue 58), judged by `graphql-request` (a real client: variables,
 * aliases, named and inline fragments, GET and POST) and by graphql-js itself: every answer's
 * query validates against the SDL, and the answer's shape is proven by `execute` over the same
 * schema with the answer as root value (each leaf serialized by its type, every non-null kept),
 * which must give the answer back unchanged. Introspection goes through `buildClientSchema`.
 */
import { describe, expect, it } from "@effect/vitest"
import {
  buildClientSchema,
  buildSchema,
  execute,
  getIntrospectionQuery,
  type IntrospectionQuery,
  parse,
  printSchema,
  validate
} from "graphql"
import { type ClientError, GraphQLClient, gql } from "graphql-request"
import { Effect } from "effect"
import { afterAll } from "vitest"
import { mkdtempSync, symlinkSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { Fixture, Route, SimulationNetwork } from "simnet"
import { serve, stopAll } from "./support/serve.ts"

afterAll(stopAll)

const URL_ = "https://api.example.com/graphql"

const SDL = `
  "An ISO-8601 instant."
  scalar DateTime
  scalar Money
  enum Role { ADMIN EDITOR VIEWER }
  interface Node { id: ID! }
  type User implements Node {
    id: ID!
    name: String!
    email: String!
    homepage: String
    role: Role!
    createdAt: DateTime!
    age: Int
    balance: Money
    friends(first: Int = 2): [User!]!
    posts: [Post!]!
  }
  type Post implements Node { id: ID!, title: String!, score: Float!, published: Boolean!, author: User! }
  union SearchResult = User | Post
  type Query {
    user(id: ID!): User
    users(role: Role): [User!]!
    node(id: ID!): Node
    search(text: String!): [SearchResult!]!
  }
  input NewPost { title: String!, score: Float }
  type Mutation { createPost(input: NewPost!): Post! }
`
const schema = buildSchema(SDL)

/**
 * graphql-js's own proof that `data` is an answer of `query` under the SDL: the query is valid,
 * and `execute` over the schema, each field read from the answer by its response key (its alias),
 * each abstract value typed by its `__typename`, gives the answer back unchanged (each leaf
 * serialized by its type, every non-null kept).
 */
const conforms = (query: string, data: unknown, variables?: Record<string, unknown>) => {
  const document = parse(query)
  expect(validate(schema, document)).toEqual([])
  const again = execute({
    schema,
    document,
    rootValue: data,
    variableValues: variables,
    fieldResolver: (source, _args, _context, info) => (source as Record<string, unknown>)[info.path.key],
    typeResolver: (value) => (value as { __typename?: string }).__typename
  }) as { data?: unknown; errors?: ReadonlyArray<unknown> }
  expect(again.errors).toBeUndefined()
  expect(JSON.parse(JSON.stringify(again.data))).toEqual(data)
}

const start = (options: Partial<Route.GraphqlOptions> = {}, seed = 1) =>
  SimulationNetwork.start({ seed, routes: [Route.graphql(URL_, { schema: SDL, ...options }, { id: "api" })] })

const USER_QUERY = gql`
  query GetUser($id: ID!, $first: Int) {
    user(id: $id) {
      ...Person
      id
      nick: name
      friends(first: $first) { __typename id email }
      posts { ... on Post { title score published author { id } } }
    }
    everyone: users(role: ADMIN) { id role }
  }
  fragment Person on User { name email homepage role createdAt age balance }
`

describe("Route.graphql", () => {
  it("graphql-request gets seeded data shaped by the selection set (variables, aliases, fragments), valid under the SDL and the same for the same seed", async () => {
    const answer = async (seed: number) => {
      const network = await start({}, seed)
      const client = new GraphQLClient(URL_, { fetch: network.fetch })
      const data = await client.request<Record<string, unknown>>(USER_QUERY, { id: "u1", first: 3 })
      const log = network.log()
      await network.close()
      return { data, log }
    }
    const { data, log } = await answer(1)
    conforms(USER_QUERY, data, { id: "u1", first: 3 })
    const user = data.user as Record<string, unknown>
    expect(Object.keys(user).sort()).toEqual([
      "age",
      "balance",
      "createdAt",
      "email",
      "friends",
      "homepage",
      "id",
      "name",
      "nick",
      "posts",
      "role"
    ])
    expect(user.email).toMatch(/^[a-z]+\.[a-z]+@[a-z.]+$/)
    expect(user.homepage).toMatch(/^https:\/\//)
    expect(user.createdAt).toMatch(/^20\d\d-\d\d-\d\dT/)
    expect(user.id).toMatch(/^[0-9a-f]{8}-/)
    expect((user.friends as Array<unknown>).length).toBeGreaterThanOrEqual(1)
    expect(log[0]?.detail).toEqual({ graphql: { operation: "GetUser", type: "query" } })
    expect((await answer(1)).data).toEqual(data)
    expect((await answer(2)).data).not.toEqual(data)
  })

  it("the same request again (its next occurrence) gets other values; a GET query is answered as a POST one is", async () => {
    const network = await start()
    const client = new GraphQLClient(URL_, { fetch: network.fetch })
    const query = "{ users { id name } }"
    const first = await client.request(query)
    const second = await client.request(query)
    expect(second).not.toEqual(first)
    conforms(query, first)
    const viaGet = new GraphQLClient(URL_, { fetch: network.fetch, method: "GET" })
    conforms(query, await viaGet.request(query))
    expect(network.log().map((r) => r.method)).toEqual(["POST", "POST", "GET"])
    await network.close()
  })

  it("interfaces and unions come back as one of their types, with __typename; a mutation takes its input", async () => {
    const network = await start({ listSize: { min: 6, max: 6 } })
    const client = new GraphQLClient(URL_, { fetch: network.fetch })
    const query = `{ node(id: "1") { __typename id ... on User { name } ... on Post { title } } search(text: "x") { __typename ... on User { email } ... on Post { score } } }`
    const data = await client.request<{ search: ReadonlyArray<{ __typename: string }> }>(query)
    conforms(query, data)
    expect(data.search).toHaveLength(6)
    expect(new Set(data.search.map((r) => r.__typename))).toEqual(new Set(["User", "Post"]))
    const mutation = `mutation Create($input: NewPost!) { createPost(input: $input) { id title author { name } } }`
    conforms(mutation, await client.request(mutation, { input: { title: "Hello" } }), { input: { title: "Hello" } })
    expect(network.log().at(-1)?.detail).toEqual({ graphql: { operation: "Create", type: "mutation" } })
    await network.close()
  })

  it("introspection answers what buildClientSchema takes, and it prints back as the SDL's schema", async () => {
    const network = await start()
    const client = new GraphQLClient(URL_, { fetch: network.fetch })
    const introspection = await client.request<IntrospectionQuery>(getIntrospectionQuery())
    expect(printSchema(buildClientSchema(introspection))).toBe(printSchema(schema))
    await network.close()
  })

  it("resolvers fix fields (a value, an object whose other fields are generated, a function of the arguments); scalars and fields override generation", async () => {
    const network = await start({
      resolvers: {
        Query: { user: (args: unknown) => ({ id: (args as { id: string }).id, name: "Ada Lovelace" }) },
        User: { role: "ADMIN" }
      },
      scalars: { Money: (seed: number) => `${seed % 1000}.00 EUR` },
      fields: { email: { values: ["fixed@example.com"] } }
    })
    const client = new GraphQLClient(URL_, { fetch: network.fetch })
    const query = `{ user(id: "u7") { id name role email balance friends { role } } }`
    const data = await client.request<{ user: Record<string, unknown> }>(query)
    conforms(query, data)
    expect(data.user).toMatchObject({ id: "u7", name: "Ada Lovelace", role: "ADMIN", email: "fixed@example.com" })
    expect(data.user.balance).toMatch(/^\d+\.00 EUR$/)
    await network.close()
  })

  it("errors as GraphQL-over-HTTP says: a query that does not parse, an unknown field, a variable of the wrong type — with locations, and the status the media type asks for", async () => {
    const network = await start()
    const client = new GraphQLClient(URL_, { fetch: network.fetch })
    const failure = (query: string, variables?: Record<string, unknown>) =>
      client.request(query, variables).then(
        () => undefined,
        (error: ClientError) => ({ status: error.response.status, errors: error.response.errors })
      )
    expect(await failure("{ user(id: 1) { name ")).toEqual({
      status: 400,
      errors: [
        expect.objectContaining({
          message: "Syntax Error: Expected Name, found <EOF>.",
          locations: [{ line: 1, column: 22 }]
        })
      ]
    })
    expect(await failure(`{ user(id: "1") { nmae } }`)).toEqual({
      status: 400,
      errors: [
        expect.objectContaining({
          message: expect.stringContaining('Cannot query field "nmae" on type "User". Did you mean "name"?'),
          locations: [{ line: 1, column: 19 }]
        })
      ]
    })
    expect(await failure("query Q($id: ID!) { user(id: $id) { name } }", { id: { nested: true } })).toEqual({
      status: 400,
      errors: [
        expect.objectContaining({
          message: expect.stringContaining('Variable "$id" got invalid value'),
          locations: [{ line: 1, column: 9 }]
        })
      ]
    })
    // A client that accepts only JSON gets 200 for a request error, as the specification asks of older clients.
    const legacy = await network.fetch(URL_, {
      method: "POST",
      headers: { "content-type": "application/json", accept: "application/json" },
      body: JSON.stringify({ query: "{ nope }" })
    })
    expect([legacy.status, legacy.headers.get("content-type")]).toEqual([200, "application/json; charset=utf-8"])
    expect((await legacy.json()).errors[0].locations).toEqual([{ line: 1, column: 3 }])
    const notJson = await network.fetch(URL_, {
      method: "POST",
      headers: { "content-type": "text/plain" },
      body: "{ users { id } }"
    })
    expect(notJson.status).toBe(415)
    const getMutation = await network.fetch(
      `${URL_}?query=${encodeURIComponent('mutation { createPost(input: { title: "x" }) { id } }')}`
    )
    expect([getMutation.status, getMutation.headers.get("allow")]).toEqual([405, "POST"])
    expect(
      (
        await network.fetch(URL_, {
          method: "POST",
          headers: { "content-type": "application/json", accept: "text/html" },
          body: "{}"
        })
      ).status
    ).toBe(406)
    expect(
      (await network.fetch(URL_, { method: "POST", headers: { "content-type": "application/json" }, body: "[1]" }))
        .status
    ).toBe(400)
    await network.close()
  })

  it("queries past the bounds get a request error naming the bound and where: depth, aliases, document size, values", async () => {
    const network = await start({
      limits: { depth: 4, aliases: 3, documentBytes: 2_000, values: 200 },
      listSize: { min: 5, max: 5 }
    })
    const client = new GraphQLClient(URL_, { fetch: network.fetch })
    const failure = (query: string) =>
      client.request(query).then(
        () => undefined,
        (error: ClientError) => ({ status: error.response.status, error: error.response.errors?.[0] })
      )
    expect(await failure(`{ user(id: "1") { friends { friends { friends { id } } } } }`)).toEqual({
      status: 400,
      error: expect.objectContaining({
        message: "simnet: the query nests fields more than 4 deep, over the bound of 4 (limits.depth)",
        locations: [{ line: 1, column: 49 }],
        extensions: { code: "SIMNET_LIMIT", limit: "depth", bound: 4 }
      })
    })
    // Through a fragment too: a fragment counts where it is spread.
    expect(
      (await failure(`{ user(id: "1") { ...F } } fragment F on User { friends { friends { friends { id } } } }`))?.error
        ?.extensions
    ).toEqual({ code: "SIMNET_LIMIT", limit: "depth", bound: 4 })
    expect((await failure(`{ a: users { id } b: users { id } c: users { id } d: users { id } }`))?.error).toMatchObject(
      { extensions: { limit: "aliases" }, locations: [{ line: 1, column: 51 }] }
    )
    expect((await failure(`{ users { id ${"name ".repeat(500)} } }`))?.error?.extensions).toMatchObject({
      limit: "documentBytes"
    })
    expect((await failure(`{ users { friends { friends { id } } } }`))?.error?.extensions).toMatchObject({
      limit: "values",
      bound: 200
    })
    expect((await failure(`{ users { id ${"{".repeat(1_000)} } }`))?.error?.extensions).toMatchObject({
      limit: "depth"
    })
    expect(network.log().at(-1)?.violations?.[0]).toMatchObject({ code: "SIMNET_LIMIT" })
    await network.close()
  })

  it("an SDL that does not parse, a resolver of a missing field, a bad bound: a typed error naming the place at registration, and nothing registered", async () => {
    const network = await SimulationNetwork.start({ routes: [Route.text("GET https://a.example/", "kept")] })
    const refused = (route: Route.Route) =>
      network.register([Route.text("GET https://b.example/", "b"), route]).then(
        () => undefined,
        (error: { _tag: string; path: string; message: string }) => [error._tag, error.path, error.message]
      )
    expect(await refused(Route.graphql(URL_, { schema: "type Query { a: String" }))).toEqual([
      "InvalidRouteSpec",
      "[1].respond.schema",
      "Syntax Error: Expected Name, found <EOF>. (line 1, column 23)"
    ])
    expect(await refused(Route.graphql(URL_, { schema: "type Query { a: Missing }" }))).toEqual([
      "InvalidRouteSpec",
      "[1].respond.schema",
      'Unknown type "Missing".'
    ])
    expect(await refused(Route.graphql(URL_, { schema: SDL, resolvers: { User: { emial: "x" } } }))).toEqual([
      "InvalidRouteSpec",
      "[1].respond.resolvers.User.emial",
      expect.stringContaining("User has no field emial; its fields: id, name, email")
    ])
    expect(
      await refused(
        Route.graphql(URL_, { schema: `type Query { a: ${"[".repeat(100_000)}Int${"]".repeat(100_000)} }` })
      )
    ).toEqual(["InvalidRouteSpec", "[1].respond.schema", "the schema nests its brackets deeper than 64 levels"])
    expect(await refused(Route.graphql(URL_, null as never))).toEqual([
      "InvalidRouteSpec",
      "[1].respond.schema",
      "the schema is GraphQL SDL text"
    ])
    expect(await refused(Route.graphql(URL_, { schema: SDL, limits: { depth: 0 } }))).toEqual([
      "InvalidRouteSpec",
      "[1].respond.limits.depth",
      "must be a whole number from 1 to 64, got 0"
    ])
    const spec = await network
      .registerSpec([{ match: URL_, respond: { kind: "graphql", schema: { file: "schema.graphql" } } }])
      .then(
        () => undefined,
        (error: { path: string; message: string }) => [error.path, error.message]
      )
    expect(spec).toEqual([
      "[0].respond.schema.file",
      "a schema file is named only in a fixture file, relative to it; give the SDL as text here"
    ])
    expect(network.routes().map((r) => r.id)).toEqual(["text GET https://a.example/"])
    // DESIGN's shorthand: the kind's name holding its fields, inside respond or beside match.
    await network.registerSpec({ id: "short", match: URL_, respond: { graphql: { schema: SDL } } })
    await network.registerSpec({
      id: "shorter",
      match: "POST https://c.example/graphql",
      graphql: { schema: SDL, resolvers: { User: { name: "Ada" } } }
    })
    const asked = (url: string) =>
      network
        .fetch(url, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({ query: '{ user(id: "u1") { name } }' })
        })
        .then((r) => r.json())
    expect(await asked(URL_)).toMatchObject({ data: { user: { name: expect.any(String) } } })
    expect(await asked("https://c.example/graphql")).toEqual({ data: { user: { name: "Ada" } } })
    const bad = await network.registerSpec({ match: URL_, respond: { graphql: "type Query { a: String }" } }).then(
      () => undefined,
      (error: { path: string }) => error.path
    )
    expect(bad).toBe("respond.kind")
    await network.close()
  })

  it("through simnet serve: registered over the control endpoint (a bad SDL is a 400 naming the place), answered on loopback, the operation in the request line and the HAR keeping the query", async () => {
    const served = await serve(["--keep-bodies"])
    const bad = await served.post("network/register", [
      { match: "https://b.example/graphql", respond: { kind: "graphql", schema: "type Query {" } }
    ])
    expect(bad.status).toBe(400)
    expect((await bad.json()).error).toMatchObject({ tag: "InvalidRouteSpec", path: "[0].respond.schema" })
    expect(
      (
        await served.post("network/register", {
          id: "api",
          match: URL_,
          respond: { kind: "graphql", schema: SDL, resolvers: { User: { name: "Grace" } } }
        })
      ).status
    ).toBe(201)
    const client = new GraphQLClient(`${served.base}/api.example.com/graphql`)
    const query = `query GetUser { user(id: "1") { name email } }`
    const data = await client.request<{ user: { name: string } }>(query)
    conforms(query, data)
    expect(data.user.name).toBe("Grace")
    await expect.poll(() => served.output()).toContain("POST https://api.example.com/graphql -> api (GetUser) 200")
    const har = (await (await fetch(`${served.control}/network/log?format=har`)).json()) as {
      log: { entries: Array<{ request: { postData?: { text?: string } } }> }
    }
    expect(JSON.parse(har.log.entries.at(-1)!.request.postData!.text!).query).toBe(query)
  })

  it("a fixture names its schema file beside it; a file outside its folder, through .. or a symbolic link, is refused naming the field", async () => {
    const outside = mkdtempSync(join(tmpdir(), "simnet-gql-out-"))
    writeFileSync(join(outside, "secret.graphql"), "type Query { secret: String }")
    const dir = mkdtempSync(join(tmpdir(), "simnet-gql-"))
    writeFileSync(join(dir, "schema.graphql"), SDL)
    symlinkSync(join(outside, "secret.graphql"), join(dir, "linked.graphql"))
    const fixture = (file: string) => {
      const path = join(dir, `fixture-${file.replace(/\W/g, "")}.json`)
      writeFileSync(path, JSON.stringify({ routes: [{ match: URL_, respond: { kind: "graphql", schema: { file } } }] }))
      return Fixture.load(path)
    }
    const network = await SimulationNetwork.start(await fixture("schema.graphql"))
    conforms(
      "{ users { id email } }",
      await new GraphQLClient(URL_, { fetch: network.fetch }).request("{ users { id email } }")
    )
    // Its snapshot carries the SDL itself, so it restores in a network with no fixture beside it.
    const state = await Effect.runPromise(network.network.state)
    const elsewhere = await SimulationNetwork.start()
    await Effect.runPromise(elsewhere.network.restore(JSON.parse(JSON.stringify(state))))
    conforms(
      "{ users { id email } }",
      await new GraphQLClient(URL_, { fetch: elsewhere.fetch }).request("{ users { id email } }")
    )
    await elsewhere.close()
    await network.close()
    for (const file of [join("..", outside.split("/").at(-1)!, "secret.graphql"), "linked.graphql"]) {
      await expect(fixture(file)).rejects.toMatchObject({
        _tag: "InvalidRouteSpec",
        path: "routes[0].respond.schema.file",
        message: expect.stringContaining("outside the fixture's folder")
      })
    }
    await expect(fixture("missing.graphql")).rejects.toMatchObject({
      path: "routes[0].respond.schema.file",
      message: 'no file "missing.graphql" beside the fixture'
    })
  })

  it("record mode keeps the query: each recorded route matches its operation's body, and the replay answers each query its own answer", async () => {
    const upstream = await serve(["--quiet"])
    expect(
      (await upstream.post("network/register", { match: URL_, respond: { kind: "graphql", schema: SDL } })).status
    ).toBe(201)
    const recorder = await SimulationNetwork.start({
      record: { upstream: { "api.example.com": `${upstream.base}/api.example.com` } }
    })
    const client = new GraphQLClient(URL_, { fetch: recorder.fetch })
    const queries = ["query Names { users { name } }", "query Mails { users { email } }"]
    const answers = [await client.request(queries[0]), await client.request(queries[1])]
    const { routes } = recorder.recording()
    expect(routes.map((route) => (route.match as { json?: { query?: string } }).json?.query)).toEqual(queries)
    await recorder.close()
    const replay = await SimulationNetwork.start()
    await replay.registerSpec(routes)
    const again = new GraphQLClient(URL_, { fetch: replay.fetch })
    expect([await again.request(queries[1]), await again.request(queries[0])]).toEqual([answers[1], answers[0]])
    await replay.close()
  })
})
