/**
 * The background tasks' read scope: the pure rule (src/safety/readScope.ts), its resolution on real folders
 * (layers/safety/readScopeLoad.ts), the sandbox policy made from it and the search for protected files in it, with
 * its limit at, below and above its edge.
 */
import { mkdirSync, symlinkSync, utimesSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { describe, expect, it } from "vitest"
import { MAX_TREE_ENTRIES, protectedReadReason, protectedReason } from "../../layers/safety/ProtectedReads.ts"
import { loadReadScope, programPath, worktreeRootOf } from "../../layers/safety/readScopeLoad.ts"
import { makeProtectedSearchCache, protectedFilesIn, RACY_MS } from "../../layers/safety/protectedSearch.ts"
import type { ProtectionOptions } from "../../src/safety/protectedPaths.ts"
import { instructionFileCandidates, outsideScope, type ReadScope, systemReadPaths } from "../../src/safety/readScope.ts"
import { sandboxFilesystem } from "../../src/safety/sandboxFilesystem.ts"
import { git, tempDir } from "../support/tmp.ts"

const scopeOf = (over: Partial<ReadScope> = {}): ReadScope => ({
  trees: ["/home/u/work/proj", "/home/u/.pi/agent/project-memory/projects/p/memory"],
  files: ["/home/u/AGENTS.md"],
  system: ["/usr", "/etc"],
  home: "/home/u",
  agentDir: "/home/u/.pi/agent",
  homeDotEntries: [],
  ...over
})

describe("the read scope, as a rule", () => {
  it("lets in the project, the memory folder, the instruction files and the system folders, and nothing else", () => {
    const scope = scopeOf()
    for (const inside of ["/home/u/work/proj", "/home/u/work/proj/src/a.ts", "/home/u/work/proj/.github/ci.yml",
      "/home/u/.pi/agent/project-memory/projects/p/memory/MEMORY.md", "/home/u/AGENTS.md", "/usr/bin/git", "/etc/gitconfig"]) {
      expect(outsideScope(inside, scope), inside).toBeUndefined()
    }
    for (const outside of ["/home/u/.config/rclone/rclone.conf", "/home/u/.vault-token", "/home/u/work/other/x",
      "/home/u/work/proj-evil/x", "/home/u/work/proj/../other/x", "/home/u/CLAUDE.md", "/tmp/pi-bash-1.log",
      "/home/u/.pi/agent/sessions/--other--/s.jsonl", "/home/u/.pi/agent/project-memory/projects/q/memory/a.md",
      "/proc/self/environ", "/dev/zero", "/", "relative/path"]) {
      expect(outsideScope(outside, scope), outside).toBeDefined()
    }
  })

  it("keeps the machine's own secrets out of the system folders", () => {
    const scope = scopeOf()
    for (const secret of ["/etc/shadow", "/etc/gshadow", "/etc/ssh/ssh_host_ed25519_key", "/etc/ssl/private/x.key", "/etc/sudoers.d/u"]) {
      expect(outsideScope(secret, scope), secret).toContain("secrets of the machine")
    }
    expect(outsideScope("/etc/ssl/certs/ca-certificates.crt", scope)).toBeUndefined()
  })

  it("a project that holds the home keeps the home's dot folders and other parts of Pi's agent folder out", () => {
    const scope = scopeOf({ trees: ["/home/u", "/home/u/.pi/agent/project-memory/projects/p/memory", "/home/u/.pi/agent/sessions/--home-u--"] })
    expect(outsideScope("/home/u/notes.txt", scope)).toBeUndefined()
    expect(outsideScope("/home/u/.kube/config", scope)).toContain("~/.kube")
    expect(outsideScope(`/home/u/.${Math.random().toString(36).slice(2)}/token`, scope)).toBeDefined()
    expect(outsideScope("/home/u/.pi/agent/sessions/--other--/s.jsonl", scope)).toBeDefined()
    expect(outsideScope("/home/u/.pi/agent/sessions/--home-u--/s.jsonl", scope)).toBeUndefined()
    expect(outsideScope("/home/u/.pi/agent/project-memory/projects/p/memory/a.md", scope)).toBeUndefined()
    // An agent folder inside the project (PI_CODING_AGENT_DIR set there) is still Pi's, not the project's.
    const inside = scopeOf({ trees: ["/srv/proj", "/srv/proj/agent/project-memory/projects/p/memory"], agentDir: "/srv/proj/agent" })
    expect(outsideScope("/srv/proj/agent/sessions/--other--/s.jsonl", inside)).toContain("Pi's agent folder")
    expect(outsideScope("/srv/proj/agent/auth.json", inside)).toContain("Pi's agent folder")
    expect(outsideScope("/srv/proj/agent/project-memory/projects/p/memory/a.md", inside)).toBeUndefined()
    expect(outsideScope("/srv/proj/src/a.ts", inside)).toBeUndefined()
    // A dot folder inside a project below the home is the project's own.
    expect(outsideScope("/home/u/work/.cache/x", scopeOf({ trees: ["/home/u/work"] }))).toBeUndefined()
  })

  it("the system folders: the devices a shell opens only on macOS (on Linux the sandbox makes its own /dev)", () => {
    expect(systemReadPaths("linux")).toContain("/usr")
    expect(systemReadPaths("linux").some((p) => p.startsWith("/dev"))).toBe(false)
    expect(systemReadPaths("darwin")).toEqual(expect.arrayContaining(["/usr", "/System", "/dev/null"]))
    expect(systemReadPaths("darwin")).not.toContain("/dev/zero")
  })

  it("names every place Pi looks for instruction files: the agent folder and each folder from the cwd up", () => {
    const candidates = instructionFileCandidates("/a/b", "/home/u/.pi/agent")
    for (const dir of ["/home/u/.pi/agent", "/a/b", "/a", "/"]) expect(candidates).toContain(join(dir, "AGENTS.md"))
    expect(candidates).toContain("/a/b/CLAUDE.md")
    expect(candidates).not.toContain("/a/b/c/AGENTS.md")
  })
})

describe("the read scope, resolved on real folders", () => {
  const layout = () => {
    const base = tempDir("pm-scope-")
    const home = join(base, "home")
    const agentDir = join(home, ".pi", "agent")
    const project = join(home, "work", "project")
    const memoryDir = join(agentDir, "project-memory", "projects", "p", "memory")
    for (const d of [join(project, "src"), memoryDir]) mkdirSync(d, { recursive: true })
    git(project, "init", "-q")
    return { base, home, agentDir, project, memoryDir }
  }

  it("takes the git worktree of the cwd, both spellings of a linked folder, and the instruction files that exist", async () => {
    const { base, home, agentDir, project, memoryDir } = layout()
    writeFileSync(join(home, "work", "AGENTS.md"), "rules\n")
    writeFileSync(join(agentDir, "AGENTS.md"), "global rules\n")
    symlinkSync(project, join(base, "link"))
    expect(worktreeRootOf(join(project, "src"))).toBe(project)
    const scope = await loadReadScope({ cwd: join(base, "link", "src"), memoryDir, home, agentDir })
    expect(scope.trees).toEqual(expect.arrayContaining([join(base, "link"), project, memoryDir]))
    expect(scope.homeDotEntries).toEqual([])
    // Instruction files from the cwd up as Pi walks it (the path as given, not its target), and the agent folder's.
    const direct = await loadReadScope({ cwd: join(project, "src"), memoryDir, home, agentDir })
    expect(direct.files).toEqual(expect.arrayContaining([join(home, "work", "AGENTS.md"), join(agentDir, "AGENTS.md")]))
    expect(direct.files).not.toContain(join(project, "AGENTS.md"))
  })

  it("the dream reads Pi's own session folder of the project whole, and of a folder of the user's only its sessions", async () => {
    const { home, agentDir, project, memoryDir } = layout()
    const own = join(agentDir, "sessions", "--project--")
    mkdirSync(own, { recursive: true })
    const mine = await loadReadScope({ cwd: project, memoryDir, sessionDir: own, sessionIds: ["s1"], home, agentDir })
    expect(mine.trees).toContain(own)
    // The folder of all sessions is never a project's own.
    const all = await loadReadScope({ cwd: project, memoryDir, sessionDir: join(agentDir, "sessions"), sessionIds: ["s1"], home, agentDir })
    expect(all.trees).not.toContain(join(agentDir, "sessions"))
    const shared = join(home, "sessions")
    mkdirSync(shared)
    for (const name of ["2026_s1.jsonl", "2026_s2.jsonl", "notes.txt"]) writeFileSync(join(shared, name), "{}\n")
    const user = await loadReadScope({ cwd: project, memoryDir, sessionDir: shared, sessionIds: ["s1"], home, agentDir })
    expect(user.trees).not.toContain(shared)
    expect(user.files).toContain(join(shared, "2026_s1.jsonl"))
    expect(user.files).not.toContain(join(shared, "2026_s2.jsonl"))
  })

  it("a project that is the home lists the home's dot entries for the sandbox to hide", async () => {
    const { home, agentDir, memoryDir } = layout()
    mkdirSync(join(home, ".rclone"))
    const scope = await loadReadScope({ cwd: home, memoryDir, home, agentDir })
    expect(scope.trees).toContain(home)
    expect(scope.homeDotEntries).toEqual(expect.arrayContaining([join(home, ".rclone"), join(home, ".pi")]))
  })

  it("the in-process check refuses a link from the project to a store outside, and the link's target itself", async () => {
    const { home, agentDir, project, memoryDir } = layout()
    mkdirSync(join(home, "dotfiles", "kube"), { recursive: true })
    writeFileSync(join(home, "dotfiles", "kube", "config"), "token: x\n")
    symlinkSync(join(home, "dotfiles", "kube"), join(project, "kube"))
    const scope = await loadReadScope({ cwd: project, memoryDir, home, agentDir })
    const protection: ProtectionOptions = { home, agentDir, scope }
    expect(await protectedReason(join(project, "kube", "config"), protection)).toContain("outside the task's project")
    expect(await protectedReason(join(home, "dotfiles", "kube", "config"), protection)).toContain("outside the task's project")
    expect(await protectedReason(join(project, "src"), protection)).toBeUndefined()
  })
})

describe("the programs a sandboxed command runs", () => {
  it("are found as Pi finds its tools: the agent folder's bin/ first, then PATH, by their real path", async () => {
    const base = tempDir("pm-programs-")
    const agentDir = join(base, "agent")
    const onPath = join(base, "path")
    mkdirSync(join(agentDir, "bin"), { recursive: true })
    mkdirSync(onPath)
    writeFileSync(join(onPath, "rg"), "", { mode: 0o755 })
    expect(await programPath("rg", agentDir, onPath)).toBe(join(onPath, "rg"))
    writeFileSync(join(base, "rg-real"), "", { mode: 0o755 })
    symlinkSync(join(base, "rg-real"), join(agentDir, "bin", "rg"))
    expect(await programPath("rg", agentDir, onPath)).toBe(join(base, "rg-real"))
    expect(await programPath("rg", undefined, onPath)).toBe(join(onPath, "rg"))
    expect(await programPath("nothing-by-this-name", agentDir, onPath)).toBeUndefined()
  })
})

describe("the sandbox policy and the search for protected files", () => {
  it("with a scope, hides / and mounts the scope back; Pi's agent folder and the machine's secrets stay hidden", () => {
    const scope = scopeOf()
    const fs = sandboxFilesystem({ home: "/home/u", agentDir: "/home/u/.pi/agent", scope }, ["/home/u/work/proj/.env"], {
      unchecked: ["/home/u/work/proj/vendor/z"],
      programs: ["/opt/rg"]
    })
    expect(fs.denyRead).toEqual(expect.arrayContaining(["/", "/home/u/.pi/agent", "/etc/shadow", "/home/u/work/proj/.env", "/home/u/work/proj/vendor/z"]))
    expect(fs.allowRead).toEqual(expect.arrayContaining(["/usr", "/etc", ...scope.trees, "/home/u/AGENTS.md", "/opt/rg"]))
    expect(fs.allowWrite).toEqual([])
    // Without a scope (no task), the deny-list alone, as before.
    expect(sandboxFilesystem({ home: "/home/u", agentDir: "/a" }, []).denyRead).not.toContain("/")
  })

  it("searches at most its limit of entries: at the limit everything is checked, one more and the rest is hidden whole", async () => {
    const root = tempDir("pm-walk-")
    mkdirSync(join(root, "a", "deep"), { recursive: true })
    mkdirSync(join(root, "node_modules", "pkg"), { recursive: true })
    mkdirSync(join(root, ".git"))
    writeFileSync(join(root, "a", "deep", ".env"), "X=1\n")
    writeFileSync(join(root, "node_modules", "pkg", "server.pem"), "x\n")
    writeFileSync(join(root, ".git", "id_rsa"), "x\n")
    // Entries: root (a, node_modules, .git) 3, a (deep) 1, node_modules (pkg) 1, a/deep (.env) 1, pkg (server.pem) 1 = 7; .git is not entered.
    const protection: ProtectionOptions = { home: "/nonexistent-home", agentDir: "/nonexistent-agent" }
    const at = await protectedFilesIn([root], protection, 7)
    expect(at.unchecked).toEqual([])
    expect([...at.found].sort()).toEqual([join(root, "a", "deep", ".env"), join(root, "node_modules", "pkg", "server.pem")])
    const below = await protectedFilesIn([root], protection, 6)
    expect(below.unchecked.length).toBeGreaterThan(0)
    expect(below.found).not.toContain(join(root, "node_modules", "pkg", "server.pem"))
    // What was not searched is hidden: the folder holding the unfound file is among the unchecked.
    expect(below.unchecked).toContain(join(root, "node_modules", "pkg"))
    const above = await protectedFilesIn([root, join(root, "a")], protection, 8)
    expect(above.unchecked).toEqual([])
    expect(above.found).toHaveLength(2)
  })

  it("a task's searches read a folder again only when it changed, and never trust one changed within RACY_MS", async () => {
    const protection: ProtectionOptions = { home: "/nonexistent-home", agentDir: "/nonexistent-agent" }
    const root = tempDir("pm-walk-cache-")
    mkdirSync(join(root, "old"))
    mkdirSync(join(root, "fresh"))
    const past = (ms: number) => new Date(Date.now() - ms)
    utimesSync(join(root, "old"), past(60_000), past(60_000))
    const cache = makeProtectedSearchCache()
    expect((await protectedFilesIn([root], protection, 100, cache)).found).toEqual([])
    // A new .env in each folder.
    writeFileSync(join(root, "old", ".env"), "X=1\n")
    writeFileSync(join(root, "fresh", ".env"), "X=1\n")
    expect([...(await protectedFilesIn([root], protection, 100, cache)).found].sort()).toEqual([join(root, "fresh", ".env"), join(root, "old", ".env")])
    // The proof that the cache is used: a folder whose time is put back to the value it had when it was read is not
    // read again (a forged time; a real change moves it).
    const old = past(60_000)
    utimesSync(join(root, "old"), old, old)
    await protectedFilesIn([root], protection, 100, cache)
    writeFileSync(join(root, "old", "id_rsa"), "k\n")
    utimesSync(join(root, "old"), old, old)
    expect((await protectedFilesIn([root], protection, 100, cache)).found).not.toContain(join(root, "old", "id_rsa"))
    // ...whereas one changed within RACY_MS before it was read is always read again.
    mkdirSync(join(root, "racy"))
    const recent = past(RACY_MS / 20)
    utimesSync(join(root, "racy"), recent, recent)
    await protectedFilesIn([root], protection, 100, cache)
    writeFileSync(join(root, "racy", ".envrc"), "export X=1\n")
    utimesSync(join(root, "racy"), recent, recent)
    const again = await protectedFilesIn([root], protection, 100, cache)
    expect(again.found).toContain(join(root, "racy", ".envrc"))
    // Without a cache everything is read: the key hidden behind the forged time is found.
    expect((await protectedFilesIn([root], protection, 100)).found).toContain(join(root, "old", "id_rsa"))
  })

  it("the in-process check of a searched tree: MAX_TREE_ENTRIES entries are checked; one more is refused without the sandbox, left to it with", async () => {
    const root = tempDir("pm-tree-")
    const protection: ProtectionOptions = { home: "/nonexistent-home", agentDir: "/nonexistent-agent" }
    const plan = { targets: [{ path: root, glob: false, recursive: true, lexical: false, hidden: true }] }
    for (let i = 0; i < MAX_TREE_ENTRIES - 1; i++) writeFileSync(join(root, `f${i}`), "")
    expect(await protectedReadReason(plan, protection, false)).toBeUndefined()
    writeFileSync(join(root, "edge"), "")
    expect(await protectedReadReason(plan, protection, false)).toBeUndefined()
    writeFileSync(join(root, "over"), "")
    expect(await protectedReadReason(plan, protection, false)).toContain(`more than ${MAX_TREE_ENTRIES} entries`)
    expect(await protectedReadReason(plan, protection, true)).toBeUndefined()
  })
})
