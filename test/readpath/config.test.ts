import { Effect, Layer } from "effect"
import { chmodSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { describe, expect, it } from "vitest"
import { closedConfig, decodeConfig, defaultConfig, expandHome, switchesFor } from "../../src/project/config.ts"
import { agentDirFromEnv, ConfigService } from "../../layers/project/ConfigService.ts"
import { FileSystem } from "../../layers/storage/FileSystem.ts"
import { FsError } from "../../layers/storage/FsError.ts"
import { type FileSystemShape } from "../../layers/storage/fileSystemShape.ts"
import { makeNodeFileSystem } from "../../layers/storage/nodeFileSystem.ts"
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
    expect(config).toEqual({
      enabled: false,
      switches: { enabled: false },
      projects: {},
      autoMemoryDirectory: "/srv/mem",
      selector: { model: "anthropic/claude-haiku" },
      protectedPaths: { exceptions: [], extraProtections: [] },
      sandbox: { whenUnavailable: "refuse" }
    })
  })

  it("decodes protectedPaths: allow entries ~-expanded and exact, add kept; a relative allow entry warns and is dropped", () => {
    const { config, warnings } = decodeConfig(
      FILE,
      JSON.stringify({ protectedPaths: { allow: ["~/work/app/.env", "rel/.env"], add: ["secrets.yaml", "/srv/vault"] } }),
      HOME
    )
    expect(config.protectedPaths).toEqual({ exceptions: ["/home/alice/work/app/.env"], extraProtections: ["secrets.yaml", "/srv/vault"] })
    expect(warnings).toHaveLength(1)
    expect(warnings[0]!.key).toBe("protectedPaths")
    const bad = decodeConfig(FILE, JSON.stringify({ enabled: false, protectedPaths: { allow: "x" } }), HOME)
    expect(bad.config.protectedPaths).toEqual(defaultConfig.protectedPaths)
    expect(bad.config.enabled).toBe(false)
    expect(bad.warnings.map((w) => w.key)).toEqual(["protectedPaths.allow"])
    expect(bad.warnings[0]!.message).toBe(`${FILE}: "protectedPaths.allow" must be a list of paths (found "x"); using the default.`)
  })

  it("fails closed on invalid JSON: memory off, one warning naming the file", () => {
    const { config, warnings, unusable } = decodeConfig(FILE, "{ enabled: tru", HOME)
    expect(config).toEqual(closedConfig("config.json is not valid JSON"))
    expect(config.enabled).toBe(false)
    expect(unusable).toBe(true)
    expect(warnings[0]!.message).toContain("project memory stays off until it is fixed")
    expect(warnings).toHaveLength(1)
    expect(warnings[0]!.file).toBe(FILE)
    expect(warnings[0]!.message).toContain(FILE)
    expect(warnings[0]!.message).not.toContain("\n")
  })

  it("fails closed when the file is not an object", () => {
    for (const text of ["[]", "42", "null", '"x"']) {
      const { config, warnings } = decodeConfig(FILE, text, HOME)
      expect(config.enabled).toBe(false)
      expect(switchesFor(config, "/p").memory).toEqual({ on: false, from: "global" })
      expect(warnings).toHaveLength(1)
    }
  })

  it("a switch that is not a boolean is off (fail closed), with one warning naming file and key; other keys still apply", () => {
    const { config, warnings } = decodeConfig(FILE, JSON.stringify({ enabled: "yes", autoMemoryDirectory: "~/mem" }), HOME)
    expect(config.enabled).toBe(false)
    expect(config.autoMemoryDirectory).toBe("/home/alice/mem")
    expect(warnings).toHaveLength(1)
    expect(warnings[0]).toMatchObject({ file: FILE, key: "enabled" })
    expect(warnings[0]!.message).toContain(FILE)
    expect(warnings[0]!.message).toBe(`${FILE}: "enabled" must be true or false (found "yes"); treated as false (off) until it is fixed.`)
  })

  it("warns once per bad key", () => {
    const { config, warnings } = decodeConfig(FILE, JSON.stringify({ enabled: 1, selector: { model: "no-slash" } }), HOME)
    expect(config.selector).toEqual(defaultConfig.selector)
    expect(warnings.map((w) => w.key)).toEqual(["enabled", "selector.model"])
    // One line each, the value and what it must be, never the schema's dump.
    expect(warnings[1]!.message).toBe(`${FILE}: "selector.model" must be "provider/model-id" (for example "anthropic/claude-haiku-4-5") (found "no-slash"); using the default.`)
    expect(decodeConfig(FILE, JSON.stringify({ selector: "haiku" }), HOME).warnings[0]!.message).toBe(
      `${FILE}: "selector" must be an object (found "haiku"); using the default.`
    )
    for (const w of warnings) expect(w.message).not.toMatch(/\n|readonly|Expected|└|─/)
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

  it("warns, never fails, and fails closed when config.json is a directory", async () => {
    const { agentDir, home, storageRoot } = tempAgent()
    mkdirSync(join(storageRoot, "config.json"), { recursive: true })
    const { config, warnings } = await load(agentDir, home)
    expect(config.enabled).toBe(false)
    expect(warnings).toHaveLength(1)
    expect(warnings[0]!.message).toContain("config.json")
  })
})

describe("ConfigService.setKey", () => {
  const setKey = (agentDir: string, home: string, key: string, value: unknown, overrides: Partial<FileSystemShape> = {}) =>
    Effect.runPromise(
      Effect.flatMap(ConfigService, (c) => Effect.either(c.setKey(key, value))).pipe(
        Effect.provide(ConfigService.layerWith({ agentDir, home }).pipe(Layer.provide(FileSystem.layerWith(overrides))))
      )
    )
  const entries = (dir: string) => readdirSync(dir).sort()

  it("creates the file (and its folder) holding just the key when there is none", async () => {
    const { agentDir, home, storageRoot } = tempAgent()
    expect(await setKey(agentDir, home, "enabled", false)).toMatchObject({ _tag: "Right" })
    expect(JSON.parse(readFileSync(join(storageRoot, "config.json"), "utf8"))).toEqual({ enabled: false })
    expect(entries(storageRoot)).toEqual(["config.json"])
  })

  it("keeps every other key (unknown ones too) and the file's permission bits", async () => {
    const { agentDir, home, storageRoot } = tempAgent()
    mkdirSync(storageRoot, { recursive: true })
    const path = join(storageRoot, "config.json")
    writeFileSync(path, JSON.stringify({ selector: { model: "a/b" }, future: [1, 2], enabled: true }), { mode: 0o600 })
    chmodSync(path, 0o600)
    expect(await setKey(agentDir, home, "enabled", false)).toMatchObject({ _tag: "Right" })
    expect(JSON.parse(readFileSync(path, "utf8"))).toEqual({ selector: { model: "a/b" }, future: [1, 2], enabled: false })
    expect(statSync(path).mode & 0o777).toBe(0o600)
    expect(entries(storageRoot)).toEqual(["config.json"])
  })

  it("an empty file holds nothing to lose: it is written", async () => {
    const { agentDir, home, storageRoot } = tempAgent()
    mkdirSync(storageRoot, { recursive: true })
    writeFileSync(join(storageRoot, "config.json"), " \n")
    expect(await setKey(agentDir, home, "enabled", true)).toMatchObject({ _tag: "Right" })
    expect(JSON.parse(readFileSync(join(storageRoot, "config.json"), "utf8"))).toEqual({ enabled: true })
  })

  for (const [label, text] of [
    ["invalid JSON", '{"selector": {"model": "a/b"}, "enabled": tru'],
    ["an array", "[1, 2]"],
    ["a string", '"enabled"'],
    ["null", "null"]
  ] as const) {
    it(`a file holding ${label} is left untouched and the call fails with ConfigWriteFailed("invalid")`, async () => {
      const { agentDir, home, storageRoot } = tempAgent()
      mkdirSync(storageRoot, { recursive: true })
      writeFileSync(join(storageRoot, "config.json"), text)
      const result = await setKey(agentDir, home, "enabled", false)
      expect(result).toMatchObject({ _tag: "Left", left: { _tag: "ConfigWriteFailed", reason: "invalid" } })
      if (result._tag === "Left") expect(result.left.message).toContain("nothing was changed")
      expect(readFileSync(join(storageRoot, "config.json"), "utf8")).toBe(text)
      expect(entries(storageRoot)).toEqual(["config.json"])
    })
  }

  it("a file that exists but cannot be read is left untouched: ConfigWriteFailed(\"unreadable\"), nothing written", async () => {
    const { agentDir, home, storageRoot } = tempAgent()
    mkdirSync(storageRoot, { recursive: true })
    const path = join(storageRoot, "config.json")
    writeFileSync(path, JSON.stringify({ selector: { model: "a/b" } }))
    let writes = 0
    const result = await setKey(agentDir, home, "enabled", false, {
      readRegularFile: (p) => Effect.fail(new FsError({ op: "open", path: p, reason: "PermissionDenied", detail: "EACCES" })),
      writeFile: (p) => Effect.sync(() => writes++).pipe(Effect.zipRight(Effect.fail(new FsError({ op: "write", path: p, reason: "Unknown", detail: "unexpected" }))))
    })
    expect(result).toMatchObject({ _tag: "Left", left: { _tag: "ConfigWriteFailed", reason: "unreadable", fsReason: "PermissionDenied" } })
    expect(writes).toBe(0)
    expect(JSON.parse(readFileSync(path, "utf8"))).toEqual({ selector: { model: "a/b" } })
  })

  it("a config.json that is a directory is unreadable: nothing written", async () => {
    const { agentDir, home, storageRoot } = tempAgent()
    mkdirSync(join(storageRoot, "config.json"), { recursive: true })
    expect(await setKey(agentDir, home, "enabled", false)).toMatchObject({ _tag: "Left", left: { reason: "unreadable" } })
    expect(entries(storageRoot)).toEqual(["config.json"])
  })

  for (const step of ["writeFile", "rename"] as const) {
    it(`a failure at the ${step === "writeFile" ? "temp write" : "rename"} leaves the file as it was and no temp file`, async () => {
      const { agentDir, home, storageRoot } = tempAgent()
      mkdirSync(storageRoot, { recursive: true })
      const path = join(storageRoot, "config.json")
      const before = JSON.stringify({ enabled: true, selector: { model: "a/b" } })
      writeFileSync(path, before)
      const base = makeNodeFileSystem()
      const result = await setKey(agentDir, home, "enabled", false, {
        [step]: (...args: Array<string>) =>
          step === "writeFile"
            // Half the bytes reach the temp file, then the write fails.
            ? base.writeFile(args[0]!, "{\"ena", { flag: "wx" }).pipe(
              Effect.zipRight(Effect.fail(new FsError({ op: "write", path: args[0]!, reason: "Busy", detail: "EIO" })))
            )
            : Effect.fail(new FsError({ op: "rename", path: args[0]!, reason: "Busy", detail: "EIO" }))
      })
      expect(result).toMatchObject({ _tag: "Left", left: { _tag: "ConfigWriteFailed", reason: "write" } })
      expect(readFileSync(path, "utf8")).toBe(before)
      expect(entries(storageRoot)).toEqual(["config.json"])
    })
  }

  it("the temp file is created exclusively: an existing file at the temp name is never written through", async () => {
    const { agentDir, home, storageRoot } = tempAgent()
    mkdirSync(storageRoot, { recursive: true })
    const seen: Array<unknown> = []
    const base = makeNodeFileSystem()
    const result = await setKey(agentDir, home, "enabled", false, {
      writeFile: (p, data, options) => Effect.sync(() => seen.push(options)).pipe(Effect.zipRight(base.writeFile(p, data, options)))
    })
    expect(result._tag).toBe("Right")
    expect(seen).toEqual([expect.objectContaining({ flag: "wx", noFollow: true })])
  })
})

describe("switches: memory, extraction, dream and recall, globally and per project", () => {
  const decode = (json: unknown) => decodeConfig(FILE, JSON.stringify(json), HOME)
  it("everything is on by default, nothing set anywhere", () => {
    expect(switchesFor(defaultConfig, "/p")).toEqual({
      memory: { on: true, from: "default" },
      extraction: { on: true, from: "default" },
      dream: { on: true, from: "default" },
      recall: { on: true, from: "default" }
    })
  })
  it("each feature switches on its own; the most specific level wins; a feature is off while memory is", () => {
    const { config, warnings } = decode({
      extractor: { enabled: false, maxTurns: 3 },
      recall: { enabled: true },
      projects: { "/p": { recall: { enabled: false }, extractor: { enabled: true } }, "/q": { enabled: false } }
    })
    expect(warnings).toEqual([])
    expect(switchesFor(config, "/elsewhere")).toMatchObject({ memory: { on: true }, extraction: { on: false, from: "global" }, dream: { on: true }, recall: { on: true, from: "global" } })
    expect(switchesFor(config, "/p")).toMatchObject({ extraction: { on: true, from: "project" }, recall: { on: false, from: "project" }, dream: { on: true, from: "default" } })
    expect(switchesFor(config, "/q")).toMatchObject({ memory: { on: false, from: "project" }, extraction: { on: false }, dream: { on: false }, recall: { on: false } })
    // Memory off globally, on for one project.
    const only = decode({ enabled: false, projects: { "/p": { enabled: true } } }).config
    expect(switchesFor(only, "/p").memory).toEqual({ on: true, from: "project" })
    expect(switchesFor(only, "/other").memory).toEqual({ on: false, from: "global" })
  })
  it("fails closed: a switch or a section that cannot be read is off, one line each", () => {
    const { config, warnings } = decode({ dream: { enabled: "no" }, recall: 1, projects: { "/p": [], "rel": {} } })
    expect(switchesFor(config, "/x")).toMatchObject({ memory: { on: true }, dream: { on: false }, recall: { on: false }, extraction: { on: true } })
    expect(switchesFor(config, "/p").memory.on).toBe(false)
    expect(warnings.map((w) => w.message)).toEqual([
      `${FILE}: "dream.enabled" must be true or false (found "no"); treated as false (off) until it is fixed.`,
      `${FILE}: "recall" must be an object (found 1); recall is off until it is fixed.`,
      `${FILE}: "projects" key "rel" is not an absolute project root; ignored.`,
      `${FILE}: "projects["/p"]" must be an object (found []); memory is off for that project until it is fixed.`
    ].sort((a, b) => warnings.findIndex((w) => w.message === a) - warnings.findIndex((w) => w.message === b)))
    expect(warnings).toHaveLength(4)
  })
})

describe("ConfigService: a file that cannot be used fails closed", () => {
  const service = (agentDir: string, home: string) =>
    Effect.runSync(Effect.provide(ConfigService, ConfigService.layerWith({ agentDir, home }).pipe(Layer.provide(FileSystem.layer))))
  it("keeps the settings it last read; with none read, memory is off; never the defaults", async () => {
    const { agentDir, home, storageRoot } = tempAgent()
    mkdirSync(storageRoot, { recursive: true })
    const file = join(storageRoot, "config.json")
    writeFileSync(file, JSON.stringify({ enabled: false, recall: { enabled: false } }))
    const config = service(agentDir, home)
    expect((await Effect.runPromise(config.load)).config.enabled).toBe(false)
    // A bad edit: the person had switched memory off, and it stays off.
    writeFileSync(file, '{ "enabled": false, ')
    const broken = await Effect.runPromise(config.load)
    expect(broken.config.enabled).toBe(false)
    expect(broken.config.switches.recall).toBe(false)
    expect(broken.warnings).toHaveLength(1)
    expect(broken.warnings[0]!.message).toContain("keeping the settings read before")
    // A process that never read it (pm, a new Pi): off, with the reason.
    const fresh = await Effect.runPromise(service(agentDir, home).load)
    expect(fresh.config.enabled).toBe(false)
    expect(fresh.config.closed).toBe("config.json is not valid JSON")
    expect(fresh.warnings[0]!.message).toContain("project memory stays off until it is fixed")
    // Unreadable after a good read: the last good settings again.
    writeFileSync(file, JSON.stringify({ enabled: true }))
    expect((await Effect.runPromise(config.load)).config.enabled).toBe(true)
    if (process.getuid?.() !== 0) {
      chmodSync(file, 0o000)
      const unreadable = await Effect.runPromise(config.load)
      expect(unreadable.config.enabled).toBe(true)
      expect(unreadable.warnings[0]!.message).toContain("could not be read")
      const freshUnreadable = await Effect.runPromise(service(agentDir, home).load)
      expect(freshUnreadable.config.enabled).toBe(false)
      chmodSync(file, 0o600)
    }
  })
  it("setKey with a path makes nested objects and keeps every other key", async () => {
    const { agentDir, home, storageRoot } = tempAgent()
    mkdirSync(storageRoot, { recursive: true })
    const file = join(storageRoot, "config.json")
    writeFileSync(file, JSON.stringify({ extractor: { maxTurns: 3 }, other: 1 }))
    const config = service(agentDir, home)
    await Effect.runPromise(config.setKey(["extractor", "enabled"], false))
    await Effect.runPromise(config.setKey(["projects", "/a/b", "recall", "enabled"], false))
    expect(JSON.parse(readFileSync(file, "utf8"))).toEqual({ extractor: { maxTurns: 3, enabled: false }, other: 1, projects: { "/a/b": { recall: { enabled: false } } } })
    writeFileSync(file, JSON.stringify({ dream: 5 }))
    const refused = await Effect.runPromise(Effect.flip(config.setKey(["dream", "enabled"], false)))
    expect(refused.reason).toBe("invalid")
    expect(readFileSync(file, "utf8")).toBe(JSON.stringify({ dream: 5 }))
  })
})
