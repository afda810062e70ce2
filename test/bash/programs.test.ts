/**
 * Classes 3 to 5: programs whose grammar the guard used to copy wrongly (tree, awk, git's negations and
 * operand-count-dependent subcommands), another repository's configuration, and programs that reach out (gawk
 * sockets, gh, gpg through git, fd -l, tail follow). Where git is the program, the real git shows the effect.
 */
import { describe, expect, it, layer } from "@effect/vitest"
import { Effect } from "effect"
import { execFileSync } from "node:child_process"
import { BashGuard } from "../../layers/safety/BashGuard.ts"
import { runInSandbox } from "./sandbox.ts"

const CTX = { memoryDir: "/home/u/.pi/agent/project-memory/projects/-home-u-app/memory", cwd: "/home/u/app" }

const gitSetup = [
  "git init -q repo",
  "cd repo",
  "git -c user.name=t -c user.email=t@t commit -q --allow-empty -m init"
].join(" && ")

const branches = (command: string): string => {
  const run = runInSandbox(`${gitSetup} && ${command} >/dev/null 2>&1; git branch --format='%(refname:short)'`)
  try {
    return run.stdout.trim().split("\n").sort().join(" ")
  } finally {
    run.cleanup()
  }
}

describe("real git 2.39: which branch commands create a branch", () => {
  it("`git branch -v X` and `git branch -v --no-verbose X` create X; `git branch -l X` and `--list X` do not", () => {
    const main = branches("true")
    expect(branches("git branch -v X")).toBe(`X ${main}`.split(" ").sort().join(" "))
    expect(branches("git branch -v --no-verbose X")).toBe(`X ${main}`.split(" ").sort().join(" "))
    expect(branches("git branch -l X")).toBe(main)
    expect(branches("git branch --list X")).toBe(main)
  })

  it("another repository's diff.external runs a program under `git -C`, `--git-dir` and `cd`", () => {
    const other = [
      "git init -q other",
      "git -C other config diff.external 'touch ../../PWNED; true'",
      "echo a > other/f",
      "git -C other add f",
      "git -C other -c user.name=t -c user.email=t@t commit -q -m f",
      "echo b > other/f"
    ].join(" && ")
    for (const attack of ["git -C other diff", "git --git-dir=other/.git --work-tree=other diff", "cd other && git diff"]) {
      const run = runInSandbox(`${other} && ${attack}`)
      try {
        expect(run.exists("PWNED"), `${attack}: ${run.stderr}`).toBe(true)
      } finally {
        run.cleanup()
      }
    }
  })
})

const rejectsAll = (commands: ReadonlyArray<string>, reason?: string) =>
  Effect.gen(function* () {
    const guard = yield* BashGuard
    for (const c of commands) {
      const v = guard.classifySync(c, CTX)
      expect(v.verdict, c).toBe("rejected")
      if (reason !== undefined && v.verdict === "rejected") expect(v.reason, c).toContain(reason)
    }
  })

const allowsAll = (commands: ReadonlyArray<string>) =>
  Effect.gen(function* () {
    const guard = yield* BashGuard
    for (const c of commands) expect(guard.classifySync(c, CTX), c).toEqual({ verdict: "read-only" })
  })

layer(BashGuard.layer)("grammar copied wrongly (class 3)", (it) => {
  it.effect("tree: only its fixed form (separate flags, -L N, -I/-P PATTERN, directories)", () =>
    rejectsAll(["tree -Lo 1 ../x", "tree -ao out", "tree -o out", "tree -R -H . -L 1", "tree --fromfile x", "tree -L x", "tree *", "xargs tree"], "tree"))

  it.effect("tree: the fixed form is allowed", () => allowsAll(["tree", "tree -L 2", "tree -a -I node_modules", "tree -d src", "tree -L 3 --dirsfirst -F src docs"]))

  it.effect("awk: a call hidden from a lexer is found on the raw text", () =>
    rejectsAll([
      "awk '{ exit /x/ ; system(\"id\") }' f",
      "awk '/[/]/ { system(\"id\") }' f",
      "awk '{ n = length /#/ ; system(\"id\") }' f",
      "awk '{ print > \"/tmp/x\" }' f",
      "awk 'BEGIN { while ((\"date\" | getline l) > 0) print l }'",
      "awk '{ print ENVIRON[\"HOME\"] }'",
      "gawk 'BEGIN { s = \"/inet/tcp/0/example.com/80\"; print \"x\" |& s }'",
      "gawk '{print}' /inet/tcp/0/example.com/80",
      "gawk '{print}' /ine[t]/tcp/0/example.com/80",
      "mawk '{print}' x //inet/tcp/0/h/80"
    ])
  )

  it.effect("awk: ordinary programs stay allowed", () =>
    allowsAll(["awk '/a|b/' f", "awk '{ print ($1 > 2) }' f", "awk '{print $1}' f", "awk -F: '$3 > 100 { print $1 }' /etc/passwd", "awk 'NR > 1 { n++ } END { print n }' f", "awk '/a/ || /b/' f"])
  )

  it.effect("git branch/tag take a name only in proven list mode, with no --no- option that could undo it", () =>
    rejectsAll([
      "git branch -v X",
      "git branch -v --no-verbose X",
      "git branch --merged main X",
      "git branch --list --no-list X",
      "git branch -l --no-l X",
      "git branch --format -v X",
      "git tag -n X",
      "git tag --list --no-list v1",
      "git tag --contains HEAD v9"
    ])
  )

  it.effect("git branch/tag listing forms stay allowed", () =>
    allowsAll(["git branch", "git branch -a", "git branch -vv", "git branch -r --merged main", "git branch --list 'feat/*'", "git branch -l X", "git tag -l 'v1.*'", "git tag --list", "git branch --contains HEAD"])
  )

  it.effect("xargs never feeds git subcommands whose action depends on how many words they get", () =>
    rejectsAll([
      "xargs git config --get --",
      "xargs git config --",
      "xargs git symbolic-ref --",
      "xargs git branch --list --",
      "xargs git tag -l --",
      "xargs git remote --",
      "xargs git stash list --",
      "xargs git reflog --",
      "xargs git notes --",
      "xargs git worktree list --"
    ])
  )
})

layer(BashGuard.layer)("another repository (class 4)", (it) => {
  it.effect("git with -C, --git-dir, --work-tree, --bare, -c, --exec-path, or after/with cd is rejected", () =>
    rejectsAll([
      "git -C other diff",
      "git -Cother diff",
      "git -PC other log",
      "git --git-dir=other/.git diff",
      "git --git-dir other/.git diff",
      "git --git-d=x log",
      "git --work-tree=other diff",
      "git --bare log",
      "git -c core.pager=x log",
      "git --exec-path=/tmp log",
      "git --attr-source=HEAD diff",
      "GIT_DIR=other/.git git log",
      "cd other && git diff",
      "cd other; git status",
      "cd other || git log",
      "git log && cd other",
      "cd other | git log",
      "cd other && ls | xargs git log --"
    ])
  )

  it.effect("git from the project directory stays allowed", () => allowsAll(["git status", "git log --oneline -n 5", "git --no-pager diff", "ls && git status"]))
})

layer(BashGuard.layer)("reaching out (class 5)", (it) => {
  it.effect("xargs may not run awk at all", () => rejectsAll(["xargs awk '{print}'", "xargs gawk -- '{print}'", "xargs -I{} mawk '{print}' {}"]))

  it.effect("gh is not allowed", () => rejectsAll(["gh pr list", "gh pr view 1 -R evil/repo", "gh search code secret", "gh status"], "server"))

  it.effect("git never runs gpg: --show-signature in any spelling, %G placeholders, %(signature)", () =>
    rejectsAll([
      "git log --show-signature",
      "git log --show-sig",
      "git show --show-signature HEAD",
      "git log --format=%G?",
      "git log --pretty=format:%GS",
      "git log --pretty=tformat:%GG",
      "git log '--format=%h %GK'",
      "git show -s --format=%GF",
      "git for-each-ref --format='%(signature)'",
      "git stash list --show-signature",
      "xargs git log --format=%G? --"
    ])
  )

  it.effect("fd never runs programs: -l, -x, -X, --exec, --exec-batch, --list-details", () =>
    rejectsAll(["fd -l md", "fd -Hl md", "fd --list-details", "fd --list", "fd -x ls", "fd -X ls", "fd --exec ls", "fd --exec-batch ls"])
  )

  it.effect("tail never follows: -f, -F, --follow, --retry, obsolete +Nf, -Nf, and a wildcard that could expand to them", () =>
    rejectsAll(["echo -f x | xargs tail", "xargs tail -n 1", "tail -f x", "tail -F x", "tail -qf x", "tail -vF x", "tail --follow x", "tail --follow=name x", "tail --fo x", "tail --retry x", "tail +1f x", "tail +f x", "tail +10 x", "tail -1f x", "tail -c 5 -f x", "tail *", "tail -n 3 *"])
  )

  it.effect("tail's reading forms stay allowed", () => allowsAll(["tail x", "tail -n 5 x", "tail -n +5 x", "tail -5 x", "tail -c 10 x", "tail -n 5 *.log", "tail -- *"]))
})
