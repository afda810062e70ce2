/**
 * Change notices, the session's side: a task's `onChange` records each change at once as a custom session entry
 * (Pi writes it to the session file in the same call, and it starts no turn), and the `context` hook turns the
 * branch's records into hidden notices in each request (src/background/notices.ts). A record stands where the
 * change happened, so a quit, a kill, `/new` or a reload loses nothing, and a running agent gets no extra turn.
 */
import { randomUUID } from "node:crypto"
import * as Effect from "effect/Effect"
import { relative, sep } from "node:path"
import { NOTICE_ENTRY, type NoticeBy, noticeGroups, type NoticeRecord, type ProjectedEntry, renderNotice } from "../../src/background/notices.ts"
import type { HostShape } from "../session/Host.ts"
import { isWithin } from "../../src/safety/toolPath.ts"
import type { MemoryChange } from "./tools/taskTool.ts"

export { NOTICE_ENTRY, NOTICE_MESSAGE, withNotices } from "../../src/background/notices.ts"

/** The notices every request of this branch carries, as the model reads them (`/memory context`). */
export const branchNotices = (entries: ReadonlyArray<ProjectedEntry>): ReadonlyArray<string> =>
  noticeGroups(entries).map((p) => renderNotice(p.group))

/**
 * The `onChange` of one task run: every change it reports becomes one record of this task, with the file relative
 * to the memory directory (either spelling of it). A host that went stale (after a reload) records nothing.
 */
export const changeRecorder = (
  host: Pick<HostShape, "appendEntry">,
  by: NoticeBy,
  memoryDirs: ReadonlyArray<string>
): (change: MemoryChange) => Effect.Effect<void> => {
  const task = randomUUID()
  const fileOf = (path: string): string => {
    const dir = memoryDirs.find((d) => isWithin(d, path) && relative(d, path) !== "")
    return dir === undefined ? path : relative(dir, path).split(sep).join("/")
  }
  return (change) =>
    host.appendEntry(NOTICE_ENTRY, { task, by, op: change.op, file: fileOf(change.path) } satisfies NoticeRecord).pipe(
      Effect.catchAllDefect(() => Effect.void)
    )
}
