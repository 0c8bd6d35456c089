/**
 * Every OpenAPI document of `@readme/oas-examples` (MIT; 41 in 3.0, 12 in 3.1: Petstore, the Star
 * Trek API, USPTO, every parameter style, circular references, webhooks, `unevaluatedProperties`…)
 * served as routes, and every operation sent a valid request (from its examples, or the least its
 * schemas need, serialized in each parameter's style). The judges: no document is refused, no
 * operation is refused, no answer is a status its operation does not document, and every answer's
 * body and headers validate against the document with Ajv, a validator independent of simnet's
 * generator. All documents are then served together on one network, with their default ids.
 */
import $RefParser from "@apidevtools/json-schema-ref-parser"
import { describe, expect, it } from "vitest"
import { readdirSync, readFileSync } from "node:fs"
import { createRequire } from "node:module"
import * as path from "node:path"
import { Routes, SimulationNetwork } from "simnet"
import { documentValidator, escapeToken, type Json, operationsOf, requestFor } from "./support/openapi.ts"

const root = path.dirname(createRequire(import.meta.url).resolve("@readme/oas-examples/package.json"))
const CORPUS = ["3.0", "3.1"].flatMap((version) =>
  readdirSync(path.join(root, version, "json"))
    .filter((file) => file.endsWith(".json"))
    .map((file) => [`${version}/${file.replace(/\.json$/, "")}`, path.join(root, version, "json", file)] as const)
)

/**
 * The operations whose request the judge could not build valid, because no value satisfies the
 * schema, or none json-schema-faker finds does: each is answered 422 by simnet, as it must be.
 */
const UNSATISFIABLE: Record<string, ReadonlyArray<string>> = {
  // `oneOf: [Cat, Dog]` with no discriminator of its own (it sits on `Pet`, inside each branch's
  // `allOf`): as JSON Schema reads the `oneOf`, every value that matches one branch matches both.
  "3.0/discriminators": ["PATCH /embedded-discriminator → 422"],
  // `oneOf` two objects of optional string properties: a value matches exactly one only by breaking the other's types.
  "3.0/polymorphism": ["POST /anything/one-of-object → 422", "POST /anything/one-of-object-ref → 422"],
  // `allOf: [{ type: string }, { type: integer }]`, on purpose ("Incompatible allOf schemas").
  "3.0/schema-types": ["PUT /anything/quirks/polymorphism → 422", "PATCH /anything/quirks/polymorphism → 422"],
  "3.1/schema-types": ["PUT /anything/quirks/polymorphism → 422", "PATCH /anything/quirks/polymorphism → 422"]
}

/**
 * The operations refused at registration, listed as such (`refused`) and answered 501 saying why:
 * those whose answer schema has no finite value.
 */
const REFUSED: Record<string, ReadonlyArray<string>> = {
  // `TreeNode` requires a `parent` that is a `TreeNode`: no finite value to answer with.
  "3.0/circular-request-bodies": ["POST /direct"]
}

const originOf = (name: string) => `https://${name.replace(/[^a-z0-9]+/gi, "-").toLowerCase()}.example.com`

/** Where a document's operations live under an origin: the path of its `servers[0].url`. */
const basePath = (document: Json) => {
  const url = document.servers?.[0]?.url
  if (typeof url !== "string") return ""
  const expanded = url.replace(
    /\{([^}]+)\}/g,
    (_, name: string) => document.servers[0].variables?.[name]?.default ?? name
  )
  return new URL(expanded, "http://server.invalid/").pathname.replace(/\/$/, "")
}

describe("Routes.openapi on the whole @readme/oas-examples corpus", () => {
  it("has the documents the issue names", () => {
    expect(CORPUS.length).toBe(53)
  })

  it.each(CORPUS)(
    "%s: no operation refused, every answer documented and valid against the document",
    async (name, file) => {
      const raw = JSON.parse(readFileSync(file, "utf8")) as Json
      const origin = originOf(name)
      const routes = Routes.openapi(raw, { baseUrl: origin })
      const network = await SimulationNetwork.start({ seed: 3, routes })
      const document = (await $RefParser.dereference(structuredClone(raw), {
        resolve: { external: false },
        dereference: { circular: "ignore" }
      })) as Json
      const validate = documentValidator(document)
      const base = `${origin}${basePath(raw)}`
      const problems: Array<string> = []
      const unanswerable: Array<string> = []
      const operations = operationsOf(document)
      expect(routes.length).toBe(operations.length)
      const refused = network.routes().filter((route) => route.refused !== undefined)
      expect(refused.map((route) => String(route.operation))).toEqual(REFUSED[name] ?? [])
      for (const route of refused)
        expect(route.refused).toMatch(/no finite value exists for this schema: it requires itself/)
      for (const { item, method, operation, path: template } of operations) {
        if (refused.some((route) => route.operation === `${method.toUpperCase()} ${template}`)) {
          const [url, init] = requestFor(base, template, method, item, operation, validate, document, [])
          const answer = await network.fetch(url, init)
          expect([answer.status, ((await answer.json()) as { title: string }).title]).toEqual([
            501,
            "Operation not served"
          ])
          continue
        }
        const unsatisfied: Array<string> = []
        const [url, init] = requestFor(base, template, method, item, operation, validate, document, unsatisfied)
        let response: Response
        try {
          response = await network.fetch(url, init)
        } catch (error) {
          problems.push(`${method.toUpperCase()} ${template}: ${String((error as Error).cause ?? error)}`)
          continue
        }
        const label = `${method.toUpperCase()} ${template} → ${response.status}`
        if (unsatisfied.length > 0) {
          // No value the judge accepts exists for some schema of the request (or none was found):
          // the request is invalid, and the answer must say so in a 4xx, never fail.
          unanswerable.push(label)
          if (response.status !== 422 && response.status !== 400)
            problems.push(`${label}: an invalid request (${unsatisfied.join(", ")}) not refused`)
          continue
        }
        const codes = Object.keys(operation.responses ?? {})
        const informational = codes.length > 0 && codes.every((c) => /^1/.test(c))
        const code = informational
          ? undefined
          : [String(response.status), `${String(response.status)[0]}XX`, "default"].find(
              (c) => operation.responses?.[c] !== undefined
            )
        const text = await response.text()
        if (informational) {
          // A 1xx is not a final answer, and fetch cannot carry one: simnet answers 204 and says why.
          if (response.status !== 204 || response.headers.get("x-simnet-informational") === null)
            problems.push(`${label}: ${text}`)
          continue
        }
        if (code === undefined) {
          if (codes.length > 0 || response.status !== 200)
            problems.push(
              `${label}: status not documented (${text.includes("validation") ? JSON.stringify(JSON.parse(text).validation) + " body=" + String(init.body).slice(0, 200) + " url=" + url : text.slice(0, 300)})`
            )
          continue
        }
        const declared = operation.responses[code]
        const pointer = `/paths/${escapeToken(template)}/${method}/responses/${escapeToken(code)}`
        const type = response.headers.get("content-type")
        const schemaOf = (t: string | null) =>
          t === null ? undefined : (declared.content?.[t] ?? declared.content?.[t.split(";")[0]])
        if (declared.content === undefined || Object.keys(declared.content).length === 0 || method === "head") {
          if (text !== "") problems.push(`${label}: a body where none is declared`)
        } else if (schemaOf(type)?.schema !== undefined && /json/.test(type ?? "")) {
          let parsed: unknown
          try {
            parsed = JSON.parse(text)
          } catch {
            problems.push(`${label}: not JSON: ${text.slice(0, 100)}`)
            continue
          }
          problems.push(
            ...validate(
              `${pointer}/content/${escapeToken(Object.keys(declared.content).find((t) => t === type || t === type!.split(";")[0])!)}/schema`,
              parsed
            ).map((p) => `${label}: ${p}`)
          )
        } else if (
          schemaOf(type) === undefined &&
          text !== "" &&
          !Object.keys(declared.content).some((t) => t.includes("*"))
        ) {
          problems.push(`${label}: content type ${type} is not declared`)
        }
        for (const [header, spec] of Object.entries((declared.headers ?? {}) as Record<string, Json>)) {
          const value = response.headers.get(header)
          if (value === null || header.toLowerCase() === "content-type") continue
          const typed =
            spec.schema?.type === "integer" || spec.schema?.type === "number"
              ? Number(value)
              : spec.schema?.type === "boolean"
                ? value === "true"
                : value
          if (spec.schema?.type === "array" || spec.schema?.type === "object") continue
          problems.push(
            ...validate(`${pointer}/headers/${escapeToken(header)}/schema`, typed).map((p) => `${label}: header ${p}`)
          )
        }
      }
      if (problems.length > 0) console.log(`PROBLEMS ${name}\n${problems.join("\n")}`)
      expect(problems).toEqual([])
      expect(unanswerable).toEqual(UNSATISFIABLE[name] ?? [])
      expect(
        network
          .log()
          .filter((r) => r.status === undefined)
          .map((r) => `${r.method} ${r.url}`)
      ).toEqual([])
    },
    60_000
  )

  it("every document on one network at once, with their default ids: none collide, each answers", async () => {
    const all = CORPUS.map(([name, file]) => [name, JSON.parse(readFileSync(file, "utf8")) as Json] as const)
    const routes = all.flatMap(([name, raw]) => Routes.openapi(raw, { baseUrl: originOf(name) }))
    const network = await SimulationNetwork.start({ seed: 5, routes })
    const ids = network.routes().map((r) => r.id)
    expect(new Set(ids).size).toBe(ids.length)
    // Both Petstores declare `deletePet`; each is its own route.
    expect(ids.filter((id) => id.endsWith(":deletePet")).length).toBeGreaterThanOrEqual(2)
    for (const [name, raw] of all.filter(([n]) => n.endsWith("/petstore"))) {
      const answer = await network.fetch(`${originOf(name)}${basePath(raw)}/pet/1`, {
        headers: { accept: "application/json" }
      })
      expect(answer.status).toBe(200)
    }
  }, 60_000)
})
