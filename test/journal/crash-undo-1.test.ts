/**
 * kill -9 during the undo of a published task, in a real child
 * process that SIGKILLs itself right before a chosen file-system operation; this file takes every fourth point
 * (part 1 of 4). After each kill: every file holds its old or new bytes, the journal parses, and an undo in
 * another process brings every file back exactly (finishing what the killed undo began).
 */
import { describeCrashPart } from "./crashSupport.ts"

describeCrashPart("undo", 1, 4)
