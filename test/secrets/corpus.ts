/** The credential corpus: made-up credentials by kind, and clean texts a memory really holds. */
import { readFileSync } from "node:fs"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import type { SecretKind } from "../../src/safety/secrets/kinds.ts"

const dir = join(fileURLToPath(import.meta.url), "..", "..", "fixtures", "secrets")

export interface CredentialSample {
  readonly kind: SecretKind
  readonly text: string
}

const jsonl = (file: string): Array<CredentialSample> =>
  readFileSync(join(dir, file), "utf8")
    .split("\n")
    .filter((l) => l.trim() !== "")
    .map((l) => JSON.parse(l) as CredentialSample)

/** The hand-made credentials, then one generated sample for each provider kind they do not hold. */
export const credentialSamples = (): ReadonlyArray<CredentialSample> => [
  ...jsonl("credentials.jsonl"),
  ...jsonl("provider-samples.jsonl")
]

/** Entries of clean.txt, separated by lines holding only `=====`; the part before the first separator is a comment. */
export const cleanSamples = (): ReadonlyArray<string> =>
  readFileSync(join(dir, "clean.txt"), "utf8")
    .split(/\n=====\n/)
    .slice(1)
    .map((s) => s.replace(/\n$/, ""))
