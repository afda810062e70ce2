/**
 * Reasonable read-only commands the guard used to reject: they stay allowed, and their near relatives that would
 * write, run code or read files where D7 forbids it stay rejected.
 *
 * The second round's allowed forms are also run for real, under bash in a temporary directory with the programs of
 * this machine: each prints what it should, and the directory (and its sibling outside it) holds exactly the same
 * files with the same bytes afterwards. Their dangerous neighbours are shown doing harm there first, then rejected.
 */
import { expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import { spawnSync } from "node:child_process"
import { readdirSync, readFileSync, statSync } from "node:fs"
import { join } from "node:path"
import { describe, it } from "vitest"
import { BashGuard } from "../../layers/safety/BashGuard.ts"
import { runInSandbox } from "./sandbox.ts"

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

// ---------------------------------------------------------------------------------------------------------------------
// The second round, run for real

/** Every file under root (relative name -> bytes), directories included as names. */
const snapshot = (root: string): Map<string, string> => {
  const out = new Map<string, string>()
  const walk = (dir: string) => {
    for (const name of readdirSync(dir).sort()) {
      const full = join(dir, name)
      const rel = full.slice(root.length + 1)
      if (statSync(full).isDirectory()) {
        out.set(`${rel}/`, "")
        walk(full)
      } else out.set(rel, readFileSync(full, "latin1"))
    }
  }
  walk(root)
  return out
}

/** Files every real run starts from (names relative to the work directory). */
const FIXTURE = `cat > a.txt <<'X'
apple|1
banana>2
cherry 3
X
cat > b.txt <<'X'
apple|1
cherry 3
date 4
X
mkdir -p src/deep && echo 'export const x = 1' > src/deep/x.ts && ln -s a.txt link.txt
`

const runReal = (command: string) => {
  const prepared = runInSandbox(`${FIXTURE}`)
  const work = join(prepared.root, "work")
  const before = snapshot(prepared.root)
  const r = spawnSync("bash", ["-c", command], { cwd: work, encoding: "utf8", timeout: 10_000, env: { PATH: process.env["PATH"] ?? "/usr/bin:/bin", HOME: prepared.root, LANG: "C.UTF-8", LC_ALL: "C.UTF-8" } })
  const after = snapshot(prepared.root)
  prepared.cleanup()
  return { stdout: r.stdout ?? "", stderr: r.stderr ?? "", status: r.status, before, after }
}

const has = (program: string): boolean => spawnSync("bash", ["-c", `command -v ${program}`]).status === 0

/** Allowed now, each with a piece of the output that shows it ran. */
const ALLOWED: ReadonlyArray<readonly [string, string]> = [
  ["comm -12 a.txt b.txt", "apple|1"],
  ["column -t -s'|' a.txt", "apple"],
  ["readlink -f link.txt", "/a.txt"],
  ["od -c a.txt", "a   p   p"],
  ["hexdump -C a.txt", "|apple|1.banana>2"],
  ["file a.txt", "ASCII text"],
  ["cat a.txt | sed -e 's/apple/APPLE/' -e 's/cherry/CHERRY/'", "APPLE|1"],
  ["cat a.txt | sed 's/apple/A/;s/banana/B/'", "B>2"],
  ["cat a.txt | sed y/abc/ABC/", "BAnAnA"],
  ["sed -n '/banana/{p;q}' a.txt", "banana>2"],
  ["cat a.txt | sed '/cherry/{s/3/three/;p;d}'", "cherry three"],
  ["awk '{ print $1 \" | \" NR }' a.txt", "apple|1 | 1"],
  ["awk -F'|' '{ print ($2 > 0) }' a.txt", "1"],
  ["awk '{ printf(\"%s > %d\\n\", $1, NR) }' a.txt", "cherry > 3"],
  ["awk '/apple|cherry/ { n++ } END { print n }' a.txt", "2"],
  ["ls -la # list the files", "a.txt"]
]

/** Their dangerous neighbours: each really writes or runs something here, and the guard rejects it. */
const DANGEROUS: ReadonlyArray<readonly [string, string]> = [
  ["cat a.txt | sed 's/apple/A/w PWNED'", "PWNED"],
  ["cat a.txt | sed -e 's/a/b/' -e 'w PWNED'", "PWNED"],
  ["sed -n '/banana/{p;w PWNED\n}' a.txt", "PWNED"],
  ["cat a.txt | sed '1e touch PWNED'", "PWNED"],
  ["cat a.txt | sed 's/.*/touch PWNED/e'", "PWNED"],
  ["awk '{ print > \"PWNED\" }' a.txt", "PWNED"],
  ["awk '{ print ($1) > \"PWNED\" }' a.txt", "PWNED"],
  ["awk '{ print \"x\" | \"cat > PWNED\" }' a.txt", "PWNED"],
  ["awk 'BEGIN { system(\"touch PWNED\") }'", "PWNED"],
  ["ls # x\ntouch PWNED", "PWNED"]
]

describe("the second round's allowed forms, run for real", () => {
  it("each prints what it should and leaves every file as it was", () => {
    for (const [command, shows] of ALLOWED) {
      const r = runReal(command)
      expect(r.stdout + r.stderr, command).toContain(shows)
      expect([...r.after], command).toEqual([...r.before])
    }
  })

  it("tree in its fixed form lists without writing (when tree is installed)", () => {
    if (!has("tree")) return
    for (const command of ["tree", "tree -L 1 -a --dirsfirst", "tree -d src"]) {
      const r = runReal(command)
      expect(r.status, command).toBe(0)
      expect([...r.after], command).toEqual([...r.before])
    }
  })

  it("each dangerous neighbour really writes or runs a program under bash", () => {
    for (const [command, marker] of DANGEROUS) {
      const r = runReal(command)
      expect(r.after.has(`work/${marker}`), `${command}: ${r.stderr}`).toBe(true)
    }
  })
})

layer(BashGuard.layer)("the second round's verdicts", (it) => {
  it.effect("the allowed forms are read-only, their dangerous neighbours rejected", () =>
    Effect.gen(function* () {
      const guard = yield* BashGuard
      for (const [command] of ALLOWED) expect(guard.classifySync(command, CTX).verdict, command).toBe("read-only")
      for (const command of ["tree", "tree -L 2", "tree -a -I node_modules", "tree -d src docs", "tree -L 1 --noreport -F"]) {
        expect(guard.classifySync(command, CTX).verdict, command).toBe("read-only")
      }
      for (const [command] of DANGEROUS) expect(guard.classifySync(command, CTX).verdict, command).toBe("rejected")
      for (const command of ["tree -o out", "tree -Lo 1 out", "tree -R -H . -L 1", "tree --fromfile list", "tree -L2", "tree *", "xargs tree"]) {
        expect(guard.classifySync(command, CTX).verdict, command).toBe("rejected")
      }
    })
  )
})
