/**
 * The file-system policy of a sandboxed command. With a read scope (src/safety/readScope.ts), an allow-list: the
 * whole file system is hidden and only the scope is mounted back, read-only (the system folders, the project's
 * trees, the memory folder, the instruction files); every hidden folder is an empty private one, /tmp included.
 * Inside what is shown, the credential stores stay unreadable: the home's stores, Pi's own secrets, other parts of
 * Pi's agent folder, the protected paths of src/safety/protectedPaths.ts found in the trees (the user's
 * `protectedPaths` included), and whatever part of a tree the search for them could not finish. Nothing of the host
 * is writable. Pure, no I/O: layers/safety/Sandbox.ts does the search.
 */
import * as path from "node:path"
import { isProtectedPath, type ProtectionOptions } from "./protectedPaths.ts"
import { SYSTEM_SECRET_PATHS } from "./readScope.ts"

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
 * `models.json`, the user's absolute extra protections, the protected files found and the folders the search did
 * not finish (`unchecked`) are unreadable. With a scope, everything else outside it too: `/` is hidden and the scope
 * (plus `programs`, folders the sandbox itself runs from) mounted back; Pi's agent folder is hidden again where a
 * tree holds it, with the task's own memory and sessions shown. The user's exceptions (exact paths) are taken out of
 * the deny list.
 */
export const sandboxFilesystem = (
  protection: ProtectionOptions,
  found: ReadonlyArray<string>,
  options: { readonly unchecked?: ReadonlyArray<string>; readonly programs?: ReadonlyArray<string> } = {}
): SandboxFilesystem => {
  const exceptions = new Set((protection.exceptions ?? []).map((e) => path.posix.normalize(e)))
  const deny = new Set<string>()
  for (const store of HOME_STORES) deny.add(path.posix.join(protection.home, store))
  deny.add(path.posix.join(protection.agentDir, "auth.json"))
  deny.add(path.posix.join(protection.agentDir, "models.json"))
  for (const entry of protection.extraProtections ?? []) if (entry.startsWith("/")) deny.add(path.posix.normalize(entry))
  for (const file of [...found, ...(options.unchecked ?? [])]) deny.add(path.posix.normalize(file))
  const allow = new Set<string>()
  const scope = protection.scope
  if (scope !== undefined) {
    deny.add("/")
    deny.add(path.posix.normalize(scope.agentDir))
    for (const secret of SYSTEM_SECRET_PATHS) deny.add(secret)
    for (const entry of scope.homeDotEntries) deny.add(path.posix.normalize(entry))
    for (const p of [...scope.system, ...scope.trees, ...scope.files, ...(options.programs ?? [])]) allow.add(path.posix.normalize(p))
  }
  return {
    denyRead: [...deny].filter((p) => !exceptions.has(p) && !allow.has(p)).sort(),
    allowRead: [...allow].sort(),
    allowWrite: [],
    denyWrite: []
  }
}

/**
 * Folders a search for protected files does not descend into: a version-control store, whose file names are its own
 * (objects, refs), never a user's credential file. Everything else is searched, installed packages included.
 */
export const SEARCH_SKIPS: ReadonlySet<string> = new Set([".git", ".hg", ".svn"])
