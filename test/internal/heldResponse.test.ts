import { describe, expect, it } from "vitest"
import { bytesResponse, takeHeldBody, textResponse } from "../../src/registry/heldResponse.ts"

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

  it("hands its body over whole once, and not after it was streamed or for another response", async () => {
    const response = make()
    expect(new TextDecoder().decode(takeHeldBody(response))).toBe('{"a":1}')
    expect(response.bodyUsed).toBe(true)
    expect(takeHeldBody(response)).toBeUndefined()
    const bytes = bytesResponse(new Uint8Array([1, 2, 3]), { status: 200 })
    expect(Array.from(await bytes.clone().bytes())).toEqual([1, 2, 3])
    expect(Array.from(takeHeldBody(bytes)!)).toEqual([1, 2, 3])
    const streamed = make()
    void streamed.body
    expect(takeHeldBody(streamed)).toBeUndefined()
    expect(takeHeldBody(new Response("plain"))).toBeUndefined()
  })
})
