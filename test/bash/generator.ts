/**
 * A small seeded generator of shell commands: allowed pieces joined the ways the guard allows, and the same with one
 * forbidden construct spliced in. No dependency: a 32-bit PRNG (mulberry32) keeps every run reproducible.
 */

export const prng = (seed: number) => {
  let a = seed >>> 0
  const next = (): number => {
    a = (a + 0x6d2b79f5) >>> 0
    let t = a
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
  const int = (n: number): number => Math.floor(next() * n)
  const pick = <A>(xs: ReadonlyArray<A>): A => xs[int(xs.length)]!
  return { next, int, pick }
}
export type Prng = ReturnType<typeof prng>

/** Single commands the guard allows on their own. */
export const SAFE_COMMANDS: ReadonlyArray<string> = [
  "ls -la",
  "ls src",
  "cat README.md",
  "head -n 5 notes.md",
  "tail -3 log.txt",
  "wc -l",
  "grep -rn TODO src",
  "rg -n 'foo|bar' src",
  "git status --short",
  "git log --oneline -n 3",
  "git diff --stat",
  "sort -u",
  "uniq -c",
  "cut -d: -f1",
  "tr a-z A-Z",
  "sed -n '1,3p' notes.md",
  "sed 's/a/b/g'",
  "awk '{print $1}'",
  "jq .name package.json",
  "echo 'héllo 🎉'",
  "printf '%s\\n' a b",
  "pwd",
  "true",
  "date +%F",
  "find . -name '*.md'",
  "fd -e ts",
  "ls -R src",
  "du -sh .",
  "stat README.md",
  "basename /a/b.md .md",
  "realpath src",
  "xargs -0 grep -l x",
  "xargs sort --",
  "file README.md",
  "nl -ba notes.md"
]

export const SAFE_JOINERS: ReadonlyArray<string> = [" && ", " || ", "; ", " | ", "\n", " |& "]
export const SAFE_REDIRECTS: ReadonlyArray<string> = ["", "", "", " 2>/dev/null", " >/dev/null 2>&1", " < README.md", " 2>&1"]
export const SAFE_PREFIXES: ReadonlyArray<string> = ["", "", "", "LANG=C ", "LC_ALL=C.UTF-8 ", "NO_COLOR=1 TZ=UTC "]

/** Whole commands that must be rejected wherever they appear. */
export const FORBIDDEN_COMMANDS: ReadonlyArray<string> = [
  "(ls)",
  "{ ls; }",
  "f() { ls; }",
  "if true; then ls; fi",
  "for x in a b; do ls; done",
  "while false; do ls; done",
  "until true; do ls; done",
  "case a in a) ls;; esac",
  "! ls",
  "time ls",
  "coproc ls",
  "[[ -f x ]]",
  "((x = 1))",
  "rm -f /tmp/x.md",
  "rm -rf /",
  "sh -c ls",
  "bash -c 'ls'",
  "eval ls",
  "sort -o out x",
  "sort -roout x",
  "sort --out=x",
  "find . -delete",
  "find . -exec rm {} +",
  "find . -exec cat {} \\; -delete",
  "sed -i 's/a/b/' f",
  "sed --in-pl=.bak 's/a/b/' f",
  "sed 's/a/b/w out'",
  "awk '{print > \"f\"}'",
  "awk 'BEGIN{system(\"id\")}'",
  "git -c core.pager=sh log",
  "git diff --ext\\-diff",
  "git log --out=x",
  "git commit -m x",
  "rg --pr=cat x",
  "fd -Hx rm",
  "tree -ao out",
  "xargs sort",
  "xargs sh -c 'id'",
  "curl http://x",
  "PATH=/tmp ls",
  "GIT_DIR=/x git log",
  "LD_PRELOAD=/x.so ls",
  "tee out.txt",
  "cat <<< hi",
  "cat <<EOF\nx\nEOF",
  "echo $\\\nHOME",
  "docker run x",
  "gh pr merge 1",
  "printf -v PATH x"
]

/** Words that make any command rejected when added as an argument. */
export const FORBIDDEN_WORDS: ReadonlyArray<string> = [
  "$HOME",
  "${HOME}",
  "\"$USER\"",
  "$(id)",
  "`id`",
  "<(ls)",
  ">(cat)",
  "$((1+1))",
  "{a,b}",
  "x{1..3}",
  "pre{a,b}post",
  "$'\\x41'",
  "$\"msg\"",
  "$\\\nx"
]

/** Redirections that make any command rejected. */
export const FORBIDDEN_REDIRECTS: ReadonlyArray<string> = [
  " > out.txt",
  " >> log",
  " &> all",
  " 2> err",
  " >| f",
  " >& f",
  " < /dev/tcp/example.com/80",
  " > /dev/udp/1.2.3.4/53",
  " <<< x",
  " {fd}>/dev/null"
]

export interface Generated {
  readonly command: string
  /** The same command without the forbidden construct (must be read-only). */
  readonly clean: string
  readonly construct: string
}

const safeCommand = (r: Prng): string => `${r.pick(SAFE_PREFIXES)}${r.pick(SAFE_COMMANDS)}${r.pick(SAFE_REDIRECTS)}`

/** 1 to `maxParts` allowed commands joined by allowed operators, with one forbidden construct spliced in. */
export const generate = (r: Prng, maxParts = 6): Generated => {
  const n = 1 + r.int(maxParts)
  const parts = Array.from({ length: n }, () => safeCommand(r))
  const joiners = Array.from({ length: n - 1 }, () => r.pick(SAFE_JOINERS))
  const join = (ps: ReadonlyArray<string>) => ps.reduce((acc, p, i) => (i === 0 ? p : `${acc}${joiners[i - 1]}${p}`), "")
  const clean = join(parts)
  const at = r.int(n)
  const kind = r.int(4)
  let construct: string
  const mutated = [...parts]
  if (kind === 0) {
    construct = r.pick(FORBIDDEN_COMMANDS)
    mutated[at] = construct
  } else if (kind === 1) {
    construct = r.pick(FORBIDDEN_WORDS)
    // The word goes right after the command's own words, before any redirection.
    const base = `${r.pick(SAFE_PREFIXES)}${r.pick(SAFE_COMMANDS)}`
    mutated[at] = `${base} ${construct}${r.pick(SAFE_REDIRECTS)}`
  } else if (kind === 2) {
    construct = r.pick(FORBIDDEN_REDIRECTS)
    mutated[at] = `${parts[at]}${construct}`
  } else {
    construct = "&"
    return { command: `${join(mutated)} &`, clean, construct }
  }
  return { command: join(mutated), clean, construct }
}
