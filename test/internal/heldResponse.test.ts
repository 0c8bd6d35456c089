import { describe, expect, it } from "vitest"
import { fromResponse } from "../../src/registry/answer.ts"
import { textResponse, wholeResponse } from "../../src/registry/heldResponse.ts"

const make = () => textResponse('{"a":1}', { status: 201, headers: { "content-type": "application/json" } })

describe("textResponse", () => {
  it("is a Response whose body reads once, as text or JSON", async () => {
    const response = make()
    expect(response).toBeInstanceOf(Response)
    expect(response.status).toBe(201)
    expect(response.bodyUsed).toBe(false)
    expect(await response.json()).toEqual({ a: 1 })
    expect(response.bodyUsed).toBe(true)
    await expect(response.text()).rejects.toThrow(TypeError)
    await expect(response.arrayBuffer()).rejects.toThrow(TypeError)
    expect(() => response.clone()).toThrow(TypeError)
  })

  it("streams its bytes when asked for body, and then reads through the stream", async () => {
    const response = make()
    const reader = response.body!.getReader()
    const { value } = await reader.read()
    expect(new TextDecoder().decode(value)).toBe('{"a":1}')
    expect(response.bodyUsed).toBe(true)
    await expect(response.text()).rejects.toThrow(TypeError)
  })

  it("clones keep status, headers, url and body; bytes and blob read the same text", async () => {
    const response = make()
    Object.defineProperty(response, "url", { value: "https://api.example.com/a" })
    const copy = response.clone()
    expect(copy.url).toBe("https://api.example.com/a")
    expect(copy.headers.get("content-type")).toBe("application/json")
    expect(new TextDecoder().decode(await copy.bytes())).toBe('{"a":1}')
    expect(await (await response.blob()).text()).toBe('{"a":1}')
  })

  it("is taken back as a whole answer until its body is read or streamed; any other response is a stream", async () => {
    expect(fromResponse(make())).toMatchObject({ _tag: "Whole", status: 201, body: '{"a":1}' })
    const bytes = wholeResponse({ status: 200, headers: {}, body: new Uint8Array([1, 2, 3]) }, undefined)
    expect(Array.from(await bytes.clone().bytes())).toEqual([1, 2, 3])
    expect(fromResponse(bytes)).toMatchObject({ _tag: "Whole", body: new Uint8Array([1, 2, 3]) })
    const read = make()
    await read.text()
    expect(fromResponse(read)._tag).toBe("Streamed")
    const streamed = make()
    void streamed.body
    expect(fromResponse(streamed)._tag).toBe("Streamed")
    expect(fromResponse(new Response("plain"))._tag).toBe("Streamed")
  })
})
