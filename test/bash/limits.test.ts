/** Very long inputs, deeply nested lists and Unicode through the real parser. */
import { expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import { BashGuard } from "../../layers/safety/BashGuard.ts"
import { MAX_COMMAND_LENGTH } from "../../src/safety/bash/syntax.ts"

const MEM = "/home/u/.pi/agent/project-memory/projects/-home-u-app/memory"
const CTX = { memoryDir: MEM, cwd: "/home/u/app" }

// These tests are about structure (length, depth, Unicode), not the parse budget that cost.test.ts covers: a budget
// no parse here can reach keeps a loaded machine from turning them into budget tests.
layer(BashGuard.layerWith({ budgetMs: 120_000 }))("long and nested commands", (it) => {
  it.effect("a 100 KB single word argument is read-only; the same with an expansion at the end is rejected", () =>
    Effect.gen(function* () {
      const guard = yield* BashGuard
      const word = "a".repeat(100 * 1024)
      expect(guard.classifySync(`grep -c '${word}' notes.md`, CTX)).toEqual({ verdict: "read-only" })
      expect(guard.classifySync(`echo ${word}$HOME`, CTX).verdict).toBe("rejected")
    })
  )

  it.effect("100 KB of allowed commands joined by && and | is read-only; one `&` at the very end rejects it", () =>
    Effect.gen(function* () {
      const guard = yield* BashGuard
      let cmd = "cat file0.md"
      for (let i = 1; cmd.length < 100 * 1024; i++) {
        const p = i % 3 === 0 ? `cat file${i}.md` : i % 3 === 1 ? "grep -n 'tödö 🎉'" : "wc -l"
        cmd += `${i % 2 === 0 ? " && " : " | "}${p}`
      }
      expect(cmd.length).toBeGreaterThanOrEqual(100 * 1024)
      expect(guard.classifySync(cmd, CTX)).toEqual({ verdict: "read-only" })
      expect(guard.classifySync(`${cmd} &`, CTX).verdict).toBe("rejected")
      expect(guard.classifySync(`${cmd} > out.txt`, CTX).verdict).toBe("rejected")
    })
  )

  it.effect("5,000 commands in one && list (a tree 5,000 levels deep) do not exhaust the stack", () =>
    Effect.gen(function* () {
      const guard = yield* BashGuard
      const cmd = Array.from({ length: 5000 }, (_, i) => `echo ${i}`).join(" && ")
      expect(guard.classifySync(cmd, CTX)).toEqual({ verdict: "read-only" })
      const bad = Array.from({ length: 5000 }, (_, i) => (i === 4321 ? "echo $(id)" : `echo ${i}`)).join(" || ")
      const v = guard.classifySync(bad, CTX)
      expect(v.verdict).toBe("rejected")
      if (v.verdict === "rejected") expect(v.reason).toContain("$(id)")
    })
  )

  it.effect("a delete of 2,000 targets keeps every target, in order", () =>
    Effect.gen(function* () {
      const guard = yield* BashGuard
      const targets = Array.from({ length: 2000 }, (_, i) => `${MEM}/topic-${i}.md`)
      const v = guard.classifySync(`rm -f -- ${targets.join(" ")}`, CTX)
      expect(v).toEqual({ verdict: "delete", targets, force: true })
    })
  )

  it.effect("inputs over the length limit, empty inputs and NUL are rejected before parsing", () =>
    Effect.gen(function* () {
      const guard = yield* BashGuard
      expect(guard.classifySync("x".repeat(MAX_COMMAND_LENGTH + 1), CTX).verdict).toBe("rejected")
      expect(guard.classifySync("", CTX).verdict).toBe("rejected")
      expect(guard.classifySync("   \n  ", CTX).verdict).toBe("rejected")
      expect(guard.classifySync("ls\0 -la", CTX).verdict).toBe("rejected")
    })
  )

  it.effect("Unicode: offsets stay right across astral characters, combining marks and right-to-left text", () =>
    Effect.gen(function* () {
      const guard = yield* BashGuard
      expect(guard.classifySync("echo '🧠🧠🧠' && grep -n 'é́' ملف.md | wc -l", CTX)).toEqual({ verdict: "read-only" })
      const v = guard.classifySync("echo 🧠🧠🧠 > 笔记.md", CTX)
      expect(v.verdict).toBe("rejected")
      if (v.verdict === "rejected") expect(v.reason).toContain("> 笔记.md")
      expect(guard.classifySync(`rm ${MEM}/😀-ünï.md`, CTX)).toEqual({
        verdict: "delete",
        targets: [`${MEM}/😀-ünï.md`],
        force: false
      })
      // A fullwidth semicolon is an ordinary character, not a separator: one (unknown) command word.
      expect(guard.classifySync("ls；rm -rf /", CTX).verdict).toBe("rejected")
    })
  )
})
