/** `pm bash-check` as a function: one command, JSON Lines on stdin, exit codes. */
import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { Readable } from "node:stream"
import { bashCheck, PROTECTED_READ, type BashCheckArgs } from "../../cli/bashCheck.ts"
import { BashGuard } from "../../layers/safety/BashGuard.ts"
import { CWD, loadCorpus, MEMORY_DIR } from "./corpus.ts"

const MEM = "/home/u/.pi/agent/project-memory/projects/-home-u-app/memory"

const run = (args: Partial<BashCheckArgs> & { readonly input?: ReadonlyArray<string | Uint8Array> }) =>
  Effect.gen(function* () {
    const out: Array<string> = []
    const err: Array<string> = []
    const code = yield* bashCheck({
      cwd: "/home/u/app",
      memoryDir: MEM,
      json: true,
      stdin: Readable.from(args.input ?? []),
      stdout: (t) => void out.push(t),
      stderr: (t) => void err.push(t),
      ...args
    })
    return { code, out: out.join(""), err: err.join("") }
  }).pipe(Effect.provide(BashGuard.layer))

describe("bash-check, one command", () => {
  it.effect("read-only: JSON with command, verdict and reason; exit 0", () =>
    Effect.gen(function* () {
      const r = yield* run({ command: "ls -la | wc -l" })
      expect(r.code).toBe(0)
      const o = JSON.parse(r.out)
      expect(o).toMatchObject({ command: "ls -la | wc -l", verdict: "read-only" })
      expect(typeof o.reason).toBe("string")
      expect(r.err).toBe("")
    })
  )

  it.effect("delete: targets and force; exit 0", () =>
    Effect.gen(function* () {
      const r = yield* run({ command: `rm -f ${MEM}/old.md` })
      expect(r.code).toBe(0)
      expect(JSON.parse(r.out)).toMatchObject({ verdict: "delete", targets: [`${MEM}/old.md`], force: true })
    })
  )

  it.effect("rejected: the reason names the word; exit 1", () =>
    Effect.gen(function* () {
      const r = yield* run({ command: "sort -roout x" })
      expect(r.code).toBe(1)
      const o = JSON.parse(r.out)
      expect(o.verdict).toBe("rejected")
      expect(o.reason).toContain("-roout")
    })
  )

  it.effect("without --json: one plain line", () =>
    Effect.gen(function* () {
      expect((yield* run({ command: "ls", json: false })).out).toBe("read-only\n")
      expect((yield* run({ command: `rm ${MEM}/a.md`, json: false })).out).toBe(`delete: ${MEM}/a.md\n`)
      const r = yield* run({ command: "ls > out", json: false })
      expect(r.out).toMatch(/^rejected: .*> out/)
      expect(r.code).toBe(1)
    })
  )

  it.effect("without a memory directory every rm is rejected; a relative one is resolved against cwd", () =>
    Effect.gen(function* () {
      const none = yield* run({ command: "rm /x/a.md", memoryDir: undefined })
      expect(JSON.parse(none.out).reason).toContain("no memory directory")
      const rel = yield* run({ command: "rm /home/u/app/mem/a.md", memoryDir: "mem" })
      expect(JSON.parse(rel.out).targets).toEqual(["/home/u/app/mem/a.md"])
    })
  )
})

describe("bash-check, JSON Lines on stdin", () => {
  it.effect("one object per line, in order; malformed lines get an error object; exit 1 when any is rejected", () =>
    Effect.gen(function* () {
      const lines = [
        JSON.stringify("ls -la"),
        JSON.stringify(`rm ${MEM}/a.md`),
        "",
        "{not json",
        "42",
        JSON.stringify("echo $HOME"),
        JSON.stringify("echo 'multi\nline' | wc -l")
      ]
      // Split across chunks at awkward places, including inside a multi-byte character.
      const text = Buffer.from(`${lines.join("\r\n")}\n${JSON.stringify("echo 🎉")}`)
      const chunks = [text.subarray(0, 7), text.subarray(7, 60), text.subarray(60, text.length - 3), text.subarray(text.length - 3)]
      const r = yield* run({ input: chunks })
      const out = r.out.trim().split("\n").map((l) => JSON.parse(l))
      expect(out.map((o) => o.verdict ?? "error")).toEqual(["read-only", "delete", "error", "error", "rejected", "read-only", "read-only"])
      expect(out[2]).toMatchObject({ line: 4 })
      expect(out[3].error).toContain("JSON string")
      expect(out[6].command).toBe("echo 🎉")
      expect(r.code).toBe(1)
    })
  )

  it.effect("all allowed: exit 0; empty input: no output, exit 0", () =>
    Effect.gen(function* () {
      const ok = yield* run({ input: [`${JSON.stringify("pwd")}\n${JSON.stringify("git status")}\n`] })
      expect(ok.code).toBe(0)
      expect(ok.out.trim().split("\n")).toHaveLength(2)
      const empty = yield* run({ input: [] })
      expect(empty).toEqual({ code: 0, out: "", err: "" })
    })
  )

  it.effect("the whole corpus in one process", () =>
    Effect.gen(function* () {
      const corpus = loadCorpus()
      const input = corpus.map((row) => `${JSON.stringify(row.command)}\n`)
      const r = yield* run({ input, memoryDir: MEMORY_DIR, cwd: CWD })
      const out = r.out.trim().split("\n").map((l) => JSON.parse(l))
      // The guard's verdict, except that a read-only command naming a protected path is reported as refused.
      const seen = out.map((o, i) => (o.verdict === "rejected" && String(o.reason).startsWith(PROTECTED_READ) && corpus[i]!.verdict === "read-only" ? "read-only" : o.verdict))
      expect(seen).toEqual(corpus.map((row) => row.verdict))
    })
  )

  it.effect("a command that would read a protected path is reported so, not as read-only", () =>
    Effect.gen(function* () {
      const protection = { home: "/home/u", agentDir: "/home/u/.pi/agent", exceptions: [], extraProtections: [] }
      for (const command of ["cat ~/.ssh/id_rsa", "cat .env", "cd ~ && cat .aws/credentials", "grep -r KEY ~", "cat /proc/self/environ"]) {
        const r = yield* run({ command, protection })
        expect(r.code, command).toBe(1)
        const o = JSON.parse(r.out)
        expect(o.verdict, command).toBe("rejected")
        expect(o.reason, command).toContain(PROTECTED_READ)
        const plain = yield* run({ command, protection, json: false })
        expect(plain.out, command).toMatch(/^rejected: reads a protected path/)
      }
      const ok = JSON.parse((yield* run({ command: "cat README.md", protection })).out)
      expect(ok.verdict).toBe("read-only")
    })
  )

  it.effect("a stdin that fails: one line on stderr, exit 2", () =>
    Effect.gen(function* () {
      const broken: AsyncIterable<string> = {
        [Symbol.asyncIterator]: () => ({ next: () => Promise.reject(new Error("EIO")) })
      }
      const r = yield* run({ stdin: broken })
      expect(r.code).toBe(2)
      expect(r.err).toMatch(/^pm: cannot read stdin: EIO\n$/)
    })
  )
})
