/**
 * What the sandbox needs to know of, or leave on, the host (Linux):
 *
 * - `bwrapTakesSizeHere`: whether the installed bubblewrap takes `--size` (asked once, by `bwrap --version`).
 * - `socatLauncher`: the runtime always starts a host-side `socat` bridge, even though our commands never use it
 *   (they run with `--unshare-net`). Started as the runtime does, it would outlive a Pi killed with SIGKILL. The
 *   launcher, written once per process into a private temporary folder (removed at exit), runs socat under
 *   `setpriv --pdeathsig KILL`: the kernel kills it when Pi dies, however Pi ends. Without setpriv there is no
 *   launcher and the runtime's own socat runs (it then dies only when Pi exits normally).
 */
import { execFileSync } from "node:child_process"
import { accessSync, constants, mkdtempSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { delimiter, join } from "node:path"
import { bwrapTakesSize } from "../../src/safety/commandLimits.ts"
import { shellQuote } from "../../src/safety/sandboxProcess.ts"

/** The absolute path of `name` on PATH, if it is there and executable. */
export const onPath = (name: string, path = process.env["PATH"] ?? "/usr/bin:/bin"): string | undefined => {
  for (const dir of path.split(delimiter)) {
    if (dir === "") continue
    const full = join(dir, name)
    try {
      accessSync(full, constants.X_OK)
      return full
    } catch {
      // not here
    }
  }
  return undefined
}

let takesSize: boolean | undefined
/** Whether the bubblewrap on PATH takes `--size` (0.8 and later); asked once per process. */
export const bwrapTakesSizeHere = (): boolean =>
  (takesSize ??= (() => {
    try {
      return bwrapTakesSize(execFileSync("bwrap", ["--version"], { encoding: "utf8", timeout: 5_000, stdio: ["ignore", "pipe", "ignore"] }))
    } catch {
      return false
    }
  })())

/** The launcher's text: socat, dying with its parent. */
export const socatLauncherScript = (setpriv: string, socat: string): string =>
  `#!/bin/sh\n# Runs socat so that it dies with the process that started it (pi-project-memory).\nexec ${shellQuote(setpriv)} --pdeathsig KILL -- ${shellQuote(socat)} "$@"\n`

let launcher: string | null | undefined
/** The launcher's path (written at the first call), or undefined without setpriv or socat. */
export const socatLauncher = (): string | undefined => {
  if (launcher !== undefined) return launcher ?? undefined
  const setpriv = onPath("setpriv")
  const socat = onPath("socat")
  if (process.platform !== "linux" || setpriv === undefined || socat === undefined) {
    launcher = null
    return undefined
  }
  try {
    const dir = mkdtempSync(join(tmpdir(), "pm-socat-"))
    const file = join(dir, "socat")
    writeFileSync(file, socatLauncherScript(setpriv, socat), { mode: 0o700 })
    process.once("exit", () => rmSync(dir, { recursive: true, force: true }))
    launcher = file
    return file
  } catch {
    launcher = null
    return undefined
  }
}
