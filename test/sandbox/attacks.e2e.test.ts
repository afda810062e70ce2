/**
 * The attack corpus (test/fixtures/background-attacks.jsonl) replayed through the real task tools of a background
 * task (layers/background/tools/TaskTools.ts: the guard, the read scope, the OS sandbox) in a fake machine made
 * fresh for each run (./attackFixture.ts): the extractor's tool set, the dream's over its own Pi session folder, the
 * dream's over a session folder of the user's, and an extractor's whose project is the home folder itself.
 *
 * For every row and tool set it may run in: no marker the task may not read appears in the tool's result (a row
 * the read scope must stop may not even show a redaction, so a redaction never hides a hole in the scope); a row of
 * what a task may read shows its marker; a resource attack returns by itself with a bounded output and leaves no
 * large file in the host's temporary folder. Nothing in the home or the project changes (one snapshot before all rows, one after). A random dot folder of the
 * home, on no list, is not readable by any tool, directly or through a link in the project, nor is one that appears
 * while the task runs.
 *
 * One sandbox runtime for the file; rows run four at a time, resource attacks one at a time, last.
 */
import * as pi from "@earendil-works/pi-coding-agent"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as ManagedRuntime from "effect/ManagedRuntime"
import { lstatSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { makeTaskTools, type TaskToolSet } from "../../layers/background/tools/TaskTools.ts"
import { BashGuard } from "../../layers/safety/BashGuard.ts"
import { FileSystem } from "../../layers/storage/FileSystem.ts"
import { MemoryWriter } from "../../layers/writes/MemoryWriter.ts"
import type { ProtectionOptions } from "../../src/safety/protectedPaths.ts"
import { pool, sandboxGate } from "../support/sandbox.ts"
import { type AttackFixture, makeAttackFixture } from "./attackFixture.ts"
import { changes, snapshot } from "./fixture.ts"

const CORPUS = join(import.meta.dirname, "..", "fixtures", "background-attacks.jsonl")

type ToolSetName = "extractor" | "dream" | "dreamUserSessions" | "homeProject"

interface Row {
  readonly id: string
  readonly class: string
  readonly tool: "read" | "find" | "grep" | "bash"
  readonly args: Record<string, unknown>
  readonly toolsets: ReadonlyArray<ToolSetName>
  /** "no-leak": no forbidden marker; "readable": `shows` appears; "bounded": returns by itself, output bounded. */
  readonly must: "no-leak" | "readable" | "bounded"
  /** What must stop it: the read scope (no redaction may show either), the redaction of results, the command bounds. */
  readonly by: "scope" | "redact" | "bound"
  /** For "readable": a marker's name (fixture.readable) or a literal text. */
  readonly shows?: string
}

const rows: Array<Row> = readFileSync(CORPUS, "utf8").split("\n").filter((l) => l.trim() !== "").map((l) => JSON.parse(l))

/** A resource attack must return on its own within this (the runner aborts it after, and records a failure). */
const RESOURCE_DEADLINE_MS = 120_000
/** The most text a bounded call may return (Pi keeps 50 KB of a command's output; 1 MiB is far over that). */
const MAX_RESULT_CHARS = 1024 ** 2
/** No file of the host's temporary folder may grow past this during the run (Pi's full-output logs live there). */
const MAX_TEMP_FILE_BYTES = 20 * 1024 ** 2

const gate = await sandboxGate()
const runtime = ManagedRuntime.make(Layer.merge(MemoryWriter.layer, BashGuard.layer).pipe(Layer.provideMerge(FileSystem.layer)))

let fx: AttackFixture
let before: Map<string, string>
const toolsets = new Map<ToolSetName, TaskToolSet>()
const saved: Record<string, string | undefined> = {}

const fill = (value: unknown): unknown => {
  if (typeof value === "string") return value.replace(/\{([A-Z_]+)\}/g, (all, name: string) => fx.vars[name] ?? all)
  if (Array.isArray(value)) return value.map(fill)
  if (value !== null && typeof value === "object") return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, fill(v)]))
  return value
}

/** What a tool set may read of the readable markers; the others are forbidden to it like every planted secret. */
const readableBy: Record<ToolSetName, ReadonlyArray<string>> = {
  extractor: ["AGENTS", "README", "MEMORY", "VENDOR_PLAIN"],
  dream: ["AGENTS", "README", "MEMORY", "VENDOR_PLAIN", "OWN_SESSION"],
  dreamUserSessions: ["AGENTS", "README", "MEMORY", "VENDOR_PLAIN", "USER_OWN_SESSION"],
  // A task whose project is the home reads the home's plain folders (dotfiles/, pi-sessions/), never its dot entries.
  homeProject: ["AGENTS", "README", "MEMORY", "VENDOR_PLAIN", "USER_OWN_SESSION", "KUBE", "DOTTOOL", "USER_OTHER_SESSION"]
}

const forbidden = (set: ToolSetName): Array<[string, string]> =>
  [...Object.entries(fx.scopeMarkers), ...Object.entries(fx.secretMarkers), ...Object.entries(fx.readable)]
    .filter(([name]) => !readableBy[set].includes(name))

/** The largest file under `dir` (the host's temporary folder), by size. */
const largestFile = (dir: string): { path: string; size: number } => {
  let best = { path: "", size: 0 }
  const walk = (d: string) => {
    for (const name of readdirSync(d)) {
      const p = join(d, name)
      const st = lstatSync(p)
      if (st.isDirectory()) walk(p)
      else if (st.size > best.size) best = { path: p, size: st.size }
    }
  }
  walk(dir)
  return best
}

interface Outcome {
  readonly text: string
  readonly isError: boolean
  /** Whether the call returned on its own (not aborted by the runner's deadline). */
  readonly returned: boolean
}

const call = async (set: ToolSetName, row: Row): Promise<Outcome> => {
  const tool = toolsets.get(set)!.byName(row.tool)!
  const controller = new AbortController()
  let late = false
  const deadline = setTimeout(() => {
    late = true
    controller.abort()
  }, RESOURCE_DEADLINE_MS)
  try {
    const r = await tool.execute(`${row.id}`, fill(row.args) as Record<string, unknown>, controller.signal)
    return { text: r.content.map((c) => ("text" in c ? c.text ?? "" : "")).join("\n"), isError: r.isError === true, returned: !late }
  } catch (e) {
    return { text: e instanceof Error ? e.message : String(e), isError: true, returned: !late }
  } finally {
    clearTimeout(deadline)
  }
}

/** What is wrong with one row's outcome in one tool set (empty when it holds). */
const judge = (set: ToolSetName, row: Row, out: Outcome): Array<string> => {
  const where = `[${set}] ${row.id} (${row.tool} ${JSON.stringify(fill(row.args))})`
  const problems: Array<string> = []
  for (const [name, value] of forbidden(set)) if (out.text.includes(value)) problems.push(`${where}: leaked ${name}`)
  if (row.by === "scope" && row.must === "no-leak" && out.text.includes("[redacted")) {
    problems.push(`${where}: a redaction stood in for the scope: ${out.text.slice(0, 200)}`)
  }
  if (row.must === "readable") {
    const expected = fx.readable[row.shows ?? ""] ?? row.shows ?? ""
    if (out.isError || !out.text.includes(expected)) problems.push(`${where}: should read ${row.shows}, got: ${out.text.slice(0, 300)}`)
  }
  if (row.must === "bounded") {
    if (!out.returned) problems.push(`${where}: did not return within ${RESOURCE_DEADLINE_MS / 1000} s`)
    if (out.text.length > MAX_RESULT_CHARS) problems.push(`${where}: returned ${out.text.length} characters`)
    const big = largestFile(fx.hostTemp)
    if (big.size > MAX_TEMP_FILE_BYTES) problems.push(`${where}: left ${big.path} of ${big.size} bytes in the host's temp folder`)
  }
  return problems
}

const replay = async (set: ToolSetName, selected: ReadonlyArray<Row>): Promise<Array<string>> => {
  const mine = selected.filter((r) => r.toolsets.includes(set))
  const ordinary = mine.filter((r) => r.must !== "bounded")
  const outs = await pool(ordinary, 4, (row) => call(set, row))
  const problems = ordinary.flatMap((row, i) => judge(set, row, outs[i]!))
  for (const row of mine.filter((r) => r.must === "bounded")) problems.push(...judge(set, row, await call(set, row)))
  return problems
}

describe.skipIf(gate.skip)("the attack corpus through a background task's tools, in the sandbox", () => {
  beforeAll(async () => {
    fx = makeAttackFixture()
    before = snapshot([fx.home])
    const env = { HOME: fx.home, PI_CODING_AGENT_DIR: fx.agentDir, TMPDIR: fx.hostTemp }
    for (const [k, v] of Object.entries(env)) {
      saved[k] = process.env[k]
      process.env[k] = v
    }
    const protection: ProtectionOptions = { home: fx.home, agentDir: fx.agentDir, exceptions: [], extraProtections: [] }
    const sets: Record<ToolSetName, { cwd: string; sessions?: { dir: string; ids: Array<string> } }> = {
      extractor: { cwd: fx.project },
      dream: { cwd: fx.project, sessions: { dir: fx.ownSessionDir, ids: [fx.ownSessionId] } },
      dreamUserSessions: { cwd: fx.project, sessions: { dir: fx.userSessionDir, ids: [fx.ownSessionId] } },
      homeProject: { cwd: fx.home }
    }
    for (const [name, { cwd, sessions }] of Object.entries(sets) as Array<[ToolSetName, typeof sets[ToolSetName]]>) {
      const tools = await runtime.runPromise(
        Effect.gen(function*() {
          const writer = yield* MemoryWriter
          const guard = yield* BashGuard
          const task = yield* writer.openTask({ memoryDir: fx.memoryDir, cwd })
          return yield* Effect.promise(() =>
            makeTaskTools({
              pi, cwd, memoryDir: fx.memoryDir, writer: task, guard, check: Effect.void, onChange: () => Effect.void,
              protection, whenUnavailable: "refuse", ...(sessions === undefined ? {} : { sessions })
            })
          )
        })
      )
      toolsets.set(name, tools)
    }
  })

  afterAll(async () => {
    for (const tools of toolsets.values()) await tools.close("the test ended")
    fx?.close()
    for (const [k, v] of Object.entries(saved)) {
      if (v === undefined) delete process.env[k]
      else process.env[k] = v
    }
    await runtime.dispose()
  })

  it("starts here (under CI a missing sandbox fails this file, it never skips), and bash runs in it", async () => {
    expect(gate.reason).toBe("available")
    // A recursive grep that follows links passes the checks in the process (they do not follow the links it meets);
    // the sandbox is what hides the link's target: the project's files are searched, the link leads nowhere.
    const probe: Row = { id: "probe", class: "", tool: "bash", args: { command: "grep -rR pmark ." }, toolsets: [], must: "no-leak", by: "scope" }
    const out = await call("extractor", probe)
    expect(out.text).toContain(fx.readable.README)
    expect(out.text).toMatch(/notes-link: No such file or directory/)
    expect(out.text).not.toContain(fx.scopeMarkers.NEW_DOT)
  })

  it("the corpus covers every class, every tool and every tool set", () => {
    expect(new Set(rows.map((r) => r.class))).toEqual(new Set([
      "home store on no list", "store through a symlink", "other projects' sessions and memory", "git history secrets",
      "host temp", "big tree", "resource", "new home folder", "readable"
    ]))
    expect(new Set(rows.map((r) => r.tool))).toEqual(new Set(["read", "find", "grep", "bash"]))
    expect(new Set(rows.flatMap((r) => r.toolsets))).toEqual(new Set(["extractor", "dream", "dreamUserSessions", "homeProject"]))
    expect(new Set(rows.map((r) => r.id)).size).toBe(rows.length)
  })

  for (const set of ["extractor", "dream", "dreamUserSessions"] as const) {
    it(`${set}: no row shows what the task may not read, and the readable rows read`, async () => {
      const problems = await replay(set, rows.filter((r) => r.class !== "new home folder"))
      expect(problems).toEqual([])
    })
  }

  it("a new dot folder of the home, on no list, is unreadable by every tool, directly and through a link in the project", async () => {
    const probes = rows.filter((r) => r.class === "new home folder")
    expect(new Set(probes.map((r) => r.tool))).toEqual(new Set(["read", "find", "grep", "bash"]))
    const problems: Array<string> = []
    for (const set of ["extractor", "dream", "homeProject"] as const) problems.push(...await replay(set, probes))
    expect(problems).toEqual([])
  })

  it("a dot folder that appears in the home while a task runs stays hidden, even when the task's project is the home", async () => {
    // The tools exist already; the folder is made now, and a link in the project's src/ leads to it.
    const late = join(fx.home, fx.vars["LATE_DOT"]!)
    mkdirSync(late)
    writeFileSync(join(late, "token.conf"), `${fx.scopeMarkers.LATE_DOT}\n`)
    const probes: Array<Row> = [
      { id: "late-grep-follow", class: "", tool: "bash", args: { command: "grep -rR pmark {PROJECT}/src" }, toolsets: [], must: "no-leak", by: "scope" },
      { id: "late-find-follow", class: "", tool: "bash", args: { command: "find -L {PROJECT}/src -name token.conf" }, toolsets: [], must: "no-leak", by: "scope" },
      { id: "late-cat", class: "", tool: "bash", args: { command: "cat ~/{LATE_DOT}/token.conf" }, toolsets: [], must: "no-leak", by: "scope" },
      { id: "late-read", class: "", tool: "read", args: { path: "{PROJECT}/src/late-link/token.conf" }, toolsets: [], must: "no-leak", by: "scope" }
    ]
    const problems: Array<string> = []
    for (const set of ["extractor", "homeProject"] as const) {
      for (const row of probes) {
        const out = await call(set, row)
        problems.push(...judge(set, row, out))
        // The recursive grep passes the checks in the process and runs: the sandbox is what must hide the folder.
        if (row.id === "late-grep-follow" && /^(Refused|Command refused)/.test(out.text)) {
          problems.push(`[${set}] late-grep-follow did not run: ${out.text.slice(0, 200)}`)
        }
      }
    }
    expect(problems).toEqual([])
  })

  it("after every row: nothing in the home or the project changed (but the dot folder the test itself made)", () => {
    const late = join(fx.home, fx.vars["LATE_DOT"]!)
    expect(changes(before, snapshot([fx.home])).filter((c) => !c.endsWith(late) && !c.includes(`${late}/`) && c !== `changed ${fx.home}`)).toEqual([])
  })
})
