/** Project key and memory-root hash (DECISIONS D3, D4). Pure. */
import { createHash } from "node:crypto"
import { PROJECT_KEY_MAX } from "../limits.ts"

/** Java's String.hashCode over UTF-16 code units, as a 32-bit signed integer. */
export const javaHashCode = (s: string): number => {
  let h = 0
  for (let i = 0; i < s.length; i++) h = (Math.imul(31, h) + s.charCodeAt(i)) | 0
  return h
}

export const sanitizeRoot = (root: string): string => root.replace(/[^a-zA-Z0-9]/g, "-")

export const projectKeyOf = (root: string): string => {
  const sanitized = sanitizeRoot(root)
  return sanitized.length <= PROJECT_KEY_MAX
    ? sanitized
    : `${sanitized.slice(0, PROJECT_KEY_MAX)}-${Math.abs(javaHashCode(root)).toString(36)}`
}

export const sha256Hex24 = (s: string): string => createHash("sha256").update(s).digest("hex").slice(0, 24)

/** The directory name used when `.project-root` under the plain key records another root. */
export const collisionKeyOf = (root: string): string => `${projectKeyOf(root)}-${sha256Hex24(root)}`
