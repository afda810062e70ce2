/**
 * Reasonable read-only commands the guard used to reject: they stay allowed, and their near relatives that would
 * write, run code or read files where D7 forbids it stay rejected.
 */
import { expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import { BashGuard } from "../../layers/BashGuard.ts"

const CTX = { memoryDir: "/home/u/.pi/agent/project-memory/projects/-home-u-app/memory", cwd: "/home/u/app" }

layer(BashGuard.layer)("false positives removed", (it) => {
  it.effect("the commands the issue names are read-only", () =>
    Effect.gen(function* () {
      const guard = yield* BashGuard
      for (const c of [
        "sed -n '5,10p;20q' notes.md",
        "cat notes.md | sed '/^$/d'",
        "git branch -r --merged main",
        "sort -t$'\\t' -k2 data.tsv",
        "diff -u a b",
        "sha256sum f"
      ]) {
        expect(guard.classifySync(c, CTX), c).toEqual({ verdict: "read-only" })
      }
    })
  )

  it.effect("their relatives that write, run code or break the sed rules stay rejected", () =>
    Effect.gen(function* () {
      const guard = yield* BashGuard
      for (const c of [
        "sed -n '5,10p;20q;w out' notes.md",
        "sed '/^$/d' notes.md",
        "sed -i '/^$/d' notes.md",
        "sed '/^$/d;s/a/b/'",
        "sed -n '1q;e id'",
        "sed 'q;r /etc/passwd'",
        "git branch -r --merged main X",
        "sort -t$'\\t' -o out x",
        "sort -t$'\\x2c' x",
        "echo $'\\101'",
        "echo $'\\u0041'",
        "echo $'\\cA'"
      ]) {
        expect(guard.classifySync(c, CTX).verdict, c).toBe("rejected")
      }
    })
  )
})
