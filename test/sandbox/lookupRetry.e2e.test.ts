/**
 * The sandbox runtime looks bash, bubblewrap, socat and ripgrep up by running `which` under a one-second timeout; on
 * a loaded machine the lookup times out and an installed tool reads as missing. These tests put a `which` first on
 * PATH that fails a given number of lookups before answering, open the real sandbox in a child process, and check
 * that a lookup that failed for a tool on PATH is tried again (the sandbox is available and runs a command), at most
 * LOOKUP_ATTEMPTS times (a lookup that never answers leaves the sandbox unavailable, with the runtime's reason).
 */
import { spawnSync } from "node:child_process"
import { chmodSync, existsSync, readFileSync, writeFileSync } from "node:fs"
import { delimiter, join } from "node:path"
import { describe, expect, it } from "vitest"
import { onPath } from "../../layers/safety/sandboxHost.ts"
import { LOOKUP_ATTEMPTS } from "../../src/safety/sandbox.ts"
import { sandboxGate } from "../support/sandbox.ts"
import { tempDir } from "../support/tmp.ts"

const gate = await sandboxGate()
const CHILD = join(import.meta.dirname, "lookupRetry.child.ts")

interface Outcome {
  readonly availability: { readonly _tag: string; readonly reason?: string }
  readonly output?: string
  /** Each lookup made, in order: the tool's name and whether the `which` failed it. */
  readonly lookups: ReadonlyArray<string>
}

/**
 * Opens the sandbox in a child whose `which` fails the first `failFirst` lookups of `tool` (of any tool when
 * undefined), then answers as the real one.
 */
const openWithFlakyWhich = (failFirst: number, tool?: string): Outcome => {
  const dir = tempDir("pm-which-")
  const realWhich = onPath("which")
  expect(realWhich).toBeDefined()
  const log = join(dir, "lookups.log")
  const match = tool === undefined ? "*" : tool
  writeFileSync(
    join(dir, "which"),
    `#!/bin/sh
case "$1" in
  ${match})
    n=$(grep -c ' failed$' "${log}" 2>/dev/null || true)
    if [ "\${n:-0}" -lt ${failFirst} ]; then echo "$1 failed" >> "${log}"; exit 1; fi ;;
esac
echo "$1 answered" >> "${log}"
exec ${realWhich} "$@"
`
  )
  chmodSync(join(dir, "which"), 0o755)
  const r = spawnSync(process.execPath, ["--experimental-strip-types", "--no-warnings", CHILD], {
    encoding: "utf8",
    env: { ...process.env, PATH: `${dir}${delimiter}${process.env["PATH"] ?? ""}` }
  })
  expect(r.status, r.stderr).toBe(0)
  const lookups = existsSync(log) ? readFileSync(log, "utf8").trim().split("\n") : []
  return { ...(JSON.parse(r.stdout.trim().split("\n").at(-1)!) as Omit<Outcome, "lookups">), lookups }
}

describe.skipIf(gate.skip || process.platform !== "linux")("a tool lookup that fails for an installed tool is tried again", () => {
  it("a shell lookup failing one time fewer than LOOKUP_ATTEMPTS: the sandbox runs the command", () => {
    const o = openWithFlakyWhich(LOOKUP_ATTEMPTS - 1, "bash")
    expect(o.availability._tag).toBe("Available")
    expect(o.output).toBe("ran-inside")
    expect(o.lookups.filter((l) => l === "bash failed")).toHaveLength(LOOKUP_ATTEMPTS - 1)
  })

  it("the dependency check's lookups failing first (ripgrep, bubblewrap, socat): the sandbox still starts", () => {
    const o = openWithFlakyWhich(LOOKUP_ATTEMPTS - 1)
    expect(o.availability._tag).toBe("Available")
    expect(o.output).toBe("ran-inside")
    expect(o.lookups.filter((l) => l.endsWith(" failed")).map((l) => l.split(" ")[0])).not.toContain("bash")
  })

  it("a shell lookup failing LOOKUP_ATTEMPTS times: unavailable with the runtime's reason, after exactly that many tries", () => {
    const o = openWithFlakyWhich(LOOKUP_ATTEMPTS, "bash")
    expect(o.availability._tag).toBe("Unavailable")
    expect(o.availability.reason).toContain("Shell 'bash' not found in PATH")
    expect(o.lookups.filter((l) => l.startsWith("bash "))).toEqual(Array(LOOKUP_ATTEMPTS).fill("bash failed"))
  })
})
