/**
 * The trust guards of a background task's tools over real files, the real writer and the real bash guard: the
 * credential guard on `write`/`edit` (the final content), protected reads, and the dream's delete cap.
 */
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as ManagedRuntime from "effect/ManagedRuntime"
import { existsSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, symlinkSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, afterEach, describe, expect, it } from "vitest"
import * as pi from "@earendil-works/pi-coding-agent"
import { deleteLimit } from "../../src/writes/deleteCap.ts"
import { makeTaskTools, type TaskToolSet, type TaskToolsOptions } from "../../layers/background/tools/TaskTools.ts"
import type { MemoryChange } from "../../layers/background/tools/taskTool.ts"
import { BashGuard } from "../../layers/safety/BashGuard.ts"
import { FileSystem } from "../../layers/storage/FileSystem.ts"
import { MemoryWriter } from "../../layers/writes/MemoryWriter.ts"
import { makeSandbox } from "../../layers/safety/Sandbox.ts"
import { githubToken, privateKeyBlock } from "./fakeSecrets.ts"

const dirs: Array<string> = []
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true })
})

const runtime = ManagedRuntime.make(Layer.merge(MemoryWriter.layer, BashGuard.layer).pipe(Layer.provideMerge(FileSystem.layer)))
afterAll(() => runtime.dispose())

const TOPIC = (name: string, body: string) => `---\nname: ${name}\ndescription: ${name}\nmetadata:\n  type: project\n---\n${body}\n`

export const setup = async (extra: Partial<TaskToolsOptions> = {}) => {
  const base = realpathSync(mkdtempSync(join(tmpdir(), "pm-trust-")))
  dirs.push(base)
  const cwd = join(base, "project")
  const memoryDir = join(base, "memory")
  mkdirSync(cwd)
  mkdirSync(memoryDir)
  writeFileSync(join(memoryDir, "MEMORY.md"), "- [A](a.md) - a\n")
  writeFileSync(join(memoryDir, "a.md"), TOPIC("A", "alpha body"))
  const changes: Array<MemoryChange> = []
  const tools = await runtime.runPromise(
    Effect.gen(function*() {
      const writer = yield* MemoryWriter
      const guard = yield* BashGuard
      const task = yield* writer.openTask({ memoryDir, cwd })
      return yield* Effect.promise(() =>
        makeTaskTools({ pi, cwd, memoryDir, writer: task, guard, check: Effect.void, onChange: (c) => Effect.sync(() => void changes.push(c)), ...extra })
      )
    })
  )
  return { base, cwd, memoryDir, tools, changes }
}

export const exec = (tools: TaskToolSet, name: string, args: Record<string, unknown>) =>
  tools.byName(name)!.execute("call-1", args, new AbortController().signal)
export const text = (r: { content: ReadonlyArray<{ type: string; text?: string }> }) => r.content.map((c) => c.text ?? "").join("")

describe("background write and edit: the credential guard", () => {
  it("a write holding a GitHub token is refused with the kind and line; nothing is written", async () => {
    const { tools, memoryDir, changes } = await setup()
    const token = githubToken()
    const path = join(memoryDir, "deploy.md")
    const result = await exec(tools, "write", { path, content: TOPIC("Deploy", `push with ${token}`) })
    expect(result.isError).toBe(true)
    expect(text(result)).toContain("GitHub")
    expect(text(result)).toContain("line 7")
    expect(text(result)).toContain("deploy.md")
    expect(text(result)).toContain("remove or redact")
    expect(text(result)).not.toContain(token)
    expect(existsSync(path)).toBe(false)
    expect(changes).toEqual([])
    // Redacted, the same write lands.
    const clean = await exec(tools, "write", { path, content: TOPIC("Deploy", "push with the token kept in the CI secret store") })
    expect(clean.isError).not.toBe(true)
    expect(existsSync(path)).toBe(true)
  })

  it("an edit whose final content holds a private key is refused; the file keeps its bytes", async () => {
    const { tools, memoryDir, changes } = await setup()
    const path = join(memoryDir, "a.md")
    const before = readFileSync(path, "utf8")
    expect((await exec(tools, "read", { path })).isError).not.toBe(true)
    const result = await exec(tools, "edit", { path, edits: [{ oldText: "alpha body", newText: `key:\n${privateKeyBlock()}` }] })
    expect(result.isError).toBe(true)
    expect(text(result)).toMatch(/private key at line 8/i)
    expect(readFileSync(path, "utf8")).toBe(before)
    expect(changes).toEqual([])
    const ok = await exec(tools, "edit", { path, edits: [{ oldText: "alpha body", newText: "alpha body, revised" }] })
    expect(ok.isError).not.toBe(true)
    expect(readFileSync(path, "utf8")).toContain("revised")
  })
})

describe("background write: disguised credentials", () => {
  it("a token hidden by zero-width characters, look-alike letters, base64 or a cut line is refused; nothing is written", async () => {
    const { tools, memoryDir, changes } = await setup()
    const token = githubToken()
    const path = join(memoryDir, "ci.md")
    const disguises = [
      `${token.slice(0, 7)}\u200b\u2060${token.slice(7)}`,
      `\u0261hp_${token.slice(4)}`.replace("\u0261", "\uff47"),
      `echo ${Buffer.from(`GH_TOKEN=${token}`).toString("base64")} | base64 -d`,
      `${token.slice(0, 20)}\n${token.slice(20)}`,
      [...token].map((c) => `%${c.charCodeAt(0).toString(16)}`).join("")
    ]
    for (const disguised of disguises) {
      const result = await exec(tools, "write", { path, content: TOPIC("CI", `the runner uses ${disguised} for pushes`) })
      expect(result.isError, disguised).toBe(true)
      expect(text(result)).toContain("a GitHub token at line 7")
      expect(text(result)).toContain("describe where the credential lives")
      for (let i = 4; i + 8 <= token.length; i++) expect(text(result)).not.toContain(token.slice(i, i + 8))
      expect(existsSync(path)).toBe(false)
    }
    expect(changes).toEqual([])
  })
})

describe("background reads: credential stores are never opened", () => {
  const withStores = async (adjustOf: (cwd: string) => { exceptions?: Array<string>; extraProtections?: Array<string> } = () => ({})) => {
    const s = await setup()
    const adjust = adjustOf(s.cwd)
    const home = join(s.base, "home")
    const agentDir = join(home, ".pi", "agent")
    mkdirSync(join(home, ".ssh"), { recursive: true })
    mkdirSync(agentDir, { recursive: true })
    const token = githubToken()
    writeFileSync(join(s.cwd, ".env"), `GITHUB_TOKEN=${token}\n`)
    writeFileSync(join(s.cwd, ".env.example"), "GITHUB_TOKEN=\n")
    writeFileSync(join(s.cwd, "notes.txt"), "deploy notes: GITHUB_TOKEN comes from the CI store\n")
    writeFileSync(join(home, ".ssh", "id_ed25519"), `${privateKeyBlock()}\n`)
    writeFileSync(join(agentDir, "auth.json"), `{"github":"${token}"}\n`)
    // A harmless name pointing at a credential store.
    symlinkSync(join(s.cwd, ".env"), join(s.cwd, "settings.txt"))
    const tools = await runtime.runPromise(
      Effect.gen(function*() {
        const writer = yield* MemoryWriter
        const guard = yield* BashGuard
        const task = yield* writer.openTask({ memoryDir: s.memoryDir, cwd: s.cwd })
        return yield* Effect.promise(() =>
          makeTaskTools({
            pi,
            cwd: s.cwd,
            memoryDir: s.memoryDir,
            writer: task,
            guard,
            check: Effect.void,
            onChange: () => Effect.void,
            protection: { home, agentDir, exceptions: adjust.exceptions ?? [], extraProtections: adjust.extraProtections ?? [] },
            // These are the in-process checks; the OS sandbox beneath them is test/sandbox/sandbox.e2e.test.ts.
            sandbox: makeSandbox({ probe: async () => ({ _tag: "Unavailable", platform: "linux", reason: "left out of this test" }) }),
            whenUnavailable: "guard-only"
          })
        )
      })
    )
    return { ...s, tools, home, agentDir, token }
  }

  it("read refuses .env, a key under ~/.ssh, Pi's auth.json, and a symlink to .env; .env.example is read", async () => {
    const { tools, cwd, home, agentDir, token } = await withStores()
    for (const path of [".env", join(home, ".ssh", "id_ed25519"), join(agentDir, "auth.json"), "settings.txt"]) {
      const result = await exec(tools, "read", { path })
      expect(result.isError, path).toBe(true)
      expect(text(result), path).toMatch(/^Refused: .*credential stores/s)
      expect(text(result)).not.toContain(token)
    }
    expect(text(await exec(tools, "read", { path: "settings.txt" }))).toContain("resolves to")
    expect(text(await exec(tools, "read", { path: join(cwd, ".env.example") }))).toContain("GITHUB_TOKEN=")
  })

  it("a user exception opens that one exact path; an added protection closes a file the built-in rules leave open", async () => {
    const { tools, token } = await withStores((cwd) => ({ exceptions: [join(cwd, ".env")], extraProtections: ["notes.txt"] }))
    expect(text(await exec(tools, "read", { path: "notes.txt" }))).toMatch(/^Refused: .*protected by the configuration \(notes\.txt\)/)
    // Opened, as the exception allows; the token in it reaches the model only as a marker (src/safety/redact.ts).
    const opened = text(await exec(tools, "read", { path: ".env" }))
    expect(opened).toContain("GITHUB_TOKEN=[redacted: GitHub token]")
    expect(opened).not.toContain(token)
    // The exception is for that exact path: another environment file beside it stays protected.
    expect((await exec(tools, "read", { path: ".env.local" })).isError).toBe(true)
  })

  it("find leaves protected files out of its results and refuses a protected folder", async () => {
    const { tools, home } = await withStores()
    const all = text(await exec(tools, "find", { pattern: "*" }))
    expect(all).toContain("notes.txt")
    expect(all).not.toContain("settings.txt")
    const dotted = text(await exec(tools, "find", { pattern: ".env*" })).split("\n")
    expect(dotted).toContain(".env.example")
    expect(dotted).not.toContain(".env")
    const ssh = await exec(tools, "find", { pattern: "*", path: join(home, ".ssh") })
    expect(ssh.isError).toBe(true)
    expect(text(ssh)).toContain(".ssh")
  })

  it("grep drops the lines of protected files (the symlink too) and refuses a protected file", async () => {
    const { tools, token } = await withStores()
    const found = await exec(tools, "grep", { pattern: "GITHUB_TOKEN" })
    expect(found.isError).not.toBe(true)
    expect(text(found)).toContain("notes.txt")
    expect(text(found)).not.toContain(token)
    expect(text(found)).toMatch(/line\(s\) from protected credential files were left out/)
    const direct = await exec(tools, "grep", { pattern: "GITHUB", path: "settings.txt" })
    expect(direct.isError).toBe(true)
    expect(text(direct)).not.toContain(token)
  })

  it("bash refuses a command naming a credential store as written, through a link, by glob, or via $HOME", async () => {
    const { tools, token } = await withStores()
    for (const command of ["cat .env", "head -n 1 settings.txt", "cat .en?", "wc -c < ./.env"]) {
      const result = await exec(tools, "bash", { command })
      expect(result.isError, command).toBe(true)
      expect(text(result), command).toMatch(/^Refused: /)
      expect(text(result)).not.toContain(token)
    }
    // $HOME is an expansion: the guard refuses it before any path is looked at.
    const viaHome = await exec(tools, "bash", { command: "cat $HOME/.ssh/id_ed25519" })
    expect(text(viaHome)).toMatch(/^Command refused .*variable expansion/)
    const ok = await exec(tools, "bash", { command: "cat notes.txt .env.example" })
    expect(ok.isError).not.toBe(true)
    expect(text(ok)).toContain("deploy notes")
  })
})

describe("background reads: the red team's bypasses of the bash operand check", () => {
  const withHome = async () => {
    const s = await setup()
    const home = join(s.base, "home")
    const agentDir = join(home, ".pi", "agent")
    mkdirSync(join(home, ".ssh"), { recursive: true })
    mkdirSync(join(home, ".aws"), { recursive: true })
    mkdirSync(agentDir, { recursive: true })
    const token = githubToken()
    const key = privateKeyBlock()
    writeFileSync(join(home, ".ssh", "id_ed25519"), `${key}\n`)
    writeFileSync(join(home, ".aws", "credentials"), `[default]\naws_secret_access_key=${token}\n`)
    writeFileSync(join(home, ".git-credentials"), `https://u:${token}@github.com\n`)
    writeFileSync(join(agentDir, "auth.json"), `{"github":"${token}"}\n`)
    writeFileSync(join(s.cwd, ".env"), `GITHUB_TOKEN=${token}\n`)
    writeFileSync(join(s.cwd, "list.txt"), ".env\n")
    writeFileSync(join(s.cwd, "notes.txt"), "deploy notes\n")
    mkdirSync(join(s.cwd, "src"))
    writeFileSync(join(s.cwd, "src", "a.ts"), "export const KEY = 1\n")
    // A link whose real name is NFD, to .env: the model asks for the NFC spelling, which Pi's read falls back from.
    symlinkSync(join(s.cwd, ".env"), join(s.cwd, "caf\u00e9.txt".normalize("NFD")))
    const tools = await runtime.runPromise(
      Effect.gen(function*() {
        const writer = yield* MemoryWriter
        const guard = yield* BashGuard
        const task = yield* writer.openTask({ memoryDir: s.memoryDir, cwd: s.cwd })
        return yield* Effect.promise(() =>
          makeTaskTools({
            pi, cwd: s.cwd, memoryDir: s.memoryDir, writer: task, guard, check: Effect.void, onChange: () => Effect.void,
            protection: { home, agentDir, exceptions: [], extraProtections: [] }
          })
        )
      })
    )
    return { ...s, tools, home, agentDir, token, key }
  }

  const refuses = async (tools: TaskToolSet, secrets: ReadonlyArray<string>, commands: ReadonlyArray<string>) => {
    for (const command of commands) {
      const result = await exec(tools, "bash", { command })
      expect(result.isError, command).toBe(true)
      expect(text(result), command).toMatch(/^(Refused: |Command refused)/)
      for (const secret of secrets) expect(text(result), command).not.toContain(secret.slice(10, 40))
    }
  }

  it("cd, pipes and xargs: the operands are read where bash reads them", async () => {
    const { tools, token, key } = await withHome()
    await refuses(tools, [token, key], [
      "cd ~ && cat .aws/credentials",
      "cd ~/.ssh && cat id_ed25519",
      "cd .. && cat home/.git-credentials",
      "cd ~ ; head -n 3 .pi/agent/auth.json",
      "find ~ -name 'id_*' | xargs cat",
      "find ~ -name 'id_*' -print0 | xargs -0 cat",
      "ls -a | xargs cat",
      "cat list.txt | xargs cat",
      "xargs cat < list.txt",
      "echo .env | xargs cat",
      "grep -l TOKEN -r . | xargs cat",
      "cd - && cat .env"
    ])
  })

  it("attached values, quoting, escapes, recursive searches, git, /proc and jq", async () => {
    const { tools, token, key } = await withHome()
    await refuses(tools, [token, key], [
      "date -f.env",
      "date --file=.env",
      "head -c100 ~/.git-credentials",
      "grep -f.env notes.txt",
      "cat ~/$'.aws'/credentials",
      "cat '.e'nv",
      "cat .e\\nv",
      "grep -r -h KEY ~",
      "grep -r TOKEN .",
      "rg -uu -e KEY ~",
      "rg --hidden TOKEN",
      "git grep --no-index TOKEN ~",
      "git show 'stash@{0}^3:.env'",
      "git show HEAD:.env",
      "cat /proc/self/environ",
      "head -c 200 /proc/1/environ",
      "jq -n env",
      "jq -n '$ENV'",
      "wc --files0-from=list.txt"
    ])
  })

  it("the ordinary neighbours still run", async () => {
    const { tools } = await withHome()
    for (const command of ["cat notes.txt", "grep -r KEY src", "rg KEY", "ls -la", "find src -name '*.ts' | xargs wc -l", "cd src && cat a.ts", "ls src | head -n 1", "jq -n '.a'"]) {
      const result = await exec(tools, "bash", { command })
      expect(result.isError, `${command}: ${text(result)}`).not.toBe(true)
    }
  })

  it("read, edit and write refuse a protected path before Pi's tool opens it: NFC for an NFD name, ~, @, and no oracle", async () => {
    const { tools, cwd, home, agentDir, token } = await withHome()
    const auth = join(agentDir, "auth.json")
    const asked = "caf\u00e9.txt" // NFC; the link on disk is NFD
    for (const [name, args] of [
      ["read", { path: asked }],
      ["read", { path: `@${join(cwd, asked)}` }],
      ["read", { path: `@${join(home, ".git-credentials")}` }],
      ["edit", { path: auth, edits: [{ oldText: `{"github":"${token.slice(0, 6)}`, newText: "x" }] }],
      ["edit", { path: auth, edits: [{ oldText: "no such text", newText: "x" }] }],
      ["write", { path: auth, content: "{}" }],
      ["grep", { pattern: "x", path: join(home, ".kube") }],
      ["find", { pattern: "*", path: join(home, ".config", "gh") }]
    ] as const) {
      const result = await exec(tools, name, args as unknown as Record<string, unknown>)
      expect(result.isError, `${name} ${JSON.stringify(args)}`).toBe(true)
      expect(text(result), name).toMatch(/^Refused: /)
      expect(text(result)).not.toContain(token)
    }
    // A right and a wrong guess get the same answer, word for word: nothing to learn from the error.
    const right = await exec(tools, "edit", { path: auth, edits: [{ oldText: `{"github":"${token.slice(0, 6)}`, newText: "x" }] })
    const wrong = await exec(tools, "edit", { path: auth, edits: [{ oldText: "{\"gitlab\":\"", newText: "x" }] })
    expect(text(right)).toBe(text(wrong))
    expect(readFileSync(auth, "utf8")).toContain(token)
  })
})

describe("the dream's delete cap on the task tools", () => {
  const withTopics = async (count: number, cap: boolean) => {
    const s = await setup(cap ? { deleteCap: { topics: count } } : {})
    const files = Array.from({ length: count }, (_, i) => join(s.memoryDir, `t${i}.md`))
    for (const [i, f] of files.entries()) writeFileSync(f, TOPIC(`t${i}`, `topic ${i}`))
    return { ...s, files }
  }

  // The documented rule, written out: a quarter rounded down; 2 or 3 topics may lose one; 0 or 1 lose none.
  const LIMITS: ReadonlyArray<readonly [number, number]> = [
    [0, 0], [1, 0], [2, 1], [3, 1], [4, 1], [5, 1], [6, 1], [7, 1], [8, 2], [9, 2], [10, 2], [11, 2], [12, 3], [40, 10], [41, 10], [43, 10], [44, 11]
  ]

  it("the limit for every topic count from 0 to 12 and some larger ones", () => {
    for (const [topics, limit] of LIMITS) expect(deleteLimit(topics), `${topics} topics`).toBe(limit)
    // Never more than a quarter, except the one delete a directory of 2 or 3 topics may make.
    for (let n = 0; n <= 400; n++) expect(deleteLimit(n) <= Math.max(n >= 2 ? 1 : 0, n / 4)).toBe(true)
  })

  it.each(LIMITS)("with %i topics, deleting every file: exactly %i go, the rest are refused with a reason; the status says so", async (topics, limit) => {
    const { tools, files, memoryDir } = await withTopics(topics, true)
    // Every topic and one file more (a.md, not counted at the start): the cap is what stops the pass.
    const tried = [...files, join(memoryDir, "a.md")]
    const result = await exec(tools, "bash", { command: `rm ${tried.join(" ")}` })
    expect(tried.filter((f) => !existsSync(f))).toEqual(tried.slice(0, limit))
    expect(tried.slice(limit).every((f) => existsSync(f))).toBe(true)
    const status = tools.deleteCapStatus!()!
    expect(status).toMatchObject({ topics, limit, deleted: limit, refused: tried.slice(limit).map((f) => f.split("/").at(-1)) })
    expect(result.isError).toBe(true)
    expect(text(result)).toContain("delete cap")
    expect(text(result)).toContain(`at most ${limit} may go in one pass`)
    expect(text(result)).toContain("merge what is worth keeping")
  })

  it("one rm per call: the limit holds across calls, and a delete within it after a refusal is still refused", async () => {
    const { tools, files } = await withTopics(8, true)
    const outcomes = []
    for (const f of files.slice(0, 4)) outcomes.push((await exec(tools, "bash", { command: `rm ${f}` })).isError === true)
    expect(outcomes).toEqual([false, false, true, true])
    expect(files.filter((f) => !existsSync(f))).toEqual(files.slice(0, 2))
  })

  it("is off unless asked for: the extractor's tools delete without a cap", async () => {
    const { tools, files } = await withTopics(8, false)
    const result = await exec(tools, "bash", { command: `rm ${files.slice(0, 5).join(" ")}` })
    expect(result.isError).not.toBe(true)
    expect(files.slice(0, 5).some((f) => existsSync(f))).toBe(false)
    expect(tools.deleteCapStatus!()).toBeUndefined()
  })

  it("a missing file removed with rm -f does not count against the cap", async () => {
    const { tools, files, memoryDir } = await withTopics(8, true)
    const ghosts = [1, 2, 3, 4].map((i) => join(memoryDir, `ghost${i}.md`))
    await exec(tools, "bash", { command: `rm -f ${ghosts.join(" ")}` })
    await exec(tools, "bash", { command: `rm ${files.slice(0, 2).join(" ")}` })
    expect(tools.deleteCapStatus!()).toMatchObject({ deleted: 2, refused: [] })
  })
})
