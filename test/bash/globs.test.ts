/**
 * Class 2: an unquoted wildcard where a value or an operand is consumed expands into several words, and the extra
 * words become options. Memory files named like options make it exploitable. The dangerous forms are run under the
 * real bash to show the write happens, then shown rejected.
 */
import { describe, expect, it, layer } from "@effect/vitest"
import { Effect } from "effect"
import { BashGuard } from "../../layers/safety/BashGuard.ts"
import { runInSandbox } from "./sandbox.ts"

const CTX = { memoryDir: "/home/u/.pi/agent/project-memory/projects/-home-u-app/memory", cwd: "/home/u/app" }

/** command, files present in the working directory, the file bash creates. */
const WRITES: ReadonlyArray<readonly [string, ReadonlyArray<string>, string]> = [
  ["sort -t * x", [",", "-oPWNED", "x"], "work/PWNED"],
  ["awk -F * x", [",", 'BEGIN{system("touch PWNED")}', "x"], "work/PWNED"],
  ["sort -T * x", [",", "-oPWNED", "x"], "work/PWNED"]
]

describe("real bash: a wildcard value expands into an option", () => {
  for (const [command, files, created] of WRITES) {
    it(`${command} with files ${JSON.stringify(files)} writes ${created}`, () => {
      const run = runInSandbox(command, files)
      try {
        expect(run.exists(created), run.stderr).toBe(true)
      } finally {
        run.cleanup()
      }
    })
  }
})

layer(BashGuard.layer)("wildcards in values and operands", (it) => {
  it.effect("the bash-proven forms are rejected", () =>
    Effect.gen(function* () {
      const guard = yield* BashGuard
      for (const [command] of WRITES) expect(guard.classifySync(command, CTX).verdict, command).toBe("rejected")
    })
  )

  it.effect("an option value is never a wildcard, in any spelling of the option", () =>
    Effect.gen(function* () {
      const guard = yield* BashGuard
      for (const c of [
        "sort -t * x",
        "sort -rt * x",
        "sort --field-separator * x",
        "sort --key=* x",
        "sort -t [,] x",
        "sort -t ? x",
        "awk -F * x",
        "awk -v * '{print}' x",
        "awk --assign=* '{print}' x",
        "rg x -g *",
        "rg x --glob *",
        "rg -e * x",
        "xargs -I * echo *",
        "xargs -d * echo",
        "xargs --delimiter=* echo",
        "cut -d * -f1 x",
        "head -n * x",
        "git log -n * --",
        "git log --format=[%]G",
        "sed -e * x",
        "fd -e * x",
        "file -m * x",
        "date -d *",
        "jq --arg * x",
        "jq --arg a * x",
        "jq --slurpfile a * . x"
      ]) {
        expect(guard.classifySync(c, CTX).verdict, c).toBe("rejected")
      }
    })
  )

  it.effect("a wildcard operand that could expand into an option needs -- first (or a ./ prefix)", () =>
    Effect.gen(function* () {
      const guard = yield* BashGuard
      for (const c of ["sort *", "sort x *", "rg x *", "fd x *", "sed -n p *", "git log *", "tail *", "tail -n 2 *", "printf *"]) {
        expect(guard.classifySync(c, CTX).verdict, c).toBe("rejected")
      }
      for (const c of ["sort -- *", "sort ./*", "rg x -- *", "rg x ./*", "sed -n p -- *", "git log -- *", "file -- *", "tail -- *", "tail -n 5 *.log", "cat *", "ls *", "grep -r x *", "wc -l src/*.ts"]) {
        expect(guard.classifySync(c, CTX), c).toEqual({ verdict: "read-only" })
      }
    })
  )

  it.effect("file takes wildcard operands (the options a name could spell only write or decompress, inside the sandbox), but never its refused options", () =>
    Effect.gen(function* () {
      const guard = yield* BashGuard
      for (const c of ["file *", "file -i *.md", "file -b --mime-type src/*", "file -L -- *"]) {
        expect(guard.classifySync(c, CTX), c).toEqual({ verdict: "read-only" })
      }
      for (const c of ["file -C *", "file -z *", "file -bZ *", "file --compile *", "file --uncomp *", "file -m * x"]) {
        expect(guard.classifySync(c, CTX).verdict, c).toBe("rejected")
      }
    })
  )

  it.effect("long --name=PATTERN stays allowed where the value is a pattern the program matches (grep, rg, fd, ls, du)", () =>
    Effect.gen(function* () {
      const guard = yield* BashGuard
      for (const c of ["grep -r --include=*.md x .", "rg --glob=*.md x", "fd --exclude=*.tmp x", "ls --ignore=*.o", "du --exclude=*.log ."]) {
        expect(guard.classifySync(c, CTX), c).toEqual({ verdict: "read-only" })
      }
    })
  )

  it.effect("commands whose action depends on how many operands they get reject wildcard operands", () =>
    Effect.gen(function* () {
      const guard = yield* BashGuard
      for (const c of ["uniq x*", "date +%s*", "cd d*", "git config user.*", "git symbolic-ref H*", "git branch --list f*", "git tag -l v*", "find . -name *.md"]) {
        expect(guard.classifySync(c, CTX).verdict, c).toBe("rejected")
      }
    })
  )
})
