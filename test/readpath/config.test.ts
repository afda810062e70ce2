import { Effect, Layer } from "effect"
import { mkdirSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { describe, expect, it } from "vitest"
import { decodeConfig, defaultConfig, expandHome } from "../../src/config.ts"
import { agentDirFromEnv, ConfigService } from "../../layers/ConfigService.ts"
import { FileSystem } from "../../layers/FileSystem.ts"
import { tempAgent } from "../support/tmp.ts"

const FILE = "/agent/project-memory/config.json"
const HOME = "/home/alice"

describe("decodeConfig", () => {
  it("decodes a valid file", () => {
    const { config, warnings } = decodeConfig(
      FILE,
      JSON.stringify({ enabled: false, autoMemoryDirectory: "/srv/mem", selector: { model: "anthropic/claude-haiku" } }),
      HOME
    )
    expect(warnings).toEqual([])
    expect(config).toEqual({ enabled: false, autoMemoryDirectory: "/srv/mem", selector: { model: "anthropic/claude-haiku" } })
  })

  it("gives defaults and one warning naming the file for invalid JSON", () => {
    const { config, warnings } = decodeConfig(FILE, "{ enabled: tru", HOME)
    expect(config).toEqual(defaultConfig)
    expect(warnings).toHaveLength(1)
    expect(warnings[0]!.file).toBe(FILE)
    expect(warnings[0]!.message).toContain(FILE)
    expect(warnings[0]!.message).not.toContain("\n")
  })

  it("gives defaults and one warning when the file is not an object", () => {
    for (const text of ["[]", "42", "null", '"x"']) {
      const { config, warnings } = decodeConfig(FILE, text, HOME)
      expect(config).toEqual(defaultConfig)
      expect(warnings).toHaveLength(1)
    }
  })

  it("replaces one bad key by its default with one warning naming file and key; other keys still apply", () => {
    const { config, warnings } = decodeConfig(FILE, JSON.stringify({ enabled: "yes", autoMemoryDirectory: "~/mem" }), HOME)
    expect(config.enabled).toBe(true)
    expect(config.autoMemoryDirectory).toBe("/home/alice/mem")
    expect(warnings).toHaveLength(1)
    expect(warnings[0]).toMatchObject({ file: FILE, key: "enabled" })
    expect(warnings[0]!.message).toContain(FILE)
    expect(warnings[0]!.message).toContain('"enabled"')
  })

  it("warns once per bad key", () => {
    const { config, warnings } = decodeConfig(FILE, JSON.stringify({ enabled: 1, selector: { model: "no-slash" } }), HOME)
    expect(config).toEqual(defaultConfig)
    expect(warnings.map((w) => w.key)).toEqual(["enabled", "selector"])
  })

  it("expands ~ in autoMemoryDirectory", () => {
    expect(decodeConfig(FILE, '{"autoMemoryDirectory":"~"}', HOME).config.autoMemoryDirectory).toBe(HOME)
    expect(decodeConfig(FILE, '{"autoMemoryDirectory":"~/a/b"}', HOME).config.autoMemoryDirectory).toBe("/home/alice/a/b")
    expect(expandHome("/abs/~/x", HOME)).toBe("/abs/~/x")
  })

  it("rejects a relative autoMemoryDirectory (and ~user) with a warning", () => {
    for (const dir of ["mem", "./mem", "../mem", "~bob/mem", ""]) {
      const { config, warnings } = decodeConfig(FILE, JSON.stringify({ autoMemoryDirectory: dir }), HOME)
      expect(config.autoMemoryDirectory, dir).toBeUndefined()
      expect(warnings, dir).toHaveLength(1)
      expect(warnings[0]!.key).toBe("autoMemoryDirectory")
    }
  })

  it("ignores unknown keys", () => {
    expect(decodeConfig(FILE, '{"somethingElse": 1}', HOME)).toEqual({ config: defaultConfig, warnings: [] })
  })
})

describe("agentDirFromEnv (D2)", () => {
  it("uses PI_CODING_AGENT_DIR when set, resolved and with ~ expanded", () => {
    expect(agentDirFromEnv({ PI_CODING_AGENT_DIR: "/x/agent" }, HOME)).toBe("/x/agent")
    expect(agentDirFromEnv({ PI_CODING_AGENT_DIR: "~/agent2" }, HOME)).toBe("/home/alice/agent2")
  })

  it("falls back to ~/.pi/agent when unset or empty", () => {
    expect(agentDirFromEnv({}, HOME)).toBe("/home/alice/.pi/agent")
    expect(agentDirFromEnv({ PI_CODING_AGENT_DIR: "" }, HOME)).toBe("/home/alice/.pi/agent")
  })
})

describe("ConfigService.load on real files", () => {
  const load = (agentDir: string, home: string) =>
    Effect.runPromise(
      Effect.flatMap(ConfigService, (c) => c.load).pipe(
        Effect.provide(ConfigService.layerWith({ agentDir, home }).pipe(Layer.provide(FileSystem.layer)))
      )
    )

  it("is the defaults without warnings when config.json is missing", async () => {
    const { agentDir, home } = tempAgent()
    expect(await load(agentDir, home)).toEqual({ config: defaultConfig, warnings: [] })
  })

  it("decodes the file under <agentDir>/project-memory/config.json", async () => {
    const { agentDir, home, storageRoot } = tempAgent()
    mkdirSync(storageRoot, { recursive: true })
    writeFileSync(join(storageRoot, "config.json"), '{"autoMemoryDirectory":"~/m","enabled":"nope"}')
    const { config, warnings } = await load(agentDir, home)
    expect(config.autoMemoryDirectory).toBe(join(home, "m"))
    expect(warnings).toEqual([expect.objectContaining({ file: join(storageRoot, "config.json"), key: "enabled" })])
  })

  it("warns, never fails, when config.json is a directory", async () => {
    const { agentDir, home, storageRoot } = tempAgent()
    mkdirSync(join(storageRoot, "config.json"), { recursive: true })
    const { config, warnings } = await load(agentDir, home)
    expect(config).toEqual(defaultConfig)
    expect(warnings).toHaveLength(1)
    expect(warnings[0]!.message).toContain("config.json")
  })
})
