/** Requests within the model's limits (pure): the estimate, the output ceiling and the fit, at their edges. */
import { describe, expect, it } from "vitest"
import {
  estimateInputTokens,
  fitRequest,
  fittingSuffix,
  IMAGE_CHARS,
  maxInputTokens,
  MIN_OUTPUT_TOKENS,
  outputCeiling,
  toolChars
} from "../../src/model/requestFit.ts"

const model = { contextWindow: 10_000, maxTokens: 4_096 }

describe("the output ceiling", () => {
  it("is the configured value, never above the model's maxTokens", () => {
    expect(outputCeiling(4_095, model)).toBe(4_095)
    expect(outputCeiling(4_096, model)).toBe(4_096)
    expect(outputCeiling(4_097, model)).toBe(4_096)
    expect(outputCeiling(8_192, model)).toBe(4_096)
    // A model that declares no limit keeps the configured value.
    expect(outputCeiling(8_192, { contextWindow: 0, maxTokens: 0 })).toBe(8_192)
  })
})

describe("the fit in the context window", () => {
  it("asks for the ceiling while the window leaves room for it", () => {
    expect(fitRequest(model, 8_192, 10_000 - 4_096)).toEqual({ fits: true, maxTokens: 4_096, inputTokens: 5_904 })
  })
  it("lowers the output to what the window leaves, down to MIN_OUTPUT_TOKENS", () => {
    expect(fitRequest(model, 8_192, 10_000 - 4_095)).toMatchObject({ fits: true, maxTokens: 4_095 })
    expect(fitRequest(model, 8_192, 10_000 - MIN_OUTPUT_TOKENS)).toMatchObject({ fits: true, maxTokens: MIN_OUTPUT_TOKENS })
    const over = fitRequest(model, 8_192, 10_000 - MIN_OUTPUT_TOKENS + 1)
    expect(over.fits).toBe(false)
    expect(over).toMatchObject({ reason: expect.stringContaining("10000-token context window") })
  })
  it("needs only the ceiling when it is below MIN_OUTPUT_TOKENS (the selector's 512)", () => {
    expect(fitRequest(model, 512, 10_000 - 512)).toMatchObject({ fits: true, maxTokens: 512 })
    expect(fitRequest(model, 512, 10_000 - 511).fits).toBe(false)
    expect(maxInputTokens(model, 512)).toBe(9_488)
    expect(maxInputTokens(model, 8_192)).toBe(10_000 - MIN_OUTPUT_TOKENS)
  })
  it("checks nothing against an unknown window", () => {
    expect(fitRequest({ contextWindow: 0, maxTokens: 4_096 }, 8_192, 1e9)).toMatchObject({ fits: true, maxTokens: 4_096 })
    expect(maxInputTokens({ contextWindow: 0, maxTokens: 4_096 }, 8_192)).toBe(Number.POSITIVE_INFINITY)
  })
})

describe("the estimate: characters / 4, rounded up", () => {
  it("counts text, tool calls, images, system sections and declarations, and declared tools", () => {
    expect(estimateInputTokens({ messages: [{ role: "user", content: "abcd" }] })).toBe(1)
    expect(estimateInputTokens({ messages: [{ role: "user", content: "abcde" }] })).toBe(2)
    expect(estimateInputTokens({ systemPrompt: "abc", messages: [{ role: "user", content: [{ type: "text", text: "d" }] }] })).toBe(1)
    const call = { type: "toolCall", name: "read", arguments: { path: "/a" } }
    expect(estimateInputTokens({ messages: [{ role: "assistant", content: [call] }] })).toBe(Math.ceil((4 + JSON.stringify({ path: "/a" }).length) / 4))
    expect(estimateInputTokens({ messages: [{ role: "user", content: [{ type: "image" }] }] })).toBe(IMAGE_CHARS / 4)
    const tool = { name: "t", description: "d", parameters: { type: "object" } }
    expect(estimateInputTokens({ messages: [], tools: [tool] })).toBe(Math.ceil(toolChars(tool) / 4))
    const system = { role: "system", content: "ab", sections: { x: "cd" }, toolsAdded: [tool] }
    expect(estimateInputTokens({ messages: [system] })).toBe(Math.ceil((4 + toolChars(tool)) / 4))
  })
})

describe("the most recent messages that fit", () => {
  it("keeps the longest suffix within the budget", () => {
    expect(fittingSuffix([5, 3, 2], 5)).toBe(2)
    expect(fittingSuffix([5, 3, 2], 4)).toBe(1)
    expect(fittingSuffix([5, 3, 2], 10)).toBe(3)
    expect(fittingSuffix([5, 3, 2], 9)).toBe(2)
    expect(fittingSuffix([5, 3, 2], 1)).toBe(0)
    expect(fittingSuffix([], 1)).toBe(0)
  })
})
