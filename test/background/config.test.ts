import { describe, expect, it } from "vitest"
import { decodeBackgroundConfig, defaultBackgroundConfig } from "../../src/background/config.ts"

const decode = (json: unknown) => decodeBackgroundConfig("/c.json", JSON.stringify(json))

describe("background config keys", () => {
  it("defaults: extractor 5 turns, dream 50, the session's model", () => {
    expect(decode({}).config).toEqual(defaultBackgroundConfig)
    expect(defaultBackgroundConfig.extractor).toEqual({ model: undefined, maxTurns: 5, maxTokens: 8192, requestTimeoutSeconds: 120, skipExternalContext: false })
    expect(defaultBackgroundConfig.dream.maxTurns).toBe(50)
    expect(defaultBackgroundConfig.dream.requestTimeoutSeconds).toBe(120)
  })
  it("takes valid values and keeps the other keys' defaults", () => {
    const { config, warnings } = decode({ extractor: { model: "faux/faux-2", maxTurns: 1 }, dream: { maxTokens: 256 } })
    expect(config.extractor).toEqual({ model: "faux/faux-2", maxTurns: 1, maxTokens: 8192, requestTimeoutSeconds: 120, skipExternalContext: false })
    expect(config.dream).toEqual({ model: undefined, maxTurns: 50, maxTokens: 256, requestTimeoutSeconds: 120 })
    expect(warnings).toEqual([])
  })
  it("maxTurns at its edges: 1 and 200 pass, 0, 201 and 2.5 fall back with a warning", () => {
    expect(decode({ extractor: { maxTurns: 200 } }).config.extractor.maxTurns).toBe(200)
    for (const bad of [0, 201, 2.5, "5"]) {
      const { config, warnings } = decode({ extractor: { maxTurns: bad } })
      expect(config.extractor.maxTurns).toBe(5)
      expect(warnings).toEqual([`/c.json: "extractor.maxTurns" must be an integer from 1 to 200 (found ${JSON.stringify(bad)}); using the default, 5.`])
    }
  })
  it("requestTimeoutSeconds at its edges: 1 and 3600 pass, 0.5, 0, 3601 and a string fall back with a warning", () => {
    expect(decode({ extractor: { requestTimeoutSeconds: 1 } }).config.extractor.requestTimeoutSeconds).toBe(1)
    expect(decode({ dream: { requestTimeoutSeconds: 3600 } }).config.dream.requestTimeoutSeconds).toBe(3600)
    expect(decode({ dream: { requestTimeoutSeconds: 2.5 } }).config.dream.requestTimeoutSeconds).toBe(2.5)
    for (const bad of [0.5, 0, 3601, "30"]) {
      const { config, warnings } = decode({ dream: { requestTimeoutSeconds: bad } })
      expect(config.dream.requestTimeoutSeconds).toBe(120)
      expect(warnings).toEqual([`/c.json: "dream.requestTimeoutSeconds" must be a number of seconds from 1 to 3600 (found ${JSON.stringify(bad)}); using the default, 120.`])
    }
  })
  it("a bad model or a non-object section falls back with a warning", () => {
    expect(decode({ extractor: { model: "no-slash" } }).warnings).toHaveLength(1)
    // The section's switch is src/project/config.ts's, which tells it once (and turns the dream off for it).
    expect(decode({ dream: [] })).toEqual({ config: defaultBackgroundConfig, warnings: [] })
    expect(decode({ extractor: { maxTurns: -3 } }).warnings).toEqual([`/c.json: "extractor.maxTurns" must be an integer from 1 to 200 (found -3); using the default, 5.`])
  })
  it("extractor.skipExternalContext takes true or false; anything else falls back to false with a warning", () => {
    expect(decode({ extractor: { skipExternalContext: true } }).config.extractor.skipExternalContext).toBe(true)
    expect(decode({ extractor: { skipExternalContext: false } }).config.extractor.skipExternalContext).toBe(false)
    const { config, warnings } = decode({ extractor: { skipExternalContext: "yes" } })
    expect(config.extractor.skipExternalContext).toBe(false)
    expect(warnings).toEqual([`/c.json: "extractor.skipExternalContext" must be true or false (found "yes"); using the default, false.`])
  })

  it("a broken file is the defaults (the main config reports it)", () => {
    expect(decodeBackgroundConfig("/c.json", "{ nope")).toEqual({ config: defaultBackgroundConfig, warnings: [] })
  })
})
