/**
 * Real `pi` processes for the end-to-end tests of the background agents: the built extension (`dist/extension.ts`)
 * and the strict provider's model (declared in the agent directory's models.json), with their stdout, stderr, exit and
 * the moment their answer reached stdout. Also the test side of a script for the strict provider, and the socat
 * processes a Pi's sandbox started (found by the agent directory in their environment, which they inherit).
 */
import { type ChildProcess, spawn } from "node:child_process"
import { readdirSync, readFileSync } from "node:fs"
import { join } from "node:path"
import { repoRoot } from "../support/pm.ts"
import type { StrictRequest } from "../support/strictProvider.ts"
import { SELECTOR_MARK, TOOLS_HEADING } from "./harness.ts"

export const PI = join(repoRoot, "node_modules", "@earendil-works", "pi-coding-agent", "dist", "bundle", "cli.js")

export interface PiRun {
  readonly child: ChildProcess
  /** Resolves when the first bytes of the answer reach stdout. */
  readonly answered: Promise<void>
  readonly exited: Promise<{ readonly code: number | null; readonly signal: NodeJS.Signals | null; readonly stdout: string; readonly stderr: string }>
}

export const startPi = (
  args: ReadonlyArray<string>,
  cwd: string,
  agentDir: string,
  options: { readonly env?: Record<string, string>; readonly extensions?: ReadonlyArray<string> } = {}
): PiRun => {
  const extensions = [join(repoRoot, "dist", "extension.ts"), ...(options.extensions ?? [])].flatMap((e) => ["-e", e])
  const child = spawn(process.execPath, [PI, ...extensions, "--model", "strict/strict-1", ...args], {
    cwd,
    env: { ...process.env, PI_CODING_AGENT_DIR: agentDir, HOME: agentDir, PI_OFFLINE: "1", NO_COLOR: "1", ...options.env },
    stdio: ["ignore", "pipe", "pipe"]
  })
  let stdout = ""
  let stderr = ""
  let answer!: () => void
  const answered = new Promise<void>((resolve) => (answer = resolve))
  child.stdout!.setEncoding("utf8").on("data", (c: string) => {
    answer()
    stdout += c
  })
  child.stderr!.setEncoding("utf8").on("data", (c: string) => void (stderr += c))
  const exited = new Promise<Awaited<PiRun["exited"]>>((resolve) => child.on("exit", (code, signal) => resolve({ code, signal, stdout, stderr })))
  return { child, answered, exited }
}

/**
 * Waits for `run` to exit, but no longer than `boundMs` after its answer: past that it is killed, and the result says
 * so (`signal: "SIGKILL"`), so a process that never exits fails its test instead of hanging it.
 */
export const exitWithin = async (run: PiRun, boundMs: number) => {
  let timer: NodeJS.Timeout | undefined
  let done = false
  void run.answered.then(() => void (done || (timer = setTimeout(() => run.child.kill("SIGKILL"), boundMs))))
  const result = await run.exited
  done = true
  clearTimeout(timer)
  return result
}

export const textOf = (m: any): string =>
  typeof m.content === "string" ? m.content : (m.content ?? []).filter((b: any) => b.type === "text").map((b: any) => b.text).join("")

export const kindOf = (r: StrictRequest): "selector" | "background" | "main" =>
  r.system.includes(SELECTOR_MARK)
    ? "selector"
    : r.system.includes(TOOLS_HEADING) || r.messages.some((m: any) => m.role === "user" && textOf(m).includes(TOOLS_HEADING))
    ? "background"
    : "main"

/** The pids of live socat processes whose environment names `agentDir` (started by a Pi of that agent directory). */
export const socatsOf = (agentDir: string): ReadonlyArray<number> => {
  const mark = `\0PI_CODING_AGENT_DIR=${agentDir}\0`
  const found: Array<number> = []
  for (const name of readdirSync("/proc")) {
    if (!/^\d+$/.test(name)) continue
    try {
      if (readFileSync(`/proc/${name}/comm`, "utf8").trim() !== "socat") continue
      if (`\0${readFileSync(`/proc/${name}/environ`, "utf8")}\0`.includes(mark)) found.push(Number(name))
    } catch {
      // Gone meanwhile, or not ours to read.
    }
  }
  return found
}
