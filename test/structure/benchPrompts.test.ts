/**
 * `bench/prompts.ts` reads the prompt builders of src/ by name and calls them with the inputs it assumes; nothing
 * else type-checks that call, so a builder that changes its parameters breaks the bench unseen. This runs it as a
 * user would and checks that it measured every prompt, the background tools section included.
 */
import { execFile } from "node:child_process"
import { dirname, join } from "node:path"
import { fileURLToPath } from "node:url"
import { promisify } from "node:util"
import { expect, it } from "vitest"

const repoRoot = join(dirname(fileURLToPath(import.meta.url)), "..", "..")

it("bench/prompts.ts measures every prompt, the tools section with all of a task's tools", async () => {
  const { stdout } = await promisify(execFile)(process.execPath, [join(repoRoot, "bench", "prompts.ts")], { cwd: repoRoot })
  const rows = new Map(
    stdout.split("\n").flatMap((line) => {
      const m = /^(.+?)\s+(\d+)\s+\d+\s+\d+$/.exec(line)
      return m === null ? [] : [[m[1]!.trim(), Number(m[2])] as const]
    })
  )
  for (const name of ["main rules (every request)", "selector system prompt", "extractor task, 20 topics, 12 messages", "dream task, 200 topics, 5 sessions", "background tools section (each task)"])
    expect(rows.get(name), name).toBeGreaterThan(0)
  // All seven tools listed: the section with codemode and the six it reaches is the longest one a task can get.
  const { backgroundToolsSection, SECTION_TOOL_ORDER } = await import("../../src/background/prompts/backgroundTools.ts")
  expect(rows.get("background tools section (each task)")).toBe(backgroundToolsSection("/home/user/src/project", SECTION_TOOL_ORDER).length)
})
