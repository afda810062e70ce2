import { describe, expect, it } from "vitest"
import { resolveToolPath } from "../../src/safety/toolPath.ts"

describe("resolveToolPath (Pi's resolveToCwd)", () => {
  const cwd = "/work/project"
  const home = "/home/u"
  it.each([
    ["notes.md", "/work/project/notes.md"],
    ["@notes.md", "/work/project/notes.md"],
    ["/abs/x.md", "/abs/x.md"],
    ["/abs/../abs/x.md", "/abs/x.md"],
    ["~", "/home/u"],
    ["~/m/x.md", "/home/u/m/x.md"],
    ["@~/m/x.md", "/home/u/m/x.md"],
    ["~user/x.md", "/work/project/~user/x.md"],
    ["file:///abs/x.md", "/abs/x.md"],
    ["file:///abs/a%20b.md", "/abs/a b.md"],
    ["my\u00A0dir/x\u202Fy.md", "/work/project/my dir/x y.md"],
    ["a\u3000b.md", "/work/project/a b.md"]
  ])("%j -> %j", (raw, expected) => {
    expect(resolveToolPath(raw, cwd, home)).toBe(expected)
  })

  it("a file URL that names no local file names nothing", () => {
    expect(resolveToolPath("file://remote-host/x.md", cwd, home)).toBeUndefined()
  })
})
