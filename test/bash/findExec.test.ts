/**
 * The ordinary reading the red team found refused: `file *`, `sed -n 's/a/b/p' FILE` and `find ... -exec CMD {} +`.
 * The allowed forms run under the real programs and change nothing; their dangerous neighbours are shown writing or
 * leaking under the real programs, then shown refused; and the read plan covers what the new forms open (a wildcard
 * expanded by the caller, everything under find's roots).
 */
import { describe, expect, it, layer } from "@effect/vitest"
import { Effect } from "effect"
import { readFileSync } from "node:fs"
import { join } from "node:path"
import { BashGuard } from "../../layers/safety/BashGuard.ts"
import type { BashGuardShape } from "../../layers/safety/bashGuardShape.ts"
import type { Verdict } from "../../src/safety/bash/verdict.ts"
import { runInSandbox } from "./sandbox.ts"

const CWD = "/home/u/app"
const CTX = { memoryDir: "/home/u/.pi/agent/project-memory/projects/-home-u-app/memory", cwd: CWD }
const READS = { ...CTX, reads: { home: "/home/u" } }

describe("real programs: the allowed forms only print, their neighbours write or leak", () => {
  it("`sed -n 's/a/b/p' f`, `find -exec wc -l {} +` and `file *` print and leave the folder as it was", () => {
    const run = runInSandbox(
      "printf 'abc\\nxyz\\n' > f.txt && ls -a > ../before && sed -n 's/a/b/p' f.txt && sed -n 's|x|y|gp' f.txt && " +
        "find . -name '*.txt' -exec wc -l {} + && find . -name '*.txt' -execdir wc -c {} \\; && file * && ls -a > ../after",
      ["a.md"]
    )
    try {
      expect(run.status, run.stderr).toBe(0)
      expect(run.stdout).toContain("bbc\n")
      expect(run.stdout).toContain("yyz\n")
      expect(run.stdout).toMatch(/2 \.\/f\.txt/)
      expect(run.stdout).toMatch(/f\.txt: ASCII text/)
      expect(readFileSync(join(run.root, "work", "f.txt"), "utf8")).toBe("abc\nxyz\n")
      expect(readFileSync(join(run.root, "after"), "utf8")).toBe(readFileSync(join(run.root, "before"), "utf8"))
    } finally {
      run.cleanup()
    }
  })

  it("`s///w` and an input line as sed's script (`xargs -I {} sed -n -- {}`) each write a file", () => {
    for (const command of ["printf 'abc\\n' > f.txt && sed -n 's/a/b/w PWNED' f.txt", "echo 'w PWNED' | xargs -I {} sed -n -- {}"]) {
      const run = runInSandbox(command)
      try {
        expect(run.exists("work/PWNED"), `${command}: ${run.stderr}`).toBe(true)
      } finally {
        run.cleanup()
      }
    }
  })

  it("`find -exec uniq {} +` gives uniq two names, and uniq overwrites the second", () => {
    const run = runInSandbox("printf 'x\\n' > a && printf 'y\\n' > b && find . -type f -exec uniq {} + ; cat a b")
    try {
      expect(["x\nx\n", "y\ny\n"], run.stderr).toContain(run.stdout)
    } finally {
      run.cleanup()
    }
  })

  it("an input line as jq's program prints the environment (jq 1.6 here; 1.7 also reads a program after `--`)", () => {
    const run = runInSandbox("echo '$ENV.PATH' | xargs -I {} jq -n {}")
    try {
      expect(run.stdout, run.stderr).toContain("/bin")
    } finally {
      run.cleanup()
    }
  })
})

const verdicts = (guard: BashGuardShape, commands: ReadonlyArray<string>): Array<string> =>
  commands.map((c) => guard.classifySync(c, CTX).verdict)

layer(BashGuard.layer)("file, sed -n s///p and find -exec", (it) => {
  it.effect("the red team's commands and their kind are read-only", () =>
    Effect.gen(function* () {
      const guard = yield* BashGuard
      const allowed = [
        "file *",
        "file -i *.md",
        "sed -n 's/a/b/p' f.txt",
        "sed -n 's/a/b/gp' f.txt",
        "sed -n 's|a|b|p' f.txt",
        "sed -En '10,$s/(a+)/<\\1>/p' f.txt",
        "sed -rn '/x/{s/a/b/p;q}' f.txt",
        "find . -name '*.md' -exec wc -l {} +",
        "find . -name '*.md' -exec wc -l {} \\;",
        "find . -name '*.md' -exec wc -l {} ';'",
        "find src -type f -execdir grep -l TODO {} +",
        "find . -exec sed -n 's/a/b/p' {} +",
        "find . -exec git log -1 -- {} \\;",
        "find . -exec tail -n 2 {} \\;",
        "find . -exec echo + \\;",
        "find . -exec cat {} {}.orig \\;",
        "find . -exec cat {} \\; -o -exec head -n 1 {} +",
        "xargs -I {} sed -n -e p -- {}",
        "xargs -I {} jq -- .name {}"
      ]
      expect(verdicts(guard, allowed)).toEqual(allowed.map(() => "read-only"))
    })
  )

  it.effect("what writes, runs, prompts or reads the wrong thing stays refused", () =>
    Effect.gen(function* () {
      const guard = yield* BashGuard
      const refused: ReadonlyArray<readonly [string, string]> = [
        ["sed -n 's/a/b/w out' f", "s///w"],
        ["sed -n 's/a/b/e' f", "s///e"],
        ["sed -n 's/a/b/p;w out' f", "`w`"],
        ["sed -n 's/a/b/p;W out' f", "`W`"],
        ["sed -n 'e date' f", "`e`"],
        ["sed -ni 's/a/b/p' f", "-i"],
        ["sed --in-place -n 's/a/b/p' f", "--in-place"],
        ["sed 's/a/b/' f", "-n"],
        ["file -C *", "-C"],
        ["file -z *", "-z"],
        ["find . -ok cat {} \\;", "-ok"],
        ["find . -okdir cat {} +", "-okdir"],
        ["find . -exec cat {} + -delete", "-delete"],
        ["find . -exec cat {} + -fprint0 out", "-fprint0"],
        ["find . -exec cat {} + -fls out", "-fls"],
        ["find . -exec rm -f {} +", "rm"],
        ["find . -exec sed -i 's/a/b/' {} +", "-i"],
        ["find . -exec sed -n 's/a/b/w out' {} +", "s///w"],
        ["find . -exec env cat {} +", "env"],
        ["find . -exec cat {} x {} +", "right before"],
        ["find . -exec cat {}", "needs a command and an end"],
        ["find . -exec {} \\;", "command name"],
        ["find . -exec uniq {} \\;", "uniq"],
        ["find . -exec sed -n {} \\;", "sed's script"],
        ["find . -exec jq {} x \\;", "jq's program"],
        ["find . -exec git {} \\;", "git subcommand"],
        ["find . -exec git log {} \\;", "`--`"],
        ["find +1f -exec tail {} \\;", "+N"],
        ["find . -execdir git log -- {} \\;", "-execdir"],
        ["find . -execdir cat ../../x \\;", "leaves"],
        ["find . -exec cat *.md \\;", "wildcard"],
        ["xargs -I {} sed -n -- {}", "script or program"],
        ["xargs -I {} jq -- {} f", "script or program"]
      ]
      for (const [command, reason] of refused) {
        const v = guard.classifySync(command, CTX)
        expect(v.verdict, command).toBe("rejected")
        if (v.verdict === "rejected") expect(v.reason, command).toContain(reason)
      }
    })
  )

  const planOf = (v: Verdict) => {
    if (v.verdict !== "read-only" || v.reads === undefined) throw new Error(`no read plan: ${JSON.stringify(v)}`)
    return v.reads
  }

  it.effect("the read plan: find -exec reads everything under its roots, file * hands the wildcard over", () =>
    Effect.gen(function* () {
      const guard = yield* BashGuard
      const recursive = (command: string) =>
        planOf(guard.classifySync(command, READS)).targets.filter((t) => t.recursive).map((t) => t.path)
      expect(recursive("find src docs -name '*.md' -exec wc -l {} +")).toEqual([`${CWD}/src`, `${CWD}/docs`])
      expect(recursive("find -exec cat {} \\;")).toEqual([CWD])
      expect(recursive("find -L ~/notes -execdir cat {} \\;")).toEqual(["/home/u/notes"])
      expect(recursive("find src -name '*.md'")).toEqual([])
      // The inner command's own words count, and its own recursive search too.
      const inner = planOf(guard.classifySync("find src -exec grep -r -f /etc/patterns {} \\;", READS)).targets
      expect(inner.some((t) => t.path === "/etc/patterns" && t.recursive)).toBe(true)
      const glob = planOf(guard.classifySync("file -b *.md", READS)).targets
      expect(glob).toContainEqual({ path: `${CWD}/*.md`, glob: true, recursive: false, lexical: false })
    })
  )

  it.effect("the read plan refuses names it cannot see: file -f, and xargs fed by find -exec", () =>
    Effect.gen(function* () {
      const guard = yield* BashGuard
      const refusal = (command: string) => planOf(guard.classifySync(command, READS)).refuse
      expect(refusal("file -f list.txt")).toContain("--files-from")
      expect(refusal("file -bf list.txt")).toContain("--files-from")
      expect(refusal("file --files-from=list.txt")).toContain("--files-from")
      expect(refusal("find . -exec cat {} \\; | xargs cat")).toContain("-exec")
      expect(refusal("find . -name '*.md' | xargs cat")).toBeUndefined()
      // find's global options come before its roots: the root after -L is the tree xargs reads from.
      const targets = planOf(guard.classifySync("find -L ~ -name 'id_*' | xargs cat", READS)).targets
      expect(targets).toContainEqual({ path: "/home/u", glob: false, recursive: true, lexical: false, hidden: true })
    })
  )
})
