/**
 * The OS sandbox under the background bash tool, proved on its own: every attack of the corpus
 * (test/fixtures/sandbox-attacks.jsonl, one row per command: its class, what the guard says, what the sandbox stops)
 * runs through Pi's real bash tool with the sandboxed operations and WITHOUT the guard in front, in a fake home and
 * project with planted credentials. Nothing under the home changes (a snapshot of every file before and after), no
 * planted credential and no credential-like environment value is printed, and the loopback listener sees no
 * connection. Then a few through the full tool path (guard in front), the sandboxed grep, and an interruption.
 *
 * One sandbox runtime for the file; the rows run four at a time.
 */
import * as pi from "@earendil-works/pi-coding-agent"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as ManagedRuntime from "effect/ManagedRuntime"
import { existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { makeSandboxedTools, type SandboxedTools } from "../../layers/background/tools/sandboxed.ts"
import { makeTaskTools, type TaskToolSet } from "../../layers/background/tools/TaskTools.ts"
import { BashGuard } from "../../layers/safety/BashGuard.ts"
import { FileSystem } from "../../layers/storage/FileSystem.ts"
import { MemoryWriter } from "../../layers/writes/MemoryWriter.ts"
import { defaultSandbox } from "../../layers/safety/Sandbox.ts"
import { detectSecrets } from "../../src/safety/secrets.ts"
import type { ProtectionOptions } from "../../src/safety/protectedPaths.ts"
import { pool, sandboxGate } from "../support/sandbox.ts"
import { changes, makeFixture, type SandboxFixture, snapshot } from "./fixture.ts"

const CORPUS = join(import.meta.dirname, "..", "fixtures", "sandbox-attacks.jsonl")

interface Row {
  readonly command: string
  readonly class: string
  /** The guard's verdict on the command ("read-only", "delete", "rejected"). */
  readonly guard: string
  /** What the sandbox stops: "write", "read", "env" or "network". */
  readonly sandbox: "write" | "read" | "env" | "network"
}

const rows: Array<Row> = readFileSync(CORPUS, "utf8").split("\n").filter((l) => l.trim() !== "").map((l) => JSON.parse(l))

const signalListeners = () => process.listenerCount("SIGINT") + process.listenerCount("SIGTERM")
const listenersBefore = signalListeners()
const gate = await sandboxGate()

const runtime = ManagedRuntime.make(Layer.merge(MemoryWriter.layer, BashGuard.layer).pipe(Layer.provideMerge(FileSystem.layer)))

let fx: SandboxFixture
let protection: ProtectionOptions
let sandboxed: SandboxedTools
let saved: Record<string, string | undefined> = {}

const fill = (command: string): string =>
  command.replaceAll("{PORT}", String(fx.port)).replaceAll("{AGENT}", fx.agentDir).replaceAll("{MEMORY}", fx.memoryDir)

const textOf = (r: { content: ReadonlyArray<{ type: string; text?: string }> }) => r.content.map((c) => c.text ?? "").join("")

/** One command through Pi's bash tool over the sandboxed operations, the guard bypassed: its whole output. */
const runUnguarded = async (command: string): Promise<string> => {
  const def = pi.createBashToolDefinition(fx.project, { operations: sandboxed.bashOperations! })
  try {
    return textOf(await def.execute("row", { command, timeout: 30 }, new AbortController().signal, undefined, undefined as never))
  } catch (e) {
    return e instanceof Error ? e.message : String(e)
  }
}

/**
 * The commands in `batches` sandboxed calls of the bash tool (one runtime, few wraps): each command in a subshell of
 * its own, stdin closed, its output closed by a separator line; the outputs in the commands' order.
 */
const runBatched = async (commands: ReadonlyArray<string>, batches: number): Promise<Array<string>> => {
  const sep = `--row-${Math.random().toString(36).slice(2)}--`
  const size = Math.ceil(commands.length / batches)
  const chunks = Array.from({ length: batches }, (_, i) => commands.slice(i * size, (i + 1) * size)).filter((c) => c.length > 0)
  const outs = await Promise.all(chunks.map((chunk) =>
    runUnguarded(chunk.map((c) => `(\n${c}\n) </dev/null 2>&1\necho; echo ${sep}`).join("\n"))
  ))
  const split = outs.flatMap((out, i) => out.split(sep).slice(0, chunks[i]!.length))
  expect(split).toHaveLength(commands.length)
  return split
}

const leaks = (output: string): Array<string> => fx.secrets.filter((s) => output.includes(s)).map((s) => `${s.slice(0, 12)}…`)

describe.skipIf(gate.skip)("the OS sandbox under the background bash tool", () => {
  beforeAll(async () => {
    fx = await makeFixture()
    for (const [k, v] of Object.entries(fx.env)) {
      saved[k] = process.env[k]
      process.env[k] = v
    }
    protection = { home: fx.home, agentDir: fx.agentDir, exceptions: [], extraProtections: [] }
    sandboxed = await makeSandboxedTools({
      sandbox: defaultSandbox(),
      pi,
      cwd: fx.project,
      memoryDir: fx.memoryDir,
      protection,
      whenUnavailable: "refuse"
    })
  })

  afterAll(async () => {
    await sandboxed?.close()
    await fx?.close()
    for (const [k, v] of Object.entries(saved)) {
      if (v === undefined) delete process.env[k]
      else process.env[k] = v
    }
    saved = {}
    await runtime.dispose()
  })

  it("starts here (under CI a missing sandbox fails this file, it never skips)", () => {
    expect(gate.reason).toBe("available")
    expect(sandboxed.availability._tag).toBe("Available")
    expect(sandboxed.bashOperations).toBeDefined()
    // The runtime's own SIGINT/SIGTERM listeners are taken off: the host keeps its default exit on Ctrl-C.
    expect(signalListeners()).toBe(listenersBefore)
  })

  it("every corpus row, without the guard: nothing changes, nothing secret is printed, no socket is opened", async () => {
    const before = snapshot([fx.home])
    const outputs = await runBatched(rows.map((r) => fill(r.command)), 4)
    const after = snapshot([fx.home])
    const problems: Array<string> = []
    rows.forEach((row, i) => {
      const out = outputs[i]!
      const leaked = leaks(out)
      if (leaked.length > 0) problems.push(`${row.command}: printed ${leaked.join(", ")}`)
      if (row.sandbox === "env") {
        const found = detectSecrets(out).map((f) => f.kind)
        if (found.length > 0) problems.push(`${row.command}: credential-like output (${found.join(", ")})`)
      }
    })
    expect(problems).toEqual([])
    expect(changes(before, after)).toEqual([])
    expect(fx.connections()).toBe(0)
    expect(existsSync(join(fx.project, "MARKER"))).toBe(false)
    // The commands really ran in the sandbox: reads of the project work, writes meet a read-only file system.
    expect(outputs[rows.findIndex((r) => r.command === "touch MARKER")]).toMatch(/Read-only file system/)
    expect(outputs[rows.findIndex((r) => r.command === "cat .env")]).toMatch(/Permission denied|No such file|^\s*$/m)
  })

  it("a readable project still reads: git, rg and cat see the project's own files", async () => {
    const out = await runUnguarded("git log --oneline | wc -l && git status --short && rg -n hello README.md && cat src/main.ts")
    expect(out).toContain("1")
    expect(out).toContain("?? NOTES.md")
    expect(out).toContain("1:hello")
    expect(out).toContain("export const KEY")
    expect(leaks(out)).toEqual([])
  })

  it("the environment reaches the child scrubbed: no planted credential, the rest intact", async () => {
    const out = await runUnguarded("env; tr '\\0' '\\n' < /proc/self/environ")
    expect(leaks(out)).toEqual([])
    expect(out).not.toMatch(/OPENAI_API_KEY|GITHUB_TOKEN|_PROXY=|PROXY_PASSWORD/)
    expect(out).toContain(`HOME=${fx.home}`)
    expect(out).toMatch(/^PATH=/m)
  })

  it("an interruption kills the sandboxed child and everything it started", async () => {
    const marker = `${Math.floor(Math.random() * 1e6) + 1000}.25`
    const controller = new AbortController()
    const def = pi.createBashToolDefinition(fx.project, { operations: sandboxed.bashOperations! })
    // The command says "ready" once its background sleep has exec'd: some process has an argument that is exactly
    // the marker (`grep -z` reads the NUL-separated cmdlines; the bracketed pattern keeps grep from matching its
    // own argument, and the shells whose one argument is the whole command text fail `-x`). `$!` cannot be used:
    // the seccomp helper runs the shell in a nested PID namespace, so its numbers are not those of the /proc it
    // sees. That line, streamed through the tool's updates, is the event the test waits for.
    let ready!: () => void
    const started = new Promise<void>((r) => (ready = r))
    const exact = marker.replace(".", "[.]")
    const command = `sleep ${marker} & until grep -qsxz '${exact}' /proc/[0-9]*/cmdline; do :; done; echo ready; sleep ${marker}; wait`
    const running = def.execute("sleep", { command }, controller.signal, (u) => {
      if (u.content.some((c) => c.type === "text" && c.text.includes("ready"))) ready()
    }, undefined as never)
      .then(() => "finished", (e: unknown) => (e instanceof Error ? e.message : String(e)))
    const alive = () =>
      readdirSync("/proc").filter((p) => /^\d+$/.test(p)).some((p) => {
        try {
          return readFileSync(`/proc/${p}/cmdline`, "utf8").split("\0").includes(marker)
        } catch {
          return false
        }
      })
    expect(await Promise.race([started.then(() => "ready"), running])).toBe("ready")
    expect(alive()).toBe(true)
    controller.abort()
    expect(await running).toMatch(/abort/i)
    // The kernel tears the killed group down after the tool has returned: the process table is what is awaited,
    // and the bound only ends a broken run.
    for (let i = 0; i < 2000 && alive(); i++) await new Promise((r) => setTimeout(r, 5))
    expect(alive()).toBe(false)
  })

  it("the corpus records what the guard says of each row (PM_UPDATE_SANDBOX_CORPUS=1 rewrites the column)", async () => {
    const verdicts = await runtime.runPromise(
      Effect.gen(function*() {
        const guard = yield* BashGuard
        return rows.map((r) => guard.classifySync(fill(r.command), { memoryDir: fx.memoryDir, cwd: fx.project }).verdict)
      })
    )
    if (process.env["PM_UPDATE_SANDBOX_CORPUS"] === "1") {
      writeFileSync(CORPUS, rows.map((r, i) => JSON.stringify({ ...r, guard: verdicts[i] })).join("\n") + "\n")
    }
    expect(rows.map((r) => `${r.guard}  ${r.command}`)).toEqual(rows.map((r, i) => `${verdicts[i]}  ${r.command}`))
    expect(new Set(rows.map((r) => r.sandbox))).toEqual(new Set(["write", "read", "env", "network"]))
  })

  describe("through the full tool path (the guard in front)", () => {
    let tools: TaskToolSet
    beforeAll(async () => {
      tools = await runtime.runPromise(
        Effect.gen(function*() {
          const writer = yield* MemoryWriter
          const guard = yield* BashGuard
          const task = yield* writer.openTask({ memoryDir: fx.memoryDir, cwd: fx.project })
          return yield* Effect.promise(() =>
            makeTaskTools({ pi, cwd: fx.project, memoryDir: fx.memoryDir, writer: task, guard, check: Effect.void, onChange: () => Effect.void, protection, whenUnavailable: "refuse" })
          )
        })
      )
    })
    afterAll(() => tools?.close("the test ended"))

    const call = (name: string, args: Record<string, unknown>, signal = new AbortController().signal) =>
      tools.byName(name)!.execute("call", args, signal)

    it("bash: what the guard lets through runs sandboxed, what it refuses is refused; nothing leaks, nothing changes", async () => {
      const before = snapshot([fx.home])
      const commands = ["rg -uu -e KEY ~", "cat ~/$'.aws'/credentials", "cat /proc/self/environ", "git status --short"]
      const outputs = await pool(commands, 2, async (command) => textOf(await call("bash", { command })))
      for (const out of outputs) expect(leaks(out)).toEqual([])
      // A search of the whole home is refused by the guard before anything runs (the home holds credential stores).
      expect(outputs[0]).toMatch(/^Refused: /)
      expect(outputs[3]).toContain("?? NOTES.md")
      expect(changes(before, snapshot([fx.home]))).toEqual([])
      expect(fx.connections()).toBe(0)
    })

    it("grep runs rg in the sandbox: project text is found, no credential store is", async () => {
      // The home is outside what a task may read: refused before anything runs.
      const home = await call("grep", { pattern: "KEY", path: fx.home })
      expect(home.isError).toBe(true)
      expect(textOf(home)).toContain("outside the task's project")
      const found = await call("grep", { pattern: "KEY", path: fx.project })
      const out = textOf(found)
      expect(found.isError).not.toBe(true)
      expect(out).toContain("src/main.ts:1:")
      expect(leaks(out)).toEqual([])
      const hello = textOf(await call("grep", { pattern: "hello", literal: true }))
      expect(hello).toBe("README.md:1: hello KEY_NAMES are documented here")
    })

  })
})
