import { describe, expect, it } from "vitest"
import { forkTools, forkVerdict, sameJson, stripForeignReasoning } from "../../src/background/request.ts"

const model = { provider: "p", api: "a", id: "m" }
const schema = { type: "object", properties: { path: { type: "string" }, limit: { type: "number" } }, required: ["path"] }

describe("schema compatibility", () => {
  it("ignores key order at every depth but not values or array order", () => {
    expect(sameJson(schema, { required: ["path"], properties: { limit: { type: "number" }, path: { type: "string" } }, type: "object" })).toBe(true)
    expect(sameJson(schema, { ...schema, required: ["path", "limit"] })).toBe(false)
    expect(sameJson([1, 2], [2, 1])).toBe(false)
    expect(sameJson({ a: 1 }, { a: 1, b: 2 })).toBe(false)
  })
})

describe("fork or independent", () => {
  const ours = [{ name: "read", parameters: schema }, { name: "write", parameters: {} }]
  it("forks with the same provider, API and model and compatible same-named tools", () => {
    expect(forkVerdict({ model, tools: [{ name: "read", parameters: { ...schema } }, { name: "deploy", parameters: {} }, { name: "write", parameters: {} }] }, { model, tools: ours })).toEqual({ fork: true })
  })
  it("goes independent when the parent declares none of the task's tools that can change memory", () => {
    expect(forkVerdict({ model, tools: [{ name: "read", parameters: schema }, { name: "deploy", parameters: {} }] }, { model, tools: ours })).toEqual({
      fork: false,
      reason: "the parent declares no tool that can write memory"
    })
  })
  it("offers in a fork exactly the task's tools that the parent declares, in the task's order", () => {
    const six = ["read", "find", "grep", "write", "edit", "bash"].map((name) => ({ name, parameters: {} }))
    const parent = ["bash", "deploy", "write", "read", "edit"].map((name) => ({ name, parameters: {} }))
    expect(forkTools(parent, six)).toEqual(["read", "write", "edit", "bash"])
    expect(forkTools([], six)).toEqual([])
  })
  it("goes independent without a capture, across models, or with another schema under the same name", () => {
    expect(forkVerdict(undefined, { model, tools: ours }).fork).toBe(false)
    expect(forkVerdict({ model: { ...model, id: "other" }, tools: [] }, { model, tools: ours }).fork).toBe(false)
    expect(forkVerdict({ model: { ...model, api: "b" }, tools: [] }, { model, tools: ours }).fork).toBe(false)
    expect(forkVerdict({ model, tools: [{ name: "read", parameters: { type: "object" } }] }, { model, tools: ours })).toEqual({
      fork: false,
      reason: "the parent's read tool has another schema"
    })
  })
})

describe("across models", () => {
  it("drops thinking blocks and signatures of another model's messages and keeps the task model's", () => {
    const foreign = { role: "assistant", provider: "x", api: "a", model: "m", content: [{ type: "thinking", thinking: "t" }, { type: "text", text: "hi", textSignature: "s" }, { type: "toolCall", id: "1", name: "read", arguments: {}, thoughtSignature: "z" }] }
    const own = { ...foreign, provider: "p" }
    const [a, b] = stripForeignReasoning([foreign, own], model)
    expect(a!.content).toEqual([{ type: "text", text: "hi" }, { type: "toolCall", id: "1", name: "read", arguments: {} }])
    expect(b).toBe(own)
  })
})
