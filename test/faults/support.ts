/** Shared by the fault tests: a project with topics on a chosen storage root, tmpfs mounts, and planted locks. */
import { execFileSync } from "node:child_process"
import { mkdirSync, mkdtempSync, realpathSync, rmdirSync, utimesSync, writeFileSync } from "node:fs"
import { hostname, tmpdir } from "node:os"
import { join } from "node:path"
import { expect } from "vitest"
import { machineOf, processStartOf } from "../../layers/storage/lockProcess.ts"
import { runPm } from "../support/pm.ts"
import { gitRepo, tempDir, writeFileAt } from "../support/tmp.ts"

export const topic = (name: string, body: string) =>
  `---\nname: ${name}\ndescription: about ${name}\nmetadata:\n  type: project\n---\n${body}\n`

export interface Project {
  readonly agentDir: string
  readonly home: string
  readonly repo: string
  readonly memoryDir: string
  readonly rootDir: string
  readonly locksDir: string
}

/** A git repository whose memory (under `agentDir`) holds `names` as topics, each linked from MEMORY.md. */
export const project = async (agentDir: string, names: ReadonlyArray<string>): Promise<Project> => {
  const home = tempDir("pm-home-")
  const repo = gitRepo()
  mkdirSync(agentDir, { recursive: true })
  // `pm project` only looks; the directories are made here as the extension's first write would make them.
  const r = await runPm(["project", "--json", "--cwd", repo], { agentDir, home })
  expect(r.code, r.stderr).toBe(0)
  const p = JSON.parse(r.stdout) as Record<string, string>
  const memoryDir = p["memoryDir"]!
  const rootDir = join(p["storageRoot"]!, "memory-roots", p["memoryRootHash"]!)
  for (const n of names) writeFileAt(join(memoryDir, `${n}.md`), topic(n, `The ${n} fact.`))
  writeFileAt(join(memoryDir, "MEMORY.md"), `# Memory\n${names.map((n) => `- [${n}](${n}.md) - about ${n}`).join("\n")}\n`)
  writeFileAt(join(p["projectDir"]!, ".project-root"), `${p["projectRoot"]}\n`)
  return { agentDir, home, repo, memoryDir, rootDir, locksDir: join(rootDir, "locks") }
}

/** A tmpfs of `kib` KiB at a fresh directory; `release` unmounts it and removes the directory. */
export const tmpfs = (kib: number): { readonly path: string; readonly remountReadOnly: () => void; readonly release: () => void } => {
  // Not one of the test's temporary folders: those are removed recursively after the file, mounted or not.
  const path = realpathSync(mkdtempSync(join(tmpdir(), "pm-tmpfs-")))
  execFileSync("mount", ["-t", "tmpfs", "-o", `size=${kib}k,mode=0755`, "tmpfs", path])
  return {
    path,
    remountReadOnly: () => void execFileSync("mount", ["-o", "remount,ro", path]),
    release: () => {
      try {
        execFileSync("umount", [path], { stdio: "ignore" })
      } catch {
        execFileSync("umount", ["-l", path]) // still open somewhere: detached now, freed when closed
      }
      try {
        rmdirSync(path)
      } catch {
        // a lazily detached mount point is removed with the test's temporary folders
      }
    }
  }
}

/** Whether this process may mount file systems (root in a container that allows it). */
export const canMount = (): boolean => {
  if (process.getuid?.() !== 0) return false
  try {
    tmpfs(64).release()
    return true
  } catch {
    return false
  }
}

export const DEAD_PID = 2 ** 22 + 12_345

/** A lock file as a holder on this machine writes it, with its mtime `ageMs` in the past (negative: the future). */
export const plantLock = (locksDir: string, name: string, content: string | Record<string, unknown>, ageMs: number) => {
  mkdirSync(locksDir, { recursive: true })
  const path = join(locksDir, name)
  writeFileSync(path, typeof content === "string" ? content : JSON.stringify(content))
  const t = (Date.now() - ageMs) / 1000
  utimesSync(path, t, t)
  return path
}

export const holderRecord = (pid: number, kind: string, extra: Record<string, unknown> = {}) => ({
  pid,
  token: `planted-${pid}-${kind}`,
  acquiredAt: Date.now() - 12_000,
  host: hostname(),
  machine: machineOf(),
  start: processStartOf(pid) ?? "1",
  kind,
  ...extra
})
