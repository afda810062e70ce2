/**
 * Class 1: where tree-sitter-bash and bash could split the text differently (comments, controls, escaped blanks,
 * continuations next to `#`). Each bypass is run under the real bash first, to show bash would run the hidden
 * `touch`, and then shown rejected by the guard.
 */
import { describe, expect, it, layer } from "@effect/vitest"
import { Effect } from "effect"
import { BashGuard } from "../../layers/safety/BashGuard.ts"
import { prescan } from "../../src/safety/bash/prescan.ts"
import { runInSandbox } from "./sandbox.ts"

const CTX = { memoryDir: "/home/u/.pi/agent/project-memory/projects/-home-u-app/memory", cwd: "/home/u/app" }

/** Each hides `touch ../out` (a file outside the working directory) behind something read as a comment. */
const HIDDEN_WRITES: ReadonlyArray<readonly [string, string]> = [
  ["escaped space before #", "echo \\ #; touch ../out"],
  ["escaped space before # in a word list", "ls a \\ #b; touch ../out"],
  ["carriage return before #", "echo a\r#; touch ../out"],
  ["carriage return as the line end", "ls\r#\ntouch ../out"],
  ["form feed before #", "echo a\f#; touch ../out"],
  ["vertical tab before #", "echo a\v#; touch ../out"],
  ["line continuation before #", "echo a\\\n#; touch ../out"],
  ["line continuation before # then a new line", "echo a\\\n#b\ntouch ../out"],
  ["escaped tab before #", "echo \\\t#; touch ../out"],
  ["backslash-newline inside a comment", "ls # x \\\ntouch ../out"],
  ["backslash-newlines inside a comment", "ls #\\\n\\\ntouch ../out"],
  ["no-break space before #", "echo a\u00a0#; touch ../out"],
  ["ideographic space before #", "echo a\u3000#; touch ../out"],
  ["line separator before #", "echo a\u2028#; touch ../out"],
  ["escape character before #", "echo a\u001b#; touch ../out"],
  ["escaped no-break space before #", "echo \\\u00a0#; touch ../out"],
  ["a plain comment hiding nothing bash skips", "ls #\ntouch ../out"],
  ["a here-document spelled across a continuation", "cat <\\\n<ls\n'\nls\ntouch ../out\necho '"],
  ["&& spelled across a continuation", "false &\\\n& true || touch ../out"]
]

describe("real bash runs the hidden part", () => {
  for (const [name, command] of HIDDEN_WRITES) {
    it(`${name}: bash creates ../out`, () => {
      const run = runInSandbox(command)
      try {
        expect(run.exists("out"), `${JSON.stringify(command)}: ${run.stderr}`).toBe(true)
      } finally {
        run.cleanup()
      }
    })
  }
})

layer(BashGuard.layer)("the guard rejects every spelling", (it) => {
  for (const [name, command] of HIDDEN_WRITES) {
    it.effect(`${name}: rejected`, () =>
      Effect.gen(function* () {
        const guard = yield* BashGuard
        const v = yield* guard.classify(command, CTX)
        expect(v.verdict, JSON.stringify(command)).toBe("rejected")
      })
    )
  }

  it.effect("controls anywhere, even inside quotes, are rejected; tab and newline are not", () =>
    Effect.gen(function* () {
      const guard = yield* BashGuard
      for (let c = 0; c < 0xa0; c++) {
        if (c >= 0x20 && c < 0x7f) continue
        const ch = String.fromCharCode(c)
        const v1 = guard.classifySync(`grep 'a${ch}b' f`, CTX)
        const v2 = guard.classifySync(c === 10 ? "ls\nls -la" : `ls${ch}-la`, CTX)
        if (c === 9 || c === 10) {
          expect(v1.verdict).toBe("read-only")
          expect(v2.verdict).toBe("read-only")
        } else {
          expect(v1.verdict, `U+${c.toString(16)}`).toBe("rejected")
          expect(v2.verdict, `U+${c.toString(16)}`).toBe("rejected")
        }
      }
    })
  )

  it.effect("a # inside a word or inside quotes stays allowed", () =>
    Effect.gen(function* () {
      const guard = yield* BashGuard
      for (const c of ["grep -n 'a#b' f", 'grep "#" f', "echo a#b", "grep -c x#1 f", "sed -n '/^#/p' f", "cat file\\ with\\ spaces.md"]) {
        expect(guard.classifySync(c, CTX), c).toEqual({ verdict: "read-only" })
      }
    })
  )

  it.effect("comments are rejected in every position but one: after a blank, running to the end of the text", () =>
    Effect.gen(function* () {
      const guard = yield* BashGuard
      for (const c of ["# x\nls", "ls\n#", "ls;#", "ls|#\ncat", "ls # x\ntouch y", "ls a\\ #b; touch y", "ls #x \\\ntouch y", "ls\t#x\n cat y"]) {
        const v = guard.classifySync(c, CTX)
        expect(v.verdict, c).toBe("rejected")
      }
      // bash ignores a trailing comment: the text before it is what is checked and what runs.
      expect(guard.classifySync("ls -la # list files", CTX)).toEqual({ verdict: "read-only", run: "ls -la" })
      expect(guard.classifySync("ls\t# tab before\n\n", CTX)).toEqual({ verdict: "read-only", run: "ls" })
      expect(guard.classifySync("rm /home/u/.pi/agent/project-memory/projects/-home-u-app/memory/a.md #x", CTX)).toMatchObject({ verdict: "delete" })
      expect(guard.classifySync("# only a comment", CTX).verdict).toBe("rejected")
      expect(guard.classifySync("touch x # y", CTX).verdict).toBe("rejected")
    })
  )

  it("real bash runs nothing of a trailing comment (what the guard cuts is what bash ignores)", () => {
    const run = runInSandbox("echo ok # ; touch ../out/PWNED && echo no")
    try {
      expect(run.stdout).toBe("ok\n")
      expect(run.exists("out/PWNED")).toBe(false)
    } finally {
      run.cleanup()
    }
  })
})

describe("a line continuation inside a word", () => {
  it("real bash removes it first and brace-expands the joined word", () => {
    const run = runInSandbox("echo {a,\\\nb}")
    try {
      expect(run.stdout).toBe("a b\n")
    } finally {
      run.cleanup()
    }
  })
})

layer(BashGuard.layer)("continuations and expansions of the joined word", (it) => {
  it.effect("braces or a leading ~ in either half of a continued word are rejected", () =>
    Effect.gen(function* () {
      const guard = yield* BashGuard
      for (const c of [
        "echo {a,\\\nb}",
        "rg x {--pre=sh,\\\nREADME.md}",
        "rg x {\\\n--pre=sh,README.md}",
        "rg x {--pre=sh\\\n,README.md}",
        "rg x {--pre=sh,README.md\\\n}",
        "echo {a,b,c\\\n}}",
        "echo a=\\\n~"
      ]) {
        expect(guard.classifySync(c, CTX).verdict, c).toBe("rejected")
      }
      expect(guard.classifySync("cat x\\\n.md", CTX)).toEqual({ verdict: "read-only" })
    })
  )
})

describe("prescan", () => {
  it("follows bash's quoting: a # after a closed quote, an escaped quote or inside $'...' is judged like bash does", () => {
    expect(prescan("echo 'it''s' #x")).toContain("comment")
    expect(prescan("echo \"a\\\"#\" b")).toBeUndefined()
    expect(prescan("echo $'a\\'#' b")).toBeUndefined()
    expect(prescan("echo \\'#")).toContain("comment")
    expect(prescan("echo $$'#'")).toBeUndefined()
  })

  it("rejects what opens a nested quoting context: $( ${ $[ backticks, here-documents", () => {
    expect(prescan("echo $(id)")).toContain("command substitution")
    expect(prescan('echo "$(id)"')).toContain("command substitution")
    expect(prescan("echo ${x}")).toContain("parameter expansion")
    expect(prescan("echo $[1]")).toContain("arithmetic")
    expect(prescan("echo `id`")).toContain("backtick")
    expect(prescan("cat <<EOF\n#\nEOF")).toContain("here-documents")
    expect(prescan("cat '<<'")).toBeUndefined()
  })

  it("is one pass: the work grows linearly with the input", () => {
    for (const size of [1_000, 100_000, 1_000_000]) {
      const steps = { count: 0 }
      expect(prescan("a".repeat(size), steps)).toBeUndefined()
      expect(steps.count).toBe(size)
    }
  })
})
