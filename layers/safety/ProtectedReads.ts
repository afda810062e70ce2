/**
 * The protected-read check of the background tools, with its I/O: a path as asked and as Pi's tools would open it
 * (their fallback spellings, both Unicode forms), its real path after symlinks, the content of a package-manager
 * config; and the read plan of a bash command (src/safety/bash/reads.ts): every word that may name a file, wildcards
 * expanded, search roots that hold a protected place.
 */
import { glob, readdir, readFile, realpath } from "node:fs/promises"
import { homedir } from "node:os"
import { basename, dirname, join } from "node:path"
import type { ReadPlan } from "../../src/safety/bash/reads.ts"
import { decodeConfig } from "../../src/project/config.ts"
import { protectedByContent } from "../../src/safety/protectedContent.ts"
import { isProtectedPath, protectedUnder, type ProtectionOptions } from "../../src/safety/protectedPaths.ts"
import { outsideScope } from "../../src/safety/readScope.ts"
import { configPathOf, storageRootOf } from "../../src/storage/layout.ts"
import { toolPathVariants } from "../../src/safety/toolPath.ts"
import { agentDirFromEnv } from "../project/ConfigService.ts"

/** The protection settings of the user's config.json (user-level `protectedPaths`), for tools built without them. */
export const loadProtection = async (): Promise<ProtectionOptions> => {
  const home = homedir()
  const agentDir = agentDirFromEnv(process.env, home)
  const configPath = configPathOf(storageRootOf(agentDir))
  const text = await readFile(configPath, "utf8").catch(() => undefined)
  const settings = text === undefined ? undefined : decodeConfig(configPath, text, home).config.protectedPaths
  return { home, agentDir, exceptions: settings?.exceptions ?? [], extraProtections: settings?.extraProtections ?? [] }
}

/** One spelling: as asked, and its real path (symlinks resolved; for a missing file, its folder's). */
const reasonForOne = async (absolutePath: string, protection: ProtectionOptions): Promise<string | undefined> => {
  const real = await realpath(absolutePath).catch(async () => {
    const parent = await realpath(dirname(absolutePath)).catch(() => undefined)
    return parent === undefined ? undefined : join(parent, basename(absolutePath))
  })
  if (protection.scope !== undefined) {
    // Both the path as asked and where it leads must be inside the scope: a link in the project to a store elsewhere
    // is refused, and so is a path outside that happens to lead back in.
    const outside = outsideScope(absolutePath, protection.scope) ??
      (real === undefined || real === absolutePath ? undefined : outsideScope(real, protection.scope))
    if (outside !== undefined) return outside
  }
  const verdict = isProtectedPath(absolutePath, protection, real)
  if (verdict.protected) return verdict.reason
  if (verdict.contentCheck === undefined) return undefined
  const text = await readFile(real ?? absolutePath, "utf8").catch(() => undefined)
  if (text === undefined) return undefined
  const byContent = protectedByContent(absolutePath, verdict.contentCheck, text)
  return byContent.protected ? byContent.reason : undefined
}

/**
 * Why a background task may not open `absolutePath`, or undefined. Checked on the path as asked and on every
 * spelling Pi's read tool falls back to when it is missing (NFD, a narrow no-break space before AM/PM, a curly
 * apostrophe), each on its real path too; package-manager configs are protected when they hold a token.
 */
export const protectedReason = async (absolutePath: string, protection: ProtectionOptions): Promise<string | undefined> => {
  for (const variant of toolPathVariants(absolutePath)) {
    const reason = await reasonForOne(variant, protection)
    if (reason !== undefined) return reason
  }
  return undefined
}

export const protectedRefusal = (reason: string): string =>
  `Refused: ${reason}. Background memory tasks never open credential stores or anything outside their scope; leave ` +
  "it out (memory must never hold credentials) and carry on with the other files."

/** The most entries wildcard expansion may visit (walked folders and matches) before a command is refused. */
export const GLOB_VISIT_LIMIT = 5_000
/**
 * At most this many entries of a searched tree are looked at by name. Past it, a command the sandbox runs goes on
 * (the sandbox hides what its own search did not finish), and one without the sandbox is refused.
 */
export const MAX_TREE_ENTRIES = 5_000
/** Folders a tree scan does not enter: version control and installed packages. */
const SKIPPED_DIRS = new Set([".git", "node_modules"])

/**
 * A protected file by name (`.env`, `id_rsa`, `*.pem` ...) inside a searched tree, looked for breadth-first by name
 * only, without following links, over at most MAX_TREE_ENTRIES entries; dot names are skipped when the search skips
 * them too (ripgrep without --hidden).
 */
const protectedInTree = async (
  root: string,
  hidden: boolean,
  protection: ProtectionOptions,
  sandboxed: boolean
): Promise<string | undefined> => {
  const queue = [root]
  let entries = 0
  while (queue.length > 0) {
    const dir = queue.shift()!
    const list = await readdir(dir, { withFileTypes: true }).catch(() => [])
    for (const entry of list) {
      if (++entries > MAX_TREE_ENTRIES) {
        return sandboxed
          ? undefined
          : `${root} holds more than ${MAX_TREE_ENTRIES} entries, too many to check for credential files without the OS sandbox; search specific files or a smaller folder`
      }
      if (!hidden && entry.name.startsWith(".")) continue
      const full = join(dir, entry.name)
      const verdict = isProtectedPath(full, protection)
      if (verdict.protected) {
        return `${verdict.reason}, and the search of ${root} would read it; search specific files or a folder without it`
      }
      if (entry.isDirectory() && !SKIPPED_DIRS.has(entry.name)) queue.push(full)
    }
  }
  return undefined
}

/**
 * Why a read-only bash command may not run because of what it would open, or undefined: the plan's own refusal
 * (input the guard cannot see), a named file outside the scope or protected (as written or through a link), a
 * wildcard that matches one, or a search root that holds a protected place (`grep -r KEY ~`). `sandboxed`: the
 * command runs in the OS sandbox, which hides what a search of a large tree here could not finish.
 */
export const protectedReadReason = async (
  plan: ReadPlan,
  protection: ProtectionOptions,
  sandboxed = false
): Promise<string | undefined> => {
  if (plan.refuse !== undefined) return plan.refuse
  const seen = new Set<string>()
  let visited = 0
  for (const target of plan.targets) {
    const key = `${target.recursive ? "r" : ""}${target.lexical ? "l" : ""}${target.path}`
    if (seen.has(key)) continue
    seen.add(key)
    if (target.recursive) {
      const real = await realpath(target.path).catch(() => target.path)
      const under = protectedUnder(target.path, protection) ?? (real === target.path ? undefined : protectedUnder(real, protection))
      if (under !== undefined) return under
      const outside = protection.scope === undefined ? undefined : outsideScope(target.path, protection.scope) ?? outsideScope(real, protection.scope)
      if (outside !== undefined) return outside
      const inside = await protectedInTree(real, target.hidden !== false, protection, sandboxed)
      if (inside !== undefined) return inside
    }
    if (target.lexical) {
      const outside = protection.scope === undefined ? undefined : outsideScope(target.path, protection.scope)
      if (outside !== undefined) return outside
      const lexical = isProtectedPath(target.path, protection)
      if (lexical.protected) return lexical.reason
      continue
    }
    const reason = await protectedReason(target.path, protection)
    if (reason !== undefined) return reason
    if (target.glob) {
      // Bounded: the walk stops after GLOB_VISIT_LIMIT entries, folders walked and matches together (`ls /**` would
      // walk the whole disk on Pi's event loop before the command is judged); a pattern reaching more is refused
      // rather than half checked.
      const exclude = () => ++visited > GLOB_VISIT_LIMIT
      for await (const match of glob(target.path, { exclude })) {
        if (++visited > GLOB_VISIT_LIMIT) break
        const hit = await protectedReason(match, protection)
        if (hit !== undefined) return hit
      }
      if (visited > GLOB_VISIT_LIMIT) {
        return `the pattern ${target.path} reaches more than ${GLOB_VISIT_LIMIT} files, too many to check for credential stores (name the files or a narrower pattern)`
      }
    }
  }
  return undefined
}
