/** The selector's view of one topic: `- [type] filename (mtime ISO): description`. Pure. */
import type { MemoryType } from "./frontmatter.ts"

export interface CatalogTopic {
  readonly filename: string
  readonly type: MemoryType | undefined
  readonly description: string | undefined
  readonly mtimeMs: number
}

export const catalogLine = (t: CatalogTopic): string =>
  `- ${t.type === undefined ? "" : `[${t.type}] `}${t.filename} (${new Date(t.mtimeMs).toISOString()}): ${(t.description ?? "").replace(/\s+/g, " ").trim()}`

export const catalogOf = (topics: ReadonlyArray<CatalogTopic>): string => topics.map(catalogLine).join("\n")
