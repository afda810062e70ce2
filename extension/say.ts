/**
 * `say`: one message from the extension to the person, where they look. Its own module so that the session side
 * reports a failure without loading the `/memory` command (extension/command.ts), which loads on its first use.
 */
import type { ExtensionContext } from "@earendil-works/pi-coding-agent"
import { writeSync } from "node:fs"
import { inShellWords } from "./commandInfo.ts"

/**
 * Where `/memory` output goes: the UI when there is one; in print mode (`pi -p`), where notify is a no-op, stdout for
 * output and stderr for warnings, so a script sees what a person would. Pi routes `process.stdout.write` to stderr in
 * print mode (stdout is the answer's), so output is written to descriptor 1 directly. Other modes without a UI (json,
 * rpc) own stdout for their protocol: everything goes to stderr there.
 */
export const say = (ctx: ExtensionContext, text: string, level: "info" | "warning" | "error" = "info"): void => {
  if (ctx.hasUI) return ctx.ui.notify(text, level)
  // A print-mode run is started from a shell: the commands it names are pm's.
  if (ctx.mode === "print") text = inShellWords(text)
  if (level === "info" && ctx.mode === "print") {
    try {
      writeSync(1, `${text}\n`)
      return
    } catch {
      // A closed or non-blocking stdout: stderr still reaches the person.
    }
  }
  process.stderr.write(`${text}\n`)
}
