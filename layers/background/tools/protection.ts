/**
 * The checks every background tool shares before it opens or changes a file: credential stores no tool may open
 * (a path argument, a file a search passes through), and on the final content of a write or edit, the credential
 * guard, the size cap and topic header, and the index's links. Each check refuses with a reason for the model and
 * changes nothing; none of them runs a tool or publishes.
 */
import { existsSync } from "node:fs"
import { readFile } from "node:fs/promises"
import { homedir } from "node:os"
import { join, relative, resolve } from "node:path"
import { newDanglingLinks } from "../../../src/memory/topicNames.ts"
import type { ProtectionOptions } from "../../../src/safety/protectedPaths.ts"
import { detectSecrets, secretRefusalReason } from "../../../src/safety/secrets.ts"
import { isWithin, resolveToolPath } from "../../../src/safety/toolPath.ts"
import { backgroundWriteRefusal } from "../../../src/writes/backgroundWrite.ts"
import { protectedReason, protectedRefusal } from "../../safety/ProtectedReads.ts"
import { errorResult, type ToolResult } from "./taskTool.ts"

/** Strictly inside memory: the memory folder itself is not a file in it. */
const inMemory = (memoryDir: string, absolutePath: string): boolean =>
  isWithin(memoryDir, absolutePath) && relative(memoryDir, absolutePath) !== ""

/** A file as the model knows it: relative to memory when inside it. */
export const memoryLabel = (memoryDir: string, absolutePath: string): string =>
  inMemory(memoryDir, absolutePath) ? relative(memoryDir, absolutePath).split("\\").join("/") : absolutePath

/**
 * The credential guard on the final content of a write or edit: nothing is written when it holds a secret, and the
 * model is told which kind and where (never the value), so it can redact and retry.
 */
export const refuseCredentials = (memoryDir: string, absolutePath: string, content: string): void => {
  const findings = detectSecrets(content)
  if (findings.length > 0) throw new Error(secretRefusalReason(findings, memoryLabel(memoryDir, absolutePath)))
}

/** The size cap and, for topic files, the required header (src/writes/backgroundWrite.ts), on the final content. */
export const refuseUnfitContent = (memoryDir: string, absolutePath: string, content: string): void => {
  if (!inMemory(memoryDir, absolutePath)) return
  const refusal = backgroundWriteRefusal(memoryLabel(memoryDir, absolutePath), content)
  if (refusal !== undefined) throw new Error(refusal)
}

/**
 * The index may not gain a line for a topic that does not exist: when the topic's write failed (a full disk) or
 * was refused, its index line is refused too, so MEMORY.md never links memory that was not saved.
 */
export const refuseDanglingIndex = async (memoryDir: string, absolutePath: string, content: string): Promise<void> => {
  const indexPath = join(memoryDir, "MEMORY.md")
  if (resolve(absolutePath) !== indexPath) return
  const before = await readFile(indexPath, "utf8").catch(() => "")
  const dangling = newDanglingLinks(before, content, (file) => existsSync(join(memoryDir, file)))
  if (dangling.length === 0) return
  throw new Error(
    `MEMORY.md was not changed: it would link ${dangling.join(", ")}, which ${dangling.length === 1 ? "does" : "do"} not exist. ` +
      "Write the topic file first (if its write failed, say so and stop); then add its line."
  )
}

/** Every check a write or edit runs on its final content, in this order, before the writer sees it. */
export const refuseContent = async (memoryDir: string, absolutePath: string, content: string): Promise<void> => {
  refuseUnfitContent(memoryDir, absolutePath, content)
  refuseCredentials(memoryDir, absolutePath, content)
  await refuseDanglingIndex(memoryDir, absolutePath, content)
}

export interface PathGuard {
  /** Why a file or folder may not be opened (a credential store), or undefined. */
  readonly guardPath: (absolutePath: string) => Promise<string | undefined>
  /** The refusal for a tool's path argument (the searched folder for find and grep, cwd by default). */
  readonly refusePath: (raw: unknown) => Promise<ToolResult | undefined>
}

export const makePathGuard = (cwd: string, protection: ProtectionOptions): PathGuard => {
  const guardPath = (absolutePath: string) => protectedReason(absolutePath, protection)
  return {
    guardPath,
    refusePath: async (raw) => {
      const requested = typeof raw === "string" && raw !== "" ? raw : "."
      const absolute = resolveToolPath(requested, cwd, homedir())
      if (absolute === undefined) return undefined
      const reason = await guardPath(absolute)
      return reason === undefined ? undefined : errorResult(protectedRefusal(reason))
    }
  }
}
