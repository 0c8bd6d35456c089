import { Routes, SimulationNetwork } from "simnet"
const doc = { openapi: "3.1.0", info: { title: "t", version: "1" }, paths: { "/g": { get: { responses: { "200": { description: "ok", content: { "application/json": { schema: { type: "object", required: ["id"], properties: { id: { type: "string", pattern: "^(?:{[0-9a-fA-F]{4}(?:-?[0-9a-fA-F]{4}){7}}|[0-9a-fA-F]{4}(?:-?[0-9a-fA-F]{4}){7})$" } } } } } } } } } } }
const net = await SimulationNetwork.start({ seed: 1, routes: Routes.openapi(doc, { baseUrl: "https://p.example.com" }) })
const r = await net.fetch("https://p.example.com/g")
console.log(r.status, await r.text())
