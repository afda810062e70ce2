/**
 * The home's dot entries of a read scope (layers/safety/readScopeLoad.ts): listed when a tree holds the home, none
 * otherwise, and listed again on demand, so a dot folder created while a task runs is hidden by the next command's
 * sandbox too.
 */
import { mkdirSync } from "node:fs"
import { join } from "node:path"
import { describe, expect, it } from "vitest"
import { loadReadScope, withCurrentHomeDotEntries } from "../../layers/safety/readScopeLoad.ts"
import { tempDir } from "../support/tmp.ts"

const homeWithProject = () => {
  const home = join(tempDir("pm-scope-"), "home")
  const project = join(home, "work", "project")
  const agentDir = join(home, ".pi", "agent")
  const memoryDir = join(agentDir, "project-memory", "projects", "p", "memory")
  for (const d of [project, memoryDir, join(home, ".early")]) mkdirSync(d, { recursive: true })
  return { home, project, agentDir, memoryDir }
}

describe("the home's dot entries of a read scope", () => {
  it("a task whose project is the home lists them; one created later appears when they are listed again", async () => {
    const { home, agentDir, memoryDir } = homeWithProject()
    const scope = await loadReadScope({ cwd: home, memoryDir, home, agentDir })
    expect([...scope.homeDotEntries].sort()).toEqual([join(home, ".early"), join(home, ".pi")])
    mkdirSync(join(home, ".late"))
    expect(scope.homeDotEntries).not.toContain(join(home, ".late"))
    const again = await withCurrentHomeDotEntries(scope)
    expect([...again.homeDotEntries].sort()).toEqual([join(home, ".early"), join(home, ".late"), join(home, ".pi")])
    expect(again.trees).toEqual(scope.trees)
  })

  it("a task whose project is below the home lists none (the home is outside its trees)", async () => {
    const { home, project, agentDir, memoryDir } = homeWithProject()
    const scope = await loadReadScope({ cwd: project, memoryDir, home, agentDir })
    expect(scope.homeDotEntries).toEqual([])
    mkdirSync(join(home, ".late"))
    expect((await withCurrentHomeDotEntries(scope)).homeDotEntries).toEqual([])
  })
})
