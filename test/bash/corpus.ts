/** The bash corpus fixture: one JSON object per line (command, expected verdict, targets for deletes). */
import { readFileSync } from "node:fs"
import { fileURLToPath } from "node:url"

export const MEMORY_DIR = "/home/alice/.pi/agent/project-memory/projects/-home-alice-app/memory"
export const CWD = "/home/alice/app"

export interface CorpusRow {
  readonly command: string
  readonly verdict: "read-only" | "delete" | "rejected"
  readonly targets?: ReadonlyArray<string>
  readonly force?: boolean
  readonly note?: string
  readonly reasonIncludes?: string
}

export const loadCorpus = (): ReadonlyArray<CorpusRow> =>
  readFileSync(fileURLToPath(new URL("../fixtures/bash-corpus.jsonl", import.meta.url)), "utf8")
    .split("\n")
    .filter((l) => l.trim().length > 0)
    .map((l) => JSON.parse(l) as CorpusRow)

