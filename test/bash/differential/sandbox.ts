/**
 * A sandbox in which a command the guard allowed is run under real bash, with every program it runs logged.
 *
 * Layout of one sandbox root R (a fresh temp directory):
 *   R/bin/        PATH: one symlink per program name to the logging stub (R/lib/stub.pl)
 *   R/lib/        the stub and the BASH_ENV file that wraps bash's builtins (echo, printf, pwd, true, cd)
 *   R/log/        log.jsonl: one JSON line per program or builtin run (argv, exit status, depth, cwd)
 *   R/sentinel/   a directory outside the sandbox, writable by the sandbox user: any change there is a failure
 *   R/sandbox/    HOME, TMPDIR, the project (a git repo, the cwd), the memory directory with hostile file names,
 *                 and another repository committed as files whose configuration runs programs
 *
 * The stub logs its argv and either prints fixed output (names shaped like options, so that xargs and globs meet
 * them) or, for programs whose behaviour matters and that are installed, runs the real program and logs its status.
 * Forbidden names (touch, sh, curl, gpg, ...) are stubs that only log: any of them in the log is a failure.
 * Programs started by a real program carry the depth and the parent's name in the environment.
 *
 * Isolation: as root, `unshare -n -p -f --kill-child` (no network, everything killed with the shell) and `setpriv`
 * to the `nobody` user, so that a write anywhere but the sandbox root is refused by permissions. Otherwise the same
 * without setpriv (`unshare -r`) when user namespaces are available; `isolation` says which.
 */
import { spawnSync } from "node:child_process"
import { createHash } from "node:crypto"
import {
  chmodSync,
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  rmSync,
  symlinkSync,
  writeFileSync
} from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { ALLOWED_COMMANDS } from "../../../src/safety/bash/commands.ts"

/** Names the guard allows (a stub stands for each), read from the guard's own allowlist plus the ones it used to allow. */
export const ALLOWED_PROGRAMS: ReadonlyArray<string> = [...new Set([...ALLOWED_COMMANDS, "tree", "gh", "fd"])].filter((n) => n !== "cd")

/** Programs run for real when installed: their side effects (exec, writes, sockets) are what the test looks for. */
const REAL_WHEN_INSTALLED: ReadonlyArray<string> = [
  "xargs", "awk", "gawk", "mawk", "git", "sed", "sort", "uniq", "tail", "find", "file", "tree", "rg", "fd", "jq", "head",
  "wc", "cut", "tr", "nl", "basename", "dirname", "realpath", "stat", "ls", "cat", "grep", "du", "echo",
  "printf", "pwd", "true", "diff", "cmp", "sha256sum", "sha1sum", "sha224sum", "sha384sum", "sha512sum", "md5sum", "b2sum",
  "cksum"
]
// A name the guard newly allows is a stub until it is listed here.
// Never real: date (as root it could set the clock), docker (its socket is not a network namespace away), gh.

/** Programs no allowed command may start; each is a stub that only logs. */
export const FORBIDDEN_PROGRAMS: ReadonlyArray<string> = [
  "touch", "rm", "mv", "cp", "tee", "mkdir", "rmdir", "ln", "chmod", "chown", "truncate", "dd", "install", "shred",
  "unlink", "patch", "split", "sh", "bash", "dash", "zsh", "env", "exec", "nohup", "timeout", "curl", "wget", "nc",
  "ncat", "ssh", "scp", "python", "python3", "perl", "node", "gpg", "gpg2", "gpgsm", "ssh-keygen", "id", "whoami",
  "less", "more", "vi", "vim", "pager", "sensible-pager", "editor", "nano", "gzip", "gunzip", "zcat", "bzip2", "xz",
  "uncompress", "pwned", "PWNED", "sudo", "make", "git-upload-pack", "git-receive-pack", "open", "xdg-open", "kill"
]

/** The hostile names in the memory directory (and the project): option-shaped, glob-shaped, with spaces. */
export const HOSTILE_NAMES: ReadonlyArray<string> = [
  "-oPWNED",
  "--pre=sh",
  "*",
  "name with space.md",
  "--output=PWNED",
  "-e",
  "--no-verbose",
  "-x",
  "--exec=touch"
]

/** What a plain stub prints: names that become options if a later command takes them as words. */
const STUB_OUTPUT = ["-oPWNED", "--pre=sh", "name with space", "--output=../sentinel/PWNED", "/inet/tcp/0/127.0.0.1/9", "x"].join("\n") + "\n"

export interface LogEntry {
  readonly kind: "stub" | "wrap" | "forbidden" | "builtin" | "notfound"
  readonly name: string
  readonly argv: ReadonlyArray<string>
  readonly status: number
  /** 0: run by the shell itself; more: run by a real program (xargs, git, awk ...). */
  readonly depth: number
  /** The program that started this one (depth > 0). */
  readonly parent: string
  readonly cwd: string
  readonly pid: number
}

export interface FileState {
  readonly type: "file" | "dir" | "link" | "other"
  readonly mode: number
  readonly size: number
  readonly mtimeMs: number
  readonly hash: string
}

export type Snapshot = ReadonlyMap<string, FileState>

export interface RunResult {
  readonly command: string
  readonly log: ReadonlyArray<LogEntry>
  /** Paths under the sandbox root that appeared, disappeared or changed (benign git bookkeeping excluded). */
  readonly changes: ReadonlyArray<string>
  readonly timedOut: boolean
  readonly exitCode: number | null
  readonly stdout: string
  readonly stderr: string
}

export type Isolation = "unshare-root" | "unshare-user" | "none"

const detectIsolation = (): Isolation => {
  const isRoot = process.getuid?.() === 0
  if (isRoot) {
    const r = spawnSync("unshare", ["-n", "-p", "-f", "--kill-child", "setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", "true"], { stdio: "ignore" })
    if (r.status === 0) return "unshare-root"
  }
  const u = spawnSync("unshare", ["-r", "-n", "-p", "-f", "--kill-child", "true"], { stdio: "ignore" })
  if (u.status === 0) return "unshare-user"
  return "none"
}

const which = (name: string): string | undefined => {
  for (const dir of ["/usr/local/bin", "/usr/bin", "/bin"]) {
    const p = join(dir, name)
    if (existsSync(p)) return p
  }
  return undefined
}

const perlString = (s: string): string => `'${s.replace(/\\/g, "\\\\").replace(/'/g, "\\'")}'`

/** The one stub program, with the table of real programs baked in. */
const stubSource = (real: ReadonlyMap<string, string>): string => `#!/usr/bin/perl
# Logging stub for the bash differential test: logs argv as one JSON line, then runs the real program or prints
# fixed output. Bytes outside printable ASCII are written as \\u00XX (the reader maps them back to bytes).
my %REAL = (${[...real].map(([k, v]) => `${perlString(k)} => ${perlString(v)}`).join(", ")});
my %FORBIDDEN = map { $_ => 1 } (${FORBIDDEN_PROGRAMS.map(perlString).join(", ")});
my $name = $0; $name =~ s{.*/}{};
my $kind;
my @argv = @ARGV;
my $status = 0;
my $depth = $ENV{__DIFF_DEPTH} // 0;
my $parent = $ENV{__DIFF_PARENT} // "";
if ($name eq "difflog") {
  $kind = shift @argv; $status = shift @argv; $name = $argv[0];
} else {
  unshift @argv, $name;
  if (exists $REAL{$name}) {
    $kind = "wrap";
    local $ENV{__DIFF_DEPTH} = $depth + 1;
    local $ENV{__DIFF_PARENT} = $name;
    local $SIG{PIPE} = "DEFAULT";
    my $r = system { $REAL{$name} } @argv;
    $status = $r == -1 ? 127 : ($r & 127) ? 128 + ($r & 127) : $r >> 8;
  } elsif (exists $FORBIDDEN{$name}) {
    $kind = "forbidden";
  } else {
    $kind = "stub";
    $SIG{PIPE} = "IGNORE";
    print ${JSON.stringify(STUB_OUTPUT).replace(/\$/g, "\\$").replace(/@/g, "\\@")};
  }
}
sub js { my $s = shift; $s =~ s/([\\\\"])/\\\\$1/g; $s =~ s/([\\x00-\\x1f\\x7f-\\xff])/sprintf("\\\\u%04x", ord $1)/ge; return "\\"$s\\""; }
my $cwd = readlink("/proc/self/cwd") // "";
my $line = "{\\"kind\\":" . js($kind) . ",\\"name\\":" . js($name) . ",\\"status\\":" . ($status + 0) . ",\\"depth\\":" . ($depth + 0)
  . ",\\"parent\\":" . js($parent) . ",\\"cwd\\":" . js($cwd) . ",\\"pid\\":$$,\\"argv\\":[" . join(",", map { js($_) } @argv) . "]}\\n";
if (open(my $fh, ">>", $ENV{__DIFF_LOG})) { syswrite($fh, $line); close($fh); }
exit $status;
`

/** Functions that log bash's own builtins (read through BASH_ENV before the command). */
const bashEnvSource = (lib: string): string => {
  const log = `"${lib}/difflog"`
  const wrap = (n: string) => `${n}() { builtin ${n} "$@"; local __s=$?; ${log} builtin "$__s" ${n} "$@"; return "$__s"; }`
  return [
    // A builtin whose reader has gone would die of SIGPIPE before it is logged; ignored, it fails with EPIPE instead
    // (a non-zero status, as before) and is logged. The stub gives real programs the default disposition back.
    "trap '' PIPE",
    ...["echo", "printf", "pwd", "true", "cd"].map(wrap),
    `command_not_found_handle() { ${log} notfound 127 "$@"; return 127; }`,
    ""
  ].join("\n")
}

const gitIn = (cwd: string, input: string | undefined, ...args: ReadonlyArray<string>): string => {
  const r = spawnSync("git", args, {
    cwd,
    ...(input === undefined ? {} : { input }),
    env: { PATH: "/usr/bin:/bin", HOME: cwd, GIT_CONFIG_NOSYSTEM: "1", GIT_AUTHOR_NAME: "t", GIT_AUTHOR_EMAIL: "t@t", GIT_COMMITTER_NAME: "t", GIT_COMMITTER_EMAIL: "t@t" },
    encoding: "utf8"
  })
  if (r.status !== 0) throw new Error(`git ${args.join(" ")}: ${r.stderr}`)
  return r.stdout.trim()
}

const git = (cwd: string, ...args: ReadonlyArray<string>): string => gitIn(cwd, undefined, ...args)

/** Builds the sandbox contents once into `dir` (copied for every run). */
const buildTemplate = (dir: string): void => {
  const sandbox = join(dir, "sandbox")
  const project = join(sandbox, "project")
  const memory = join(sandbox, "memory")
  for (const d of [join(dir, "sentinel", "sub"), join(sandbox, "home"), join(sandbox, "tmp"), join(project, "src"), memory]) {
    mkdirSync(d, { recursive: true })
  }
  writeFileSync(join(dir, "sentinel", "keep.txt"), "sentinel\n")
  writeFileSync(join(dir, "sentinel", "sub", "deep.txt"), "sentinel\n")
  writeFileSync(join(project, "README.md"), "# app\nTODO one\n")
  writeFileSync(join(project, "notes.txt"), "b\na\nc\na\n")
  writeFileSync(join(project, "src", "a.ts"), "export const a = 1 // TODO\n")
  writeFileSync(join(project, "data.json"), '{"a":[1,2]}\n')
  writeFileSync(join(memory, "MEMORY.md"), "- [topic](topic.md) a topic\n")
  writeFileSync(join(memory, "topic.md"), "---\nname: topic\n---\nbody TODO\n")
  for (const n of HOSTILE_NAMES) {
    writeFileSync(join(memory, n), "hostile\n")
    writeFileSync(join(project, n), "hostile\n")
  }
  git(project, "init", "-q", "-b", "main")
  git(project, "add", "-A")
  git(project, "commit", "-q", "-m", "one")
  writeFileSync(join(project, "README.md"), "# app\nTODO two\n")
  git(project, "commit", "-q", "-am", "two")
  git(project, "tag", "v1")
  // A commit carrying a (fake) signature: showing signatures makes git start gpg to verify it.
  const treeId = git(project, "rev-parse", "HEAD^{tree}")
  const parentId = git(project, "rev-parse", "HEAD")
  const signed = gitIn(
    project,
    `tree ${treeId}\nparent ${parentId}\nauthor t <t@t> 1700000000 +0000\ncommitter t <t@t> 1700000000 +0000\n` +
      "gpgsig -----BEGIN PGP SIGNATURE-----\n \n iQEzBAABCAAdFiEEAAAA\n -----END PGP SIGNATURE-----\n\nsigned\n",
    "hash-object", "-t", "commit", "-w", "--stdin"
  )
  git(project, "update-ref", "refs/heads/main", signed)
  // Another repository committed as plain files in the project: its configuration runs programs.
  const other = join(project, "vendor", "other")
  mkdirSync(other, { recursive: true })
  git(other, "init", "-q", "-b", "main")
  writeFileSync(join(other, "f.txt"), "one\n")
  git(other, "add", "-A")
  git(other, "commit", "-q", "-m", "one")
  writeFileSync(join(other, "f.txt"), "two\n")
  const payload = "touch ../../../../sentinel/PWNED-other-repo"
  writeFileSync(
    join(other, ".git", "config"),
    readFileSync(join(other, ".git", "config"), "utf8") +
      `[diff]\n\texternal = ${payload}\n[core]\n\tpager = ${payload}\n\tfsmonitor = ${payload}\n\tsshCommand = ${payload}\n[gpg]\n\tprogram = ${payload}\n`
  )
}

export class Sandbox {
  readonly root: string
  readonly isolation: Isolation
  readonly bin: string
  readonly lib: string
  readonly logFile: string
  readonly cwd: string
  readonly memory: string
  private readonly template: string
  private baseline: Snapshot
  private readonly realPrograms: ReadonlyMap<string, string>
  executions = 0

  constructor() {
    this.isolation = detectIsolation()
    this.root = mkdtempSync(join(tmpdir(), "pm-diff-"))
    chmodSync(this.root, 0o755)
    this.bin = join(this.root, "bin")
    this.lib = join(this.root, "lib")
    this.logFile = join(this.root, "log", "log.jsonl")
    this.template = join(this.root, "template")
    this.cwd = join(this.root, "sandbox", "project")
    this.memory = join(this.root, "sandbox", "memory")
    mkdirSync(this.bin)
    mkdirSync(this.lib)
    mkdirSync(join(this.root, "log"))
    const real = new Map<string, string>()
    for (const n of REAL_WHEN_INSTALLED) {
      const p = which(n)
      if (p !== undefined) real.set(n, p)
    }
    this.realPrograms = real
    writeFileSync(join(this.lib, "stub.pl"), stubSource(real), { mode: 0o755 })
    symlinkSync(join(this.lib, "stub.pl"), join(this.lib, "difflog"))
    writeFileSync(join(this.lib, "bashenv"), bashEnvSource(this.lib))
    for (const n of new Set([...ALLOWED_PROGRAMS, ...FORBIDDEN_PROGRAMS])) symlinkSync(join(this.lib, "stub.pl"), join(this.bin, n))
    mkdirSync(this.template)
    buildTemplate(this.template)
    if (this.isolation === "unshare-root") {
      spawnSync("chown", ["-R", "65534:65534", this.template, join(this.root, "log")])
    }
    this.reset()
    this.baseline = this.snapshot()
  }

  /** Which programs run for real (the rest are stubs). */
  get real(): ReadonlyArray<string> {
    return [...this.realPrograms.keys()]
  }

  /** Lays the sandbox and sentinel anew from the template. */
  reset(): void {
    for (const d of ["sandbox", "sentinel"]) rmSync(join(this.root, d), { recursive: true, force: true })
    const r = spawnSync("cp", ["-a", join(this.template, "sandbox"), join(this.template, "sentinel"), this.root])
    if (r.status !== 0) throw new Error(`cannot lay the sandbox: ${r.stderr}`)
  }

  /** Every path under the root except the harness's own (bin, lib, log, template). */
  snapshot(): Snapshot {
    const out = new Map<string, FileState>()
    const walk = (dir: string, rel: string): void => {
      for (const name of readdirSync(dir)) {
        const abs = join(dir, name)
        const r = rel === "" ? name : `${rel}/${name}`
        if (rel === "" && (name === "bin" || name === "lib" || name === "log" || name === "template")) continue
        const st = lstatSync(abs)
        if (st.isSymbolicLink()) out.set(r, { type: "link", mode: st.mode, size: 0, mtimeMs: 0, hash: readlinkSync(abs) })
        else if (st.isDirectory()) {
          out.set(r, { type: "dir", mode: st.mode, size: 0, mtimeMs: 0, hash: "" })
          walk(abs, r)
        } else if (st.isFile()) {
          out.set(r, { type: "file", mode: st.mode, size: st.size, mtimeMs: st.mtimeMs, hash: createHash("sha1").update(readFileSync(abs)).digest("hex") })
        } else out.set(r, { type: "other", mode: st.mode, size: 0, mtimeMs: 0, hash: "" })
      }
    }
    walk(this.root, "")
    return out
  }

  /** Runs `command` under bash in the sandbox; lays the sandbox anew afterwards when anything changed. */
  run(command: string, timeoutSeconds = 8): RunResult {
    // The stubs create the log (its directory is the sandbox user's), so no chown is needed per run.
    rmSync(this.logFile, { force: true })
    const env: Record<string, string> = {
      PATH: this.bin,
      HOME: join(this.root, "sandbox", "home"),
      TMPDIR: join(this.root, "sandbox", "tmp"),
      LC_ALL: "C",
      BASH_ENV: join(this.lib, "bashenv"),
      GIT_OPTIONAL_LOCKS: "0",
      GIT_CONFIG_NOSYSTEM: "1",
      __DIFF_LOG: this.logFile
    }
    const isolate =
      this.isolation === "unshare-root"
        ? ["/usr/bin/unshare", "-n", "-p", "-f", "--kill-child", "/usr/bin/setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"]
        : this.isolation === "unshare-user"
          ? ["/usr/bin/unshare", "-r", "-n", "-p", "-f", "--kill-child"]
          : []
    const bash = ["/bin/bash", "--norc", "--noprofile", "-c", command]
    const [program, ...args] = isolate.length > 0 ? [...isolate, ...bash] : bash
    this.executions++
    // Killing unshare kills the namespace's first process (--kill-child), and with it everything the command started.
    const r = spawnSync(program!, args, {
      cwd: this.cwd,
      env,
      encoding: "latin1",
      stdio: ["ignore", "pipe", "pipe"],
      maxBuffer: 1 << 26,
      timeout: timeoutSeconds * 1000,
      killSignal: "SIGKILL"
    })
    const log = readLog(this.logFile)
    const after = this.snapshot()
    const changes = diffSnapshots(this.baseline, after)
    if (changes.length > 0 || !sameKeys(this.baseline, after)) this.reset()
    return {
      command,
      log,
      changes,
      timedOut: r.signal === "SIGKILL",
      exitCode: r.status,
      stdout: Buffer.from(r.stdout ?? "", "latin1").toString("utf8"),
      stderr: Buffer.from(r.stderr ?? "", "latin1").toString("utf8")
    }
  }

  dispose(): void {
    rmSync(this.root, { recursive: true, force: true })
  }
}

const sameKeys = (a: Snapshot, b: Snapshot): boolean => a.size === b.size && [...a.keys()].every((k) => b.has(k))

/** Files the sandboxed git may rewrite while reading (index refreshes) are not writes by the command. */
const BENIGN = /^sandbox\/project\/(vendor\/other\/)?\.git\/index$/

export const diffSnapshots = (before: Snapshot, after: Snapshot): ReadonlyArray<string> => {
  const out: Array<string> = []
  for (const [k, v] of after) {
    const b = before.get(k)
    if (b === undefined) out.push(`new ${v.type} ${k}`)
    else if (BENIGN.test(k)) continue
    else if (b.type !== v.type || b.hash !== v.hash || b.mode !== v.mode || b.size !== v.size || (v.type === "file" && b.mtimeMs !== v.mtimeMs)) {
      out.push(`changed ${k}`)
    }
  }
  for (const k of before.keys()) if (!after.has(k)) out.push(`removed ${k}`)
  return out
}

/** Decodes the stub's JSON (bytes written as \u00XX) back to UTF-8 strings. */
const bytes = (s: string): string => Buffer.from(s, "latin1").toString("utf8")

export const readLog = (file: string): ReadonlyArray<LogEntry> => {
  let text = ""
  try {
    text = readFileSync(file, "latin1")
  } catch {
    return []
  }
  const out: Array<LogEntry> = []
  for (const line of text.split("\n")) {
    if (line.trim().length === 0) continue
    try {
      const raw = JSON.parse(line) as LogEntry
      out.push({ ...raw, name: bytes(raw.name), cwd: bytes(raw.cwd), parent: bytes(raw.parent), argv: raw.argv.map(bytes) })
    } catch {
      out.push({ kind: "notfound", name: "<unreadable log line>", argv: [line], status: -1, depth: 0, parent: "", cwd: "", pid: 0 })
    }
  }
  return out
}
