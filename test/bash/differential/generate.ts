/**
 * Command generators for the differential test, seeded so that a failure names a reproducible case.
 *
 * - grammar: simple commands from the allowlist with their options and values, operands that are files, hostile
 *   names and globs, each word written in a random quoting style (plain, '...', "...", backslashes, mixed, $'...'),
 *   joined by blanks, tabs, line continuations and control characters, with comments, redirections, assignments,
 *   pipelines, && / || / ; / newlines and xargs.
 * - mutation: a corpus or seed command with a few characters inserted, deleted or replaced from a hostile alphabet.
 */

export interface Rng {
  readonly next: () => number
  readonly int: (n: number) => number
  readonly pick: <A>(xs: ReadonlyArray<A>) => A
  readonly chance: (p: number) => boolean
}

/** mulberry32: small, fast, reproducible. */
export const rng = (seed: number): Rng => {
  let a = seed >>> 0
  const next = (): number => {
    a = (a + 0x6d2b79f5) >>> 0
    let t = a
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
  const int = (n: number): number => Math.floor(next() * n)
  return { next, int, pick: (xs) => xs[int(xs.length)]!, chance: (p) => next() < p }
}

// ---------------------------------------------------------------------------------------------------------------------
// Words

const FILES = ["README.md", "notes.txt", "src/a.ts", "data.json", "src", ".", "../memory/MEMORY.md", "../memory/topic.md", "../memory", "missing.txt"]
const HOSTILE = ["-oPWNED", "--pre=sh", "*", "name with space.md", "--output=PWNED", "-e", "--no-verbose", "-x", "--exec=touch"]
const GLOBS = ["*", "*.md", "src/*", "../memory/*", "../memory/*.md", "?*", "[a-z]*", "*/", "../memory/-*", "-*", "*.[mj]*", "../*/*"]
const PATTERNS = ["TODO", "a", "x", "^#", "a.b", "foo|bar", "[0-9]+", "-e", "--", "#", "a b", "\\.md$"]

/** A word in one of bash's quoting styles, with the same value (or a deliberately odd spelling). */
const spell = (r: Rng, value: string): string => {
  const plainSafe = /^[A-Za-z0-9_./,:=+%@^-]+$/.test(value) && value.length > 0
  const choice = r.int(10)
  if (choice < 4 && plainSafe) {
    // now and then a line continuation inside the word: bash joins it back
    if (r.chance(0.08)) {
      const k = r.int(value.length + 1)
      return `${value.slice(0, k)}\\\n${value.slice(k)}`
    }
    return value
  }
  if (choice < 6 && !value.includes("'")) return `'${value}'`
  if (choice < 7) return `"${value.replace(/(["\\$`])/g, "\\$1")}"`
  if (choice < 8) {
    // every special character backslashed
    return value.replace(/([^A-Za-z0-9_./,:=+%@^-])/g, "\\$1") || "''"
  }
  if (choice < 8.5 && value.length > 0) {
    // empty quotes spliced in, or every character backslashed (letters too)
    if (r.chance(0.5)) {
      const k = r.int(value.length + 1)
      return `${spell(r, value.slice(0, k)).replace(/^''$/, "")}${r.pick(["''", '""'])}${value.slice(k).replace(/([^A-Za-z0-9_./,:=+%@^-])/g, "\\$1")}`
    }
    return value.replace(/([\s\S])/g, (c) => (c === "\n" ? "'\n'" : `\\${c}`))
  }
  if (choice < 9 && value.length > 1) {
    // mixed: split in two with different quotes
    const k = 1 + r.int(value.length - 1)
    const a = value.slice(0, k)
    const b = value.slice(k)
    return `${a.includes("'") ? `"${a.replace(/(["\\$`])/g, "\\$1")}"` : `'${a}'`}"${b.replace(/(["\\$`])/g, "\\$1")}"`
  }
  // ANSI-C quoting: the guard rejects it, but it must reject, not misread.
  return `$'${value.replace(/\\/g, "\\\\").replace(/'/g, "\\'")}'`
}

/** Something between two words: usually a blank, sometimes a tab, continuation or control. */
const gap = (r: Rng): string => {
  const c = r.int(40)
  if (c < 30) return " "
  if (c < 33) return "\t"
  if (c < 35) return " \\\n"
  if (c < 36) return "\\\n "
  if (c < 37) return " \r"
  if (c < 38) return " \f"
  if (c < 39) return " \v"
  return "  "
}

const ODD_WORDS = ["''", '""', "\\*", '"*"', "'*'", "*'x'", "~+", "~-", "a=~", "x:~", "a=1", "[", "]", "{}", "{x}", "-", "\\-x", "'-'x", "=", "a\\ b", "\\\\", "$", "x$", "%", "@", "!", "^", "{a,b}", "{--pre=sh,x}", "{a..c}", "{,}", "x{a,b}", "{a,\\\nb}", "{a\\\n,b}", "{\\\n-x,y}", "\\{a,b}", "{a,b\\}"]

const operand = (r: Rng): string => {
  const c = r.int(12)
  if (c >= 10) return r.pick(ODD_WORDS)
  if (c < 5) return spell(r, r.pick(FILES))
  if (c < 8) return r.pick(GLOBS) // unquoted on purpose
  if (c < 9) return `-- ${spell(r, r.pick(HOSTILE))}`
  return r.chance(0.5) ? "~" : "~/x"
}

// ---------------------------------------------------------------------------------------------------------------------
// Commands: name, options (some with values), operands

interface Program {
  readonly name: string
  /** Options: a bare flag, or [flag, value generator]. */
  readonly flags: ReadonlyArray<string>
  readonly valued: ReadonlyArray<readonly [string, (r: Rng) => string]>
  readonly operands: (r: Rng) => ReadonlyArray<string>
}

const num = (r: Rng) => String(r.int(20))
const sep = (r: Rng) => r.pick([",", ":", "\\t", " ", "*", "-", "|", "#"])
const someFiles = (r: Rng) => Array.from({ length: r.int(3) }, () => operand(r))
const pattern = (r: Rng) => spell(r, r.pick(PATTERNS))

const PROGRAMS: ReadonlyArray<Program> = [
  { name: "ls", flags: ["-l", "-a", "-1", "-d", "-la", "-R", "--color=never", "-t"], valued: [["-I", (r) => r.pick(GLOBS)], ["--hide", (r) => spell(r, "*.md")], ["-w", num]], operands: someFiles },
  { name: "cat", flags: ["-n", "-A", "-s", "--"], valued: [], operands: someFiles },
  { name: "head", flags: ["-5", "-q", "-v"], valued: [["-n", num], ["-c", num], ["--lines", num]], operands: someFiles },
  { name: "tail", flags: ["-3", "-q"], valued: [["-n", num], ["-c", num], ["-n", (r) => `+${num(r)}`]], operands: someFiles },
  { name: "wc", flags: ["-l", "-c", "-w", "-lw"], valued: [], operands: someFiles },
  { name: "grep", flags: ["-r", "-n", "-i", "-E", "-F", "-l", "-c", "-rn", "-v", "-o"], valued: [["-e", pattern], ["-A", num], ["--include", (r) => r.pick(GLOBS)], ["-m", num]], operands: (r) => [pattern(r), ...someFiles(r)] },
  { name: "rg", flags: ["-n", "-i", "-l", "-c", "-F", "--hidden", "-uu", "--no-ignore"], valued: [["-g", (r) => r.pick(GLOBS)], ["-e", pattern], ["-t", () => "md"], ["--max-depth", num]], operands: (r) => [pattern(r), ...someFiles(r)] },
  { name: "sort", flags: ["-r", "-n", "-u", "-f", "-rn", "-s"], valued: [["-t", sep], ["-k", (r) => r.pick(["1", "2,2", "1n", "*"])]], operands: someFiles },
  { name: "uniq", flags: ["-c", "-d", "-u", "-i"], valued: [["-f", num]], operands: (r) => (r.chance(0.5) ? [spell(r, r.pick(FILES))] : []) },
  { name: "cut", flags: ["-s"], valued: [["-d", sep], ["-f", (r) => r.pick(["1", "1,2", "2-"])], ["-c", (r) => r.pick(["1-3", "2"])]], operands: someFiles },
  { name: "tr", flags: ["-d", "-s", "-c"], valued: [], operands: (r) => [spell(r, r.pick(["a-z", "x", "[:upper:]", "\\n"])), spell(r, r.pick(["A-Z", "y", "[:lower:]"]))] },
  { name: "sed", flags: ["-n", "-E"], valued: [["-e", (r) => spell(r, r.pick(["p", "s/a/b/", "1,2p", "/^$/d", "$p"]))]], operands: (r) => [spell(r, r.pick(["5,10p;20q", "s/a/b/g", "/^$/d", "p", "1d", "y/ab/ba/"])), ...someFiles(r)] },
  { name: "awk", flags: [], valued: [["-F", sep], ["-v", () => "a=1"]], operands: (r) => [spell(r, r.pick(["{print $1}", "NR==1", "/x/ {print}", "BEGIN{print 1}", "{n++} END{print n}", "length > 3", "{print length}", "$1 ~ /a/"])), ...someFiles(r)] },
  { name: "jq", flags: ["-r", "-c", "-S"], valued: [["--arg", (r) => `a ${spell(r, "v")}`]], operands: (r) => [spell(r, r.pick([".", ".a", ".a[]", "keys"])), ...(r.chance(0.6) ? [spell(r, "data.json")] : [])] },
  { name: "nl", flags: ["-ba"], valued: [["-s", sep]], operands: someFiles },
  { name: "basename", flags: ["-a"], valued: [["-s", () => ".md"]], operands: (r) => [spell(r, r.pick(FILES))] },
  { name: "dirname", flags: [], valued: [], operands: (r) => [spell(r, r.pick(FILES))] },
  { name: "realpath", flags: ["-e", "-m", "-s"], valued: [], operands: (r) => [spell(r, r.pick(FILES))] },
  { name: "stat", flags: ["-L", "-t"], valued: [["-c", (r) => spell(r, r.pick(["%s %n", "%y", "%a"]))]], operands: (r) => [spell(r, r.pick(FILES))] },
  { name: "file", flags: ["-b", "-i", "-L"], valued: [], operands: someFiles },
  { name: "find", flags: [], valued: [], operands: (r) => [spell(r, r.pick([".", "src", "../memory"])), ...(r.chance(0.5) ? ["-name", spell(r, "*.md")] : []), ...(r.chance(0.4) ? ["-type", "f"] : []), ...(r.chance(0.3) ? ["-maxdepth", num(r)] : []), ...(r.chance(0.2) ? ["-print0"] : [])] },
  { name: "du", flags: ["-s", "-h", "-a", "-sh"], valued: [["--max-depth", num], ["--exclude", (r) => r.pick(GLOBS)]], operands: someFiles },
  { name: "df", flags: ["-h", "-T"], valued: [], operands: () => ["."] },
  { name: "echo", flags: ["-n", "-e", "-E"], valued: [], operands: (r) => Array.from({ length: r.int(4) }, () => (r.chance(0.7) ? spell(r, r.pick([...PATTERNS, ...HOSTILE])) : operand(r))) },
  { name: "printf", flags: [], valued: [], operands: (r) => [spell(r, r.pick(["%s\\n", "%s %s\\n", "x", "%d\\n"])), ...Array.from({ length: r.int(3) }, () => spell(r, r.pick([...PATTERNS, ...HOSTILE])))] },
  { name: "pwd", flags: ["-P", "-L"], valued: [], operands: () => [] },
  { name: "true", flags: [], valued: [], operands: () => [] },
  { name: "date", flags: ["-u", "-R"], valued: [["-d", () => "@0"]], operands: (r) => (r.chance(0.5) ? [spell(r, "+%F")] : []) },
  { name: "tree", flags: ["-a", "-d", "-f"], valued: [["-L", num], ["-I", (r) => spell(r, "*.md")]], operands: someFiles },
  { name: "fd", flags: ["-H", "-I", "-a"], valued: [["-e", () => "md"], ["-t", () => "f"], ["-d", num]], operands: (r) => (r.chance(0.6) ? [pattern(r)] : []) },
  { name: "cd", flags: [], valued: [], operands: (r) => [spell(r, r.pick(["src", "..", "../memory", ".", "vendor/other", "missing"]))] }
]

const GIT_SUBS: ReadonlyArray<(r: Rng) => ReadonlyArray<string>> = [
  (r) => ["log", ...r.pick([["--oneline"], ["-n", num(r)], ["-1"], ["--stat"], ["-p", "-1"], ["--format=%h %s"], ["--all", "--graph", "--oneline"]])],
  (r) => ["status", ...r.pick([[], ["-s"], ["--short"], ["--porcelain"]])],
  (r) => ["diff", ...r.pick([[], ["--stat"], ["HEAD~1"], ["--name-only", "HEAD~1"], ["--", "README.md"], ["--cached"]])],
  (r) => ["show", ...r.pick([[], ["HEAD"], ["--stat", "HEAD"], ["HEAD:README.md"], ["-s", "--format=%H"]])],
  (r) => ["branch", ...r.pick([[], ["-a"], ["-r"], ["--list"], ["-v"], ["--list", spell(r, "m*")], ["--merged", "main"]])],
  (r) => ["tag", ...r.pick([[], ["-l"], ["--list", spell(r, "v*")], ["-n"]])],
  (r) => ["rev-parse", r.pick(["HEAD", "--show-toplevel", "--abbrev-ref HEAD"])],
  (r) => ["ls-files", ...r.pick([[], ["-z"], ["--", spell(r, "*.md")]])],
  (r) => ["blame", spell(r, "README.md")],
  (r) => ["grep", "-n", pattern(r)],
  (r) => ["config", ...r.pick([["--get", "user.name"], ["--list"], ["-l"], ["core.bare"]])]
]

const gitCommand = (r: Rng): ReadonlyArray<string> => [
  "git",
  ...(r.chance(0.1) ? ["--no-pager"] : []),
  ...(r.chance(0.05) ? ["-C", spell(r, r.pick(["src", ".", "../memory"]))] : []),
  ...r.pick(GIT_SUBS)(r)
]

const optionWords = (r: Rng, p: Program): Array<string> => {
  const words: Array<string> = []
  const n = r.int(3)
  for (let i = 0; i < n; i++) {
    if (p.valued.length > 0 && r.chance(0.5)) {
      const [flag, value] = r.pick(p.valued)
      const v = value(r)
      // option value attached, separated, or with = for long options
      if (flag.startsWith("--")) words.push(r.chance(0.5) ? `${flag}=${v}` : `${flag} ${v}`)
      else words.push(r.chance(0.3) ? `${flag}${v}` : `${flag} ${v}`)
    } else if (p.flags.length > 0) {
      words.push(r.pick(p.flags))
    }
  }
  // option clusters
  if (r.chance(0.15) && p.flags.length >= 2) words.push(`-${r.pick(p.flags).replace(/^-+/, "")}${r.pick(p.flags).replace(/^-+/, "")}`)
  return words
}

const XARGS_INPUT = ["-oPWNED", "--pre=sh", "--output=PWNED", "user.name PWNED", "/inet/tcp/0/127.0.0.1/9", "README.md", "-e", "--exec=touch", "PWNED", "HEAD refs/heads/PWNED", "'a b'", "-C ..", "--no-verbose"]

/** printf WORDS | xargs [options] COMMAND [words] [--]: hostile input into a command the guard checks statically. */
const xargsPipeline = (r: Rng): string => {
  const input = Array.from({ length: 1 + r.int(3) }, () => spell(r, r.pick(XARGS_INPUT)))
  const xo = r.pick([[], ["-0"], ["-n", "1"], ["-n1"], ["-I", "{}"], ["-r"], ["-L", "1"], ["-d", "'\\n'"], ["-i"]])
  const inner = r.chance(0.4) ? gitCommand(r).join(" ") : simpleCommand(r, 1)
  const tail = xo[0] === "-I" || xo[0] === "-i" ? ` ${r.pick(["{}", "-- {}", "x{}"])}` : r.chance(0.4) ? " --" : ""
  return `printf '%s\\n' ${input.join(" ")} | xargs ${xo.join(" ")} ${inner}${tail}`.replace(/ +/g, " ")
}

export const simpleCommand = (r: Rng, depth = 0): string => {
  if (depth === 0 && r.chance(0.1)) return xargsPipeline(r)
  if (r.chance(0.12)) return gitCommand(r).join(" ")
  if (depth === 0 && r.chance(0.08)) {
    // xargs into a command
    const xo = r.pick([[], ["-0"], ["-n", "1"], ["-I", "{}"], ["-r"], ["-d", "'\\n'"]])
    const inner = simpleCommand(r, 1)
    const withBraces = xo[0] === "-I" ? `${inner} {}` : inner
    return ["xargs", ...xo, r.chance(0.3) ? withBraces.replace(/^(\S+)/, "$1 --") : withBraces].join(" ")
  }
  const p = r.pick(PROGRAMS.filter((q) => depth === 0 || q.name !== "cd"))
  const words = [spell(r, p.name).replace(/^\$'/, "'"), ...optionWords(r, p), ...(r.chance(0.1) ? ["--"] : []), ...p.operands(r)]
  let out = ""
  for (let i = 0; i < words.length; i++) out += (i === 0 ? "" : gap(r)) + words[i]
  return out
}

const REDIRECTS = [" 2>/dev/null", " >/dev/null", " 2>&1", " < README.md", " </dev/null", " 0< README.md", " 2> /dev/null"]
const PREFIXES = ["LC_ALL=C ", "LANG=C ", "TZ=UTC ", "NO_COLOR=1 "]
const JOINERS = [" | ", " && ", " || ", "; ", ";", "\n", " |& ", " &&\n", " |\n", " ; "]
const COMMENTS = [" # note", " #", "# x", " # a \\", " #;touch PWNED"]

// Program texts for awk and sed built around a call that runs or writes: the guard must see it wherever the lexer
// tricks put it (regex or division, strings, comments, brackets, continuations).
const AWK_FRAGMENTS = ["/", "/x/", '"', '"/"', "#", "\n", "[", "]", "/[/]/", "exit", "length", "return", "print", "printf", "x", "1", ";", "(", ")", "{", "}", " in ", "a[1]", "++", "--", "!", "~", ",", "\\", " ", " ", "$0", "NR", "if (0)", "/\\//", "\\\n", "&&", "||", "?", ":", "getline_", "-", "*", "%", "^", "=="]
const AWK_PAYLOADS = ['system("touch PWNED")', 'print 1 > "PWNED"', 'print 1 | "cat"', '"touch PWNED" | getline', "system(\"touch PWNED\")"]

const awkProgram = (r: Rng): string => {
  const frag = () => Array.from({ length: r.int(6) }, () => r.pick(AWK_FRAGMENTS)).join("")
  const body = `${frag()}; ${r.pick(AWK_PAYLOADS)} ${frag()}`
  return r.pick([`BEGIN { ${body} }`, `${frag()} { ${body} }`, `{ ${body} }`, `BEGIN { ${frag()} } END { ${body} }`, body])
}

const SED_FRAGMENTS = ["s/a/b/", "p", "1d", "/x/", "/[/]/", "\\", ";", "\n", "{", "}", "#", "y/ab/ba/", "s/a/b/g", "$", "!", "=", "l", "q", "s|a|b|", "s,a,b,"]
const SED_PAYLOADS = ["e touch PWNED", "w PWNED", "s/a/b/w PWNED", "s/x/touch PWNED/e", "r /etc/hostname", "W PWNED", "s/a/b/e", "1e touch PWNED"]

const sedScript = (r: Rng): string => {
  const frag = () => Array.from({ length: r.int(4) }, () => r.pick(SED_FRAGMENTS)).join("")
  return `${frag()}${r.pick([";", "\n", ""])}${r.pick(SED_PAYLOADS)}${r.pick([";", "\n", ""])}${frag()}`
}

const programTextCommand = (r: Rng): string =>
  r.chance(0.6)
    ? `${r.pick(["awk", "mawk", "gawk"])} ${spell(r, awkProgram(r))} ${r.pick(["README.md", "", "notes.txt"])}`
    : `sed ${r.pick(["", "-n ", "-E ", "-e "])}${spell(r, sedScript(r))} ${r.pick(["README.md", "notes.txt"])}`

/** One generated command line: 1 to 3 simple commands with the trimmings. */
export const grammarCommand = (r: Rng): string => {
  if (r.chance(0.15)) return programTextCommand(r)
  const n = 1 + r.int(3)
  let out = ""
  for (let i = 0; i < n; i++) {
    let c = simpleCommand(r)
    if (r.chance(0.1)) c = r.pick(PREFIXES) + c
    if (r.chance(0.12)) c += r.pick(REDIRECTS)
    out += (i === 0 ? "" : r.pick(JOINERS)) + c
  }
  if (r.chance(0.15)) out += r.pick(COMMENTS)
  if (r.chance(0.05)) out += ";"
  return out
}

// ---------------------------------------------------------------------------------------------------------------------
// Mutation

export const HOSTILE_ALPHABET: ReadonlyArray<string> = [
  " ", "\t", "\r", "\f", "\v", "\n", "\\", "\\\n", "#", ";", "&", "|", "'", '"', "*", "?", "[", "]", "{", "}", ",", "-", "--",
  "=", "~", "$", "`", "(", ")", "<", ">", "!", "x", "/", ".", "0", "\\ ", "\\\t", " #", "\r#", "\\#", "&&", "||", " -", "\u00a0"
]

/** A lone UTF-16 surrogate cannot reach bash (it becomes U+FFFD on the way), so a cut pair is closed up the same way. */
const wellFormed = (s: string): string => s.replace(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g, "\uFFFD")

/** Inserts, deletes or replaces 1-3 characters of `source` from the hostile alphabet. */
export const mutate = (r: Rng, source: string): string => {
  let s = source
  const n = 1 + r.int(3)
  for (let i = 0; i < n; i++) {
    const at = r.int(s.length + 1)
    const op = r.int(3)
    if (op === 0 || s.length === 0) s = s.slice(0, at) + r.pick(HOSTILE_ALPHABET) + s.slice(at)
    else if (op === 1) s = s.slice(0, at) + s.slice(at + 1)
    else s = s.slice(0, at) + r.pick(HOSTILE_ALPHABET) + s.slice(at + 1)
  }
  return wellFormed(s)
}
