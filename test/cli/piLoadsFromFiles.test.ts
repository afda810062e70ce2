/**
 * `pm status` reads whether Pi loads project memory from Pi's files when they decide it (cli/piLoadsFromFiles.ts), and
 * that answer is Pi's own: each case the files decide is held to what Pi's package manager resolves in the same
 * folders, and each case they do not decide is left to the manager (undefined), never guessed.
 */
import { cpSync, mkdirSync, symlinkSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { describe, expect, it } from "vitest"
import { piLoadsByPi } from "../../cli/piLoads.ts"
import { piLoadsFromFiles } from "../../cli/piLoadsFromFiles.ts"
import { repoRoot } from "../support/pm.ts"
import { gitRepo, tempAgent } from "../support/tmp.ts"

/** An agent folder and a project, arranged by `arrange`; the files' answer and Pi's, with Pi offline. */
const answers = async (arrange: (agentDir: string, project: string) => void) => {
  const { agentDir } = tempAgent()
  const project = gitRepo()
  arrange(agentDir, project)
  const offline = process.env["PI_OFFLINE"]
  process.env["PI_OFFLINE"] = "1"
  try {
    return { files: piLoadsFromFiles(agentDir, project), pi: await piLoadsByPi(agentDir, project, false), agentDir }
  } finally {
    if (offline === undefined) delete process.env["PI_OFFLINE"]
    else process.env["PI_OFFLINE"] = offline
  }
}

const settings = (agentDir: string, value: unknown) => writeFileSync(join(agentDir, "settings.json"), JSON.stringify(value))

/** This package installed as `pi install npm:pi-project-memory` leaves it: in the agent folder's npm/node_modules. */
const installByNpm = (agentDir: string) => {
  const root = join(agentDir, "npm", "node_modules", "pi-project-memory")
  mkdirSync(root, { recursive: true })
  cpSync(join(repoRoot, "package.json"), join(root, "package.json"))
  cpSync(join(repoRoot, "index.ts"), join(root, "index.ts"))
  return root
}

describe("whether Pi loads project memory, from Pi's files", () => {
  it("nothing configured: absent, as Pi says", async () => {
    const a = await answers(() => undefined)
    expect(a.files).toEqual({ state: "absent" })
    expect(a.files).toEqual(a.pi)
    const empty = await answers((agentDir) => {
      settings(agentDir, { packages: [], extensions: [] })
      mkdirSync(join(agentDir, "extensions"))
    })
    expect(empty.files).toEqual({ state: "absent" })
    expect(empty.files).toEqual(empty.pi)
  })

  it("only other npm packages, installed or not: absent, as Pi says", async () => {
    const a = await answers((agentDir) => settings(agentDir, { packages: ["npm:some-other-pi-package", "npm:@scope/another"] }))
    expect(a.files).toEqual({ state: "absent" })
    expect(a.files).toEqual(a.pi)
  })

  it("pi-project-memory by npm, installed in the agent folder: loaded from its manifest's extension, as Pi says", async () => {
    const a = await answers((agentDir) => {
      installByNpm(agentDir)
      settings(agentDir, { packages: ["npm:some-other-pi-package", "npm:pi-project-memory"] })
    })
    expect(a.files).toEqual({ state: "loaded", path: join(a.agentDir, "npm", "node_modules", "pi-project-memory", "index.ts"), source: "npm:pi-project-memory", scope: "user" })
    expect(a.files).toEqual(a.pi)
  })

  it("leaves to Pi's manager what the files do not decide", async () => {
    const undecided: ReadonlyArray<readonly [string, (agentDir: string, project: string) => void]> = [
      ["named but not installed", (agentDir) => settings(agentDir, { packages: ["npm:pi-project-memory"] })],
      ["a version", (agentDir) => (installByNpm(agentDir), settings(agentDir, { packages: ["npm:pi-project-memory@1.0.0"] }))],
      ["a filter object", (agentDir) => (installByNpm(agentDir), settings(agentDir, { packages: [{ source: "npm:pi-project-memory", extensions: [] }] }))],
      ["a local path", (agentDir) => settings(agentDir, { packages: [repoRoot] })],
      ["a git source", (agentDir) => settings(agentDir, { packages: ["git:github.com/someone/pi-project-memory"] })],
      ["override patterns", (agentDir) => (installByNpm(agentDir), settings(agentDir, { packages: ["npm:pi-project-memory"], extensions: ["-**/index.ts"] }))],
      ["a folder in extensions/", (agentDir) => (mkdirSync(join(agentDir, "extensions")), symlinkSync(repoRoot, join(agentDir, "extensions", "memory")))],
      ["a project's .pi/", (_, project) => mkdirSync(join(project, ".pi"))],
      ["settings.json that is not an object", (agentDir) => writeFileSync(join(agentDir, "settings.json"), "[")]
    ]
    for (const [name, arrange] of undecided) expect((await answers(arrange)).files, name).toBeUndefined()
  })
})
