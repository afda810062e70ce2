/** The credential corpus: made-up credentials by kind, and clean texts a memory really holds. */
import { readFileSync } from "node:fs"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import type { SecretKind } from "../../src/secrets.ts"

const dir = join(fileURLToPath(import.meta.url), "..", "..", "fixtures", "secrets")

export interface CredentialSample {
  readonly kind: SecretKind
  readonly text: string
}

export const credentialSamples = (): ReadonlyArray<CredentialSample> =>
  readFileSync(join(dir, "credentials.jsonl"), "utf8")
    .split("\n")
    .filter((l) => l.trim() !== "")
    .map((l) => JSON.parse(l) as CredentialSample)

/** Entries of clean.txt, separated by lines holding only `=====`; the part before the first separator is a comment. */
export const cleanSamples = (): ReadonlyArray<string> =>
  readFileSync(join(dir, "clean.txt"), "utf8")
    .split(/\n=====\n/)
    .slice(1)
    .map((s) => s.replace(/\n$/, ""))
