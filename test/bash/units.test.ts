/** The pure pieces, without the parser: option reading, sed and awk program checks, delete targets, tree copying. */
import { describe, expect, it } from "@effect/vitest"
import { awkProgramProblem } from "../../src/safety/bash/awkProgram.ts"
import { checkDeleteTarget } from "../../src/safety/bash/delete.ts"
import { isRejected, scanOptions, type OptionSpec } from "../../src/safety/bash/options.ts"
import { printOnlyScript, substitutionScript } from "../../src/safety/bash/sed.ts"
import { copyTree, type BashNode, type CursorLike } from "../../src/safety/bash/tree.ts"
import { literalWord, type Word } from "../../src/safety/bash/words.ts"

const words = (...vs: ReadonlyArray<string>): ReadonlyArray<Word> => vs.map(literalWord)
const glob = (v: string): Word => ({ ...literalWord(v), glob: true, leadingGlob: /^[*?[]/.test(v) })

const SORTLIKE: OptionSpec = {
  shortArg: "kt",
  badShort: { o: "writes a file" },
  badLong: { output: "writes a file", "compress-program": "runs a program" },
  long: { key: "required", "field-separator": "required", "output-delimiter": "required" }
}

describe("scanOptions", () => {
  const reason = (spec: OptionSpec, ...vs: ReadonlyArray<string>) => {
    const r = scanOptions("cmd", words(...vs), spec)
    return isRejected(r) ? r.reject : undefined
  }

  it("finds a forbidden short option anywhere in a cluster, and stops at an option that takes the rest", () => {
    expect(reason(SORTLIKE, "-roout", "x")).toContain("`-o`")
    expect(reason(SORTLIKE, "-o", "x")).toContain("`-o`")
    expect(reason(SORTLIKE, "-k1o", "x")).toBeUndefined()
    expect(reason(SORTLIKE, "-k", "-o")).toBeUndefined()
    expect(reason(SORTLIKE, "-t", "o", "-ro")).toContain("`-o`")
  })

  it("reads long options with =, with a separate value, and as unambiguous or forbidden prefixes", () => {
    expect(reason(SORTLIKE, "--output=x")).toContain("--output")
    expect(reason(SORTLIKE, "--out=x")).toContain("abbreviates `--output`")
    expect(reason(SORTLIKE, "--o")).toContain("abbreviates `--output`")
    expect(reason(SORTLIKE, "--comp", "gzip")).toContain("--compress-program")
    expect(reason(SORTLIKE, "--output-delimiter=,")).toBeUndefined()
    expect(reason(SORTLIKE, "--key", "--output")).toBeUndefined()
  })

  it("stops reading options at --, and (when told) at the first operand", () => {
    expect(reason(SORTLIKE, "--", "-o", "--output=x")).toBeUndefined()
    const parsed = scanOptions("awk", words("-F:", "{print}", "-o"), { stopAtOperand: true, badShort: { o: "x" }, shortArg: "F" })
    expect(isRejected(parsed)).toBe(false)
    if (!isRejected(parsed)) expect(parsed.operands.map((w) => w.value)).toEqual(["{print}", "-o"])
  })

  it("treats --no-NAME as switching a forbidden option off only where the program has negations", () => {
    expect(reason({ ...SORTLIKE, negation: true }, "--no-output")).toBeUndefined()
    expect(reason({ ...SORTLIKE, negation: true }, "--out")).toContain("abbreviates")
  })

  it("in strict mode rejects unknown options and ambiguous abbreviations", () => {
    const strict: OptionSpec = { strict: true, shortFlags: "ab", long: { alpha: "none", also: "none" } }
    expect(reason(strict, "-ab")).toBeUndefined()
    expect(reason(strict, "-ac")).toContain("`-c`")
    expect(reason(strict, "--al")).toContain("ambiguous")
    expect(reason(strict, "--alp")).toBeUndefined()
    expect(reason(strict, "--zzz")).toContain("--zzz")
  })

  it("rejects wildcards that could spell another option, and in values (a long option's =value only where the spec allows patterns)", () => {
    const r = (...ws: ReadonlyArray<Word>) => {
      const p = scanOptions("cmd", ws, SORTLIKE)
      return isRejected(p) ? p.reject : undefined
    }
    const patterns = (...ws: ReadonlyArray<Word>) => {
      const p = scanOptions("cmd", ws, { ...SORTLIKE, globValues: true })
      return isRejected(p) ? p.reject : undefined
    }
    expect(r(glob("-[n-p]x"))).toContain("wildcard")
    expect(r(glob("--out*=x"))).toContain("wildcard")
    expect(r(glob("*"))).toContain("starts with a wildcard")
    expect(r(glob("./*"))).toBeUndefined()
    expect(r(literalWord("--"), glob("*"))).toBeUndefined()
    expect(r(glob("--key=*"))).toContain("wildcard")
    expect(patterns(glob("--key=*"))).toBeUndefined()
    expect(patterns(glob("--ke*=x"))).toContain("wildcard")
    // A value in the next word: `sort -t *` expands into `-t , -oFILE`.
    expect(r(literalWord("-t"), glob("*"))).toContain("the value of `-t`")
    expect(r(literalWord("--key"), glob("x*"))).toContain("the value of `--key`")
    expect(patterns(literalWord("-t"), glob("a*"))).toContain("the value of `-t`")
    // After an option the guard does not know, the next word may be its value.
    expect(r(literalWord("-Z"), glob("a*"))).toContain("wildcard")
  })
})

describe("sed scripts (D7)", () => {
  it.each([
    ["s/a/b/", undefined],
    ["s/a/b/g", undefined],
    ["s|/|_|gI", undefined],
    ["1,5s/a/b/", undefined],
    ["s/a\\/b/c/", undefined],
    ["s/a/b/w out", "writes"],
    ["s/a/b/e", "executes"],
    ["s/a/b/;s/c/d/", undefined],
    ["s/a/b/;y/xy/yx/", undefined],
    ["/x/{s/a/b/;p;q}", undefined],
    ["s/a/b/;w out", "writes"],
    ["s/a/b/ w out", "unexpected"],
    ["1{s/a/b/", "never closes"],
    ["}", "never opened"],
    ["y/ab/c", "not terminated"],
    ["s/a/b/;e id", "executes"],
    ["s/a/b/;r /etc/passwd", "reads a file"],
    ["s/a/b/;a text", "appends"],
    ["b end;:end", "branches"],
    ["s/a/b", "not terminated"],
    ["p", undefined]
  ])("stdin script %j", (script, problem) => {
    const r = substitutionScript(script)
    if (problem === undefined) expect(r).toBeUndefined()
    else expect(r).toContain(problem)
  })

  it.each([
    ["p", undefined],
    ["1p", undefined],
    ["1,5p", undefined],
    ["$p", undefined],
    ["/re/p;/x/Ip", undefined],
    ["\\,a/b,p", undefined],
    ["2~3p", undefined],
    ["/a/,+2p", undefined],
    ["1!p", undefined],
    ["1p\n$p", undefined],
    ["5,10p;20q", undefined],
    ["$=", undefined],
    ["3q5", undefined],
    ["/x/Q", undefined],
    ["q x", "unexpected"],
    ["w out", "`w`"],
    ["1d", "more than print"],
    ["1{p}", undefined],
    ["/x/{p;q}", undefined],
    ["1{p;s/a/b/}", undefined],
    ["s/a/b/p", undefined],
    ["s|a|b|gp", undefined],
    ["1,5s/a/b/2p;$=", undefined],
    ["/x/{s/a/b/Ip;q}", undefined],
    ["s/a/b/pw x", "s///w"],
    ["s/a/b/pe", "s///e"],
    ["s/a/b/p;e id", "`e`"],
    ["1{p;y/a/b/}", "more than print"],
    ["l", undefined],
    ["/x/l 40", undefined],
    ["1{l;G}", "more than print"],
    ["pw x", "unexpected"],
    ["/a\\/p", "address"],
    ["", "empty"]
  ])("print-only %j", (script, problem) => {
    const r = printOnlyScript(script)
    if (problem === undefined) expect(r).toBeUndefined()
    else expect(r).toContain(problem)
  })
})

describe("awk programs", () => {
  it.each([
    ["{print $1}", undefined],
    ["$3 > 100", undefined],
    ["$3 > 100 { print $1 }", undefined],
    ["{ if ($1 > $2) print $1 }", undefined],
    ["/a/ || /b/ { n++ } END { print n }", undefined],
    ["{ x = 4 / 2; print x }", undefined],
    // Read precisely where no lexer can disagree with awk: strings, sure regexes and parentheses.
    ["{ print ($1 > 2) }", undefined],
    ["/a|b/ { n++ } END { print n }", undefined],
    ['{ print "a | b > c" }', undefined],
    ['{ printf("%s > %s\\n", $1, $2) }', undefined],
    ['$1 ~ /x|y/ { print $1 "|" $2 }', undefined],
    ["{ print $1 } # a comment with | and >", undefined],
    // Where the precise reading could disagree with awk (a regex with [, a / after `)` or a keyword), the raw rules.
    ['/[|]/ { print }', "`|`"],
    ['{ if ($1) /x|y/ }', "`|`"],
    ['/[/]"/ { print "x" | "sh" } "', "`|`"],
    ['{ print "a" | "sh" }', "`|`"],
    ['{ print "x" > "f" }', "redirects print output"],
    ['{ print ($1) > "f" }', "redirects print output"],
    ['{ print "a", ($1 > 2) > "f" }', "redirects print output"],
    ["# system | >\n{print}", "system"],
    ['{ getline l < "f"; print l }', "getline"],
    ['BEGIN { ARGV[1] = "/inet/tcp/0/h/80" } { print }', "ARGV"],
    ['{ print > "f" }', "redirects print output"],
    ['{ print $1, $2 >> "f" }', "redirects print output"],
    ['{ printf("%s", $1) > "f" }', "redirects print output"],
    ['{ print $1,\n $2 > "f" }', "redirects print output"],
    ['{ print | "sh" }', "`|`"],
    ['{ "date" | getline d }', "getline"],
    ['{ print |& "cat" }', "`|`"],
    ['BEGIN { system("id") }', "system"],
    ['BEGIN { f = "x"; @f() }', "`@`"],
    ['@include "x"', "`@`"],
    ['{ print ENVIRON["HOME"] }', "ENVIRON"],
    ['BEGIN { PROCINFO["x"] = 1 }', "PROCINFO"],
    ['BEGIN { s = "/inet/tcp/0/h/80" }', "/inet"],
    ['{ print "unterminated }', "unterminated"],
    ["{ x = 1 / 2 ; print | \"sh\" ; y = 3 / 4 }", "`|`"],
    // Lexer disagreements that used to hide a call: each is caught on the raw text.
    ['{ exit /x/ ; system("id") }', "system"],
    ['/[/]/ { system("id") }', "system"],
    ['{ n = length /#/ ; system("id") }', "system"],
    ['{ a = "sys" "tem" }', undefined]
  ])("%j", (program, problem) => {
    const r = awkProgramProblem(program)
    if (problem === undefined) expect(r).toBeUndefined()
    else expect(r).toContain(problem)
  })
})

describe("delete targets", () => {
  const MEM = "/m/memory"
  const target = (v: string, w: Partial<Word> = {}) => checkDeleteTarget({ ...literalWord(v), ...w }, MEM, "/work")
  it("accepts a plain .md path inside the memory directory, normalizing repeated slashes", () => {
    expect(target("/m/memory/a.md")).toEqual({ path: "/m/memory/a.md" })
    expect(target("/m/memory//sub///b.md")).toEqual({ path: "/m/memory/sub/b.md" })
  })
  it.each([
    ["a.md", "relative"],
    ["/m/memory/*.md", "wildcard"],
    ["/m/memory/.git/a.md", "protected"],
    ["/m/memory/sub/.x/a.md", "protected"],
    ["/m/memory/../a.md", "`..`"],
    ["/m/memory/./a.md", "`..`"],
    ["/m/memory-2/a.md", "outside"],
    ["/m/memory", "memory directory itself"],
    ["/m/memory/a.MD", ".md"],
    ["/m/memory/a.md/", "directory"],
    ["/m/memory/a\nb.md", "control"]
  ])("rejects %j (%s)", (v, why) => {
    const r = target(v)
    expect("reject" in r && r.reject).toContain(why)
  })
  it("rejects a tilde path with the reason that it expands", () => {
    const r = target("~/a.md", { tilde: true })
    expect("reject" in r && r.reject).toContain("~")
  })
})

describe("copyTree", () => {
  /** A cursor over a nested object tree, like web-tree-sitter's. */
  interface Fake {
    readonly type: string
    readonly kids: ReadonlyArray<Fake>
  }
  const TYPES = { names: ["a", "b", "c", "d", "leaf", "list", "x"], named: [true, true, true, false, true, true, false] }
  const cursorOver = (root: Fake): CursorLike => {
    const path: Array<{ node: Fake; index: number }> = [{ node: root, index: 0 }]
    const current = () => path[path.length - 1]!.node
    return {
      get nodeTypeId() {
        return TYPES.names.indexOf(current().type)
      },
      nodeIsMissing: false,
      startIndex: 0,
      endIndex: 1,
      gotoFirstChild() {
        const k = current().kids[0]
        if (k === undefined) return false
        path.push({ node: k, index: 0 })
        return true
      },
      gotoNextSibling() {
        if (path.length < 2) return false
        const parent = path[path.length - 2]!.node
        const me = path[path.length - 1]!
        const next = parent.kids[me.index + 1]
        if (next === undefined) return false
        path[path.length - 1] = { node: next, index: me.index + 1 }
        return true
      },
      gotoParent() {
        if (path.length < 2) return false
        path.pop()
        return true
      }
    }
  }

  it("copies shape and order", () => {
    const tree: Fake = { type: "a", kids: [{ type: "b", kids: [{ type: "c", kids: [] }] }, { type: "d", kids: [] }] }
    const copy = copyTree(cursorOver(tree), TYPES, "dx").root
    const shape = (n: BashNode): unknown => [n.type, n.named, n.children.map(shape)]
    expect(shape(copy)).toEqual(["a", true, [["b", true, [["c", true, []]]], ["d", false, []]]])
  })

  it("copies a chain 100,000 deep without recursion", () => {
    let deep: Fake = { type: "leaf", kids: [] }
    for (let i = 0; i < 100_000; i++) deep = { type: "list", kids: [deep, { type: "x", kids: [] }] }
    let n = copyTree(cursorOver(deep), TYPES, "x").root
    let depth = 0
    while (n.children.length > 0) {
      n = n.children[0]!
      depth++
    }
    expect(depth).toBe(100_000)
  })
})
