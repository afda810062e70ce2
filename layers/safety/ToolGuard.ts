/**
 * The untrusted-project guard for the main agent's tools when MemorySession itself could not run (memory switched
 * off, failed to activate, or an internal error): it fails closed for anything that could touch memory.
 */
import { storageRootOf } from "../../src/storage/layout.ts"
import { couldTouchMemory, uncheckedReason } from "../../src/safety/toolPath.ts"
import { agentDirFromEnv } from "../project/ConfigService.ts"

/** The trust guard when MemorySession cannot run: trusted allows; unknown trust is no trust; memory paths blocked. */
export const toolCallWithoutSession = (
  toolName: string,
  input: Record<string, unknown>,
  isTrusted: () => boolean,
  storageRoot: string = storageRootOf(agentDirFromEnv())
): { block: true; reason: string } | undefined => {
  let trusted = false
  try {
    trusted = isTrusted()
  } catch {
    // A stale context cannot vouch for the project.
  }
  return trusted || !couldTouchMemory(toolName, input, storageRoot) ? undefined : { block: true, reason: uncheckedReason(toolName) }
}

