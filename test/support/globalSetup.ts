/**
 * Runs once in vitest's main process before any test file: builds dist/ when it is missing or older than a source
 * (test files that use the bundles then find it current, and no worker builds or waits on another's build), and
 * does so without blocking (a child process awaited), so the main process keeps answering its workers.
 */
import { execFile } from "node:child_process"
import { dirname, join } from "node:path"
import { fileURLToPath } from "node:url"
import { promisify } from "node:util"
import { isFresh } from "./build.ts"

const repoRoot = join(dirname(fileURLToPath(import.meta.url)), "..", "..")

export default async function setup(): Promise<void> {
  if (isFresh()) return
  await promisify(execFile)(process.execPath, [join(repoRoot, "scripts", "build.mjs")], { cwd: repoRoot })
}
