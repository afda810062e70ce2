/** The storage layout under `<agentDir>/project-memory/` (DECISIONS D2). Pure path arithmetic. */
import { join } from "node:path"

export const storageRootOf = (agentDir: string): string => join(agentDir, "project-memory")
export const configPathOf = (storageRoot: string): string => join(storageRoot, "config.json")
export const projectsDirOf = (storageRoot: string): string => join(storageRoot, "projects")
export const memoryRootDirOf = (storageRoot: string, memoryRootHash: string): string =>
  join(storageRoot, "memory-roots", memoryRootHash)
export const locksDirOf = (memoryRootDir: string): string => join(memoryRootDir, "locks")
/** Where handed-over extractions wait (src/background/queue.ts). */
export const queueDirOf = (memoryRootDir: string): string => join(memoryRootDir, "queue")
export const PROJECT_ROOT_MARKER = ".project-root"
export const INDEX_FILE = "MEMORY.md"

/** Where a project lives, as `pm project` prints it. */
export interface ProjectLocation {
  readonly projectRoot: string
  readonly projectKey: string
  readonly projectDir: string
  readonly memoryDir: string
  readonly memoryRootHash: string
  readonly memoryRootDir: string
  readonly storageRoot: string
  /** The legacy per-project state file, read as the migration source of the shared one. */
  readonly legacyStatePath: string
}
