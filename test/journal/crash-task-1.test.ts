/**
 * kill -9 during a background task's recording and publishing (update a.md, create c.md, delete b.md), in a real child
 * process that SIGKILLs itself right before a chosen file-system operation; this file takes every fourth point
 * (part 1 of 4). After each kill: every file holds its old or new bytes, the journal parses, and an undo in
 * another process brings every file back exactly (or nothing had changed and there is nothing to undo).
 */
import { describeCrashPart } from "./crashSupport.ts"

describeCrashPart("task", 1, 4)
