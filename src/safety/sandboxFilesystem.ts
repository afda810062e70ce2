/**
 * The file-system policy of a sandboxed command: nothing is writable, and the credential stores (the home's stores,
 * Pi's own secrets, the protected paths of src/safety/protectedPaths.ts found in the searched trees, the user's
 * `protectedPaths` included) are unreadable. Pure, no I/O: layers/safety/Sandbox.ts does the search.
 */
import * as path from "node:path"
import { isProtectedPath, type ProtectionOptions } from "./protectedPaths.ts"

/**
 * Credential stores that are denied wherever they are, whether they exist yet or not (relative to the home
 * directory). The name rules of src/safety/protectedPaths.ts (`.env`, `id_*`, `*.pem` ...) are applied to the files found
 * in the searched trees (`protectedFilesIn`).
 */
export const HOME_STORES: ReadonlyArray<string> = [
  ".ssh",
  ".aws",
  ".gnupg",
  ".config/gcloud",
  ".config/gh",
  ".git-credentials",
  ".docker/config.json",
  ".kube",
  ".netrc",
  "_netrc",
  ".pgpass",
  ".pypirc",
  ".npmrc",
  ".azure",
  ".password-store",
  // The sandbox runtime leaves these two writable unless a read rule names them; denying them keeps the file
  // system read-only everywhere.
  ".npm/_logs",
  ".claude/debug"
]

export interface SandboxFilesystem {
  readonly denyRead: ReadonlyArray<string>
  readonly allowRead: ReadonlyArray<string>
  readonly allowWrite: ReadonlyArray<string>
  readonly denyWrite: ReadonlyArray<string>
}

/**
 * Is a file found in a searched tree denied to the sandbox? Every rule of src/safety/protectedPaths.ts, and a config whose
 * protection depends on its content (`.npmrc`, `.pypirc`) is denied without reading it.
 */
export const deniedInSandbox = (absolutePath: string, protection: ProtectionOptions): boolean => {
  const verdict = isProtectedPath(absolutePath, protection)
  return verdict.protected || verdict.contentCheck !== undefined
}

/**
 * The file-system policy of one sandboxed command: nothing writable; the home stores, Pi's `auth.json` and
 * `models.json`, the user's absolute extra protections and the protected files found are unreadable. The user's
 * exceptions (exact paths) are taken out of the list.
 */
export const sandboxFilesystem = (protection: ProtectionOptions, found: ReadonlyArray<string>): SandboxFilesystem => {
  const exceptions = new Set((protection.exceptions ?? []).map((e) => path.posix.normalize(e)))
  const deny = new Set<string>()
  for (const store of HOME_STORES) deny.add(path.posix.join(protection.home, store))
  deny.add(path.posix.join(protection.agentDir, "auth.json"))
  deny.add(path.posix.join(protection.agentDir, "models.json"))
  for (const entry of protection.extraProtections ?? []) if (entry.startsWith("/")) deny.add(path.posix.normalize(entry))
  for (const file of found) deny.add(path.posix.normalize(file))
  return {
    denyRead: [...deny].filter((p) => !exceptions.has(p)).sort(),
    allowRead: [],
    allowWrite: [],
    denyWrite: []
  }
}

/** Directories a search for protected files does not descend into: large, and never where credentials are kept. */
export const SEARCH_SKIPS: ReadonlySet<string> = new Set(["node_modules", ".git", ".hg", ".svn"])
