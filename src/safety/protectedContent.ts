/**
 * The second step of a protected read for the package-manager configs whose protection depends on what they hold:
 * an `.npmrc` with a registry token, a `.pypirc` with a password. The first step (src/safety/protectedPaths.ts) asks
 * for it; the caller reads the file and hands its text here. Pure.
 */
import { type ContentCheck, NOT_PROTECTED, type Protection, protectedBecause } from "./protectedPaths.ts"

/** A value that only names an environment variable (`${NPM_TOKEN}`): the secret lives elsewhere. */
const VARIABLE_REFERENCE = /^\$\{[A-Za-z_][A-Za-z0-9_]{0,200}\}$/

/**
 * Does an `.npmrc` hold a credential? `_authToken`, `_auth`, `_password` (optionally scoped to a registry:
 * `//registry.npmjs.org/:_authToken=...`) with a literal value. A value that is only a `${VAR}` reference is not one.
 */
export const npmrcHasToken = (text: string): boolean => {
  for (const raw of text.split(/\r?\n/)) {
    const line = raw.trim()
    if (line.startsWith("#") || line.startsWith(";")) continue
    const m = /^(?:\/\/[^\s=]{0,512}:)?(_authToken|_auth|_password|password|token)[ \t]{0,8}=[ \t]{0,8}(.{0,4096})$/i.exec(line)
    if (m === null) continue
    const value = m[2]!.trim().replace(/^["']|["']$/g, "")
    if (value === "" || VARIABLE_REFERENCE.test(value)) continue
    return true
  }
  return false
}

/** Does a `.pypirc` hold a password or token (a non-empty `password =` in any section)? */
export const pypircHasPassword = (text: string): boolean =>
  text.split(/\r?\n/).some((raw) => {
    const m = /^[ \t]{0,64}password[ \t]{0,8}[=:][ \t]{0,8}(.{0,4096})$/i.exec(raw)
    const value = m?.[1]!.trim()
    return value !== undefined && value !== "" && !VARIABLE_REFERENCE.test(value)
  })

/** The second step for a path whose first check asked for a content check. */
export const protectedByContent = (absPath: string, check: ContentCheck, text: string): Protection =>
  check === "npmrc"
    ? npmrcHasToken(text) ? protectedBecause(`${absPath} is an .npmrc that holds a registry token`) : NOT_PROTECTED
    : pypircHasPassword(text) ? protectedBecause(`${absPath} is a .pypirc that holds a password or token`) : NOT_PROTECTED
