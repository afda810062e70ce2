/**
 * `extract` killed (SIGKILL) right before each of its file-system calls, then the next start: the folder is consistent,
 * as before or after byte for byte, with no temp file or marker left, and a retry saves nothing twice. This file takes
 * every other point (part 1 of 2; crash-extract-1 the rest).
 */
import { describeRecoverPart } from "./recoverSupport.ts"

describeRecoverPart("extract", 0, 2)
