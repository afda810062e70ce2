/**
 * `forget` killed (SIGKILL) right before each of its file-system calls, then the next start: the folder is consistent,
 * as before or after byte for byte, with no temp file or marker left, and a retry saves nothing twice. This file takes
 * every other point (part 2 of 2; crash-forget-0 the others).
 */
import { describeRecoverPart } from "./recoverSupport.ts"

describeRecoverPart("forget", 1, 2)
