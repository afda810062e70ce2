/**
 * The background tools' spawn points inside the OS sandbox (layers/safety/Sandbox.ts, policy in src/safety/sandbox*.ts):
 *
 * - `bash`: Pi's own bash tool with operations of ours. Each command is wrapped by the sandbox under the task's
 *   file-system policy (only the task's read scope shown, read-only; credential stores and the protected files found
 *   in its trees hidden; nothing of the host writable) and run by Pi's local shell in the scrubbed environment. Pi's
 *   shell starts it in a process group of its own and kills the group on interruption or timeout: bubblewrap dies, and
 *   with it (its child dies with its parent, and the sandbox has its own process namespace) everything inside.
 *   Each command is bounded (src/safety/commandLimits.ts): its `ulimit`s come with the sandbox's line, and here at
 *   most COMMAND_OUTPUT_BYTES of its output reach Pi and at most COMMAND_PROCESSES processes run below its shell
 *   (../../safety/processWatch.ts); past either it is ended, with a notice for the model as its last output.
 * - `grep`: Pi's grep runs the `rg` it finds itself, with no hook to wrap it, so a sandboxed grep runs `rg --json`
 *   in the sandbox here and formats the matches as Pi's grep does (`path:N: text`, `path-N- text` for context).
 *
 * When the sandbox is unavailable, `sandbox.whenUnavailable` decides: "refuse" refuses `bash` with a reason for the
 * model (grep then runs Pi's own rg behind the in-process checks, as the other tools do), "guard-only" runs both as
 * before, behind the guard alone.
 */
import type { AgentToolResult } from "@earendil-works/pi-agent-core"
import type { BashOperations } from "@earendil-works/pi-coding-agent"
import * as Effect from "effect/Effect"
import { spawn } from "node:child_process"
import { randomUUID } from "node:crypto"
import { readFile, stat } from "node:fs/promises"
import { homedir } from "node:os"
import { basename, dirname, relative, resolve } from "node:path"
import { createInterface } from "node:readline"
import { decodeConfig } from "../../../src/project/config.ts"
import type { ProtectionOptions } from "../../../src/safety/protectedPaths.ts"
import {
  bashUnavailableRefusal,
  DEFAULT_WHEN_UNAVAILABLE,
  type SandboxAvailability,
  sandboxModeLine,
  type WhenUnavailable
} from "../../../src/safety/sandbox.ts"
import { sandboxFilesystem } from "../../../src/safety/sandboxFilesystem.ts"
import { scrubEnvironment, shellQuote } from "../../../src/safety/sandboxProcess.ts"
import { COMMAND_OUTPUT_BYTES, COMMAND_PROCESSES, commandStoppedNotice, PROCESS_WATCH_INTERVAL_MS } from "../../../src/safety/commandLimits.ts"
import { configPathOf, storageRootOf } from "../../../src/storage/layout.ts"
import { resolveToolPath } from "../../../src/safety/toolPath.ts"
import { agentDirFromEnv } from "../../project/ConfigService.ts"
import { watchProcesses } from "../../safety/processWatch.ts"
import { programPath, withCurrentHomeDotEntries } from "../../safety/readScopeLoad.ts"
import { makeProtectedSearchCache, protectedFilesIn } from "../../safety/protectedSearch.ts"
import { defaultSandbox, sandboxAvailability, type SandboxShape } from "../../safety/Sandbox.ts"
import type { PiToolkitShape } from "../PiToolkit.ts"

type ToolResult = AgentToolResult<unknown>

export interface SandboxedToolsOptions {
  readonly sandbox: SandboxShape
  readonly pi: Pick<PiToolkitShape, "createLocalBashOperations">
  readonly cwd: string
  readonly memoryDir: string
  readonly protection: ProtectionOptions
  readonly whenUnavailable: WhenUnavailable
}

export interface SandboxedTools {
  readonly availability: SandboxAvailability
  /** Operations for Pi's bash tool: sandboxed, or undefined (Pi's own local shell, guard-only mode). */
  readonly bashOperations: BashOperations | undefined
  /** Set when the bash tool is refused (no sandbox, "refuse"): what the model is told. */
  readonly bashRefusal: string | undefined
  /** grep through a sandboxed rg, or undefined (Pi's own grep). */
  readonly grep: ((args: Record<string, unknown>, signal: AbortSignal) => Promise<ToolResult>) | undefined
  /** Ends the tools' sandbox session (the task ended). */
  readonly close: () => Promise<void>
}

/** Runs one command line (the sandbox's) with `bash -c` in its own process group; the group is killed on abort. */
const runLine = (
  line: string,
  cwd: string,
  env: Record<string, string>,
  signal: AbortSignal,
  onLine: (line: string) => boolean
): Promise<{ readonly code: number | null; readonly stderr: string; readonly aborted: boolean }> =>
  new Promise((resolvePromise, reject) => {
    if (signal.aborted) return reject(new Error("Operation aborted"))
    const child = spawn("bash", ["-c", line], { cwd, env, detached: true, stdio: ["ignore", "pipe", "pipe"] })
    let stderr = ""
    let stopped = false
    const kill = () => {
      if (child.pid !== undefined) {
        try {
          process.kill(-child.pid, "SIGKILL")
        } catch {
          // already gone
        }
      }
    }
    const onAbort = () => {
      stopped = true
      kill()
    }
    signal.addEventListener("abort", onAbort, { once: true })
    child.stderr.on("data", (d: Buffer) => void (stderr.length < 64_000 && (stderr += d.toString())))
    const lines = createInterface({ input: child.stdout })
    lines.on("line", (l) => {
      if (!onLine(l)) kill()
    })
    child.on("error", (e) => {
      signal.removeEventListener("abort", onAbort)
      reject(e)
    })
    child.on("close", (code) => {
      signal.removeEventListener("abort", onAbort)
      lines.close()
      resolvePromise({ code, stderr, aborted: stopped })
    })
  })

/** What the model is told when the search for protected files did not finish: part of the tree is hidden. */
export const uncheckedNotice = (folders: number): string =>
  `[${folders} folder(s) of this project were hidden from the command: the project is too large to check them all for credential files]`

type ExecOptions = Parameters<BashOperations["exec"]>[2]

/**
 * One sandboxed line through Pi's local shell, bounded on the host: at most COMMAND_OUTPUT_BYTES reach Pi (its
 * full-output file included, the notice counted), and at most COMMAND_PROCESSES processes run below the shell. Past
 * either bound the command's process group is ended (through the signal Pi's shell listens to), the model reads a
 * notice at the end of the output, and the command ends as a failed one.
 */
const execBounded = async (local: BashOperations, line: string, cwd: string, o: ExecOptions): Promise<{ exitCode: number | null }> => {
  const stop = new AbortController()
  const onOuterAbort = () => stop.abort()
  if (o.signal?.aborted === true) stop.abort()
  o.signal?.addEventListener("abort", onOuterAbort, { once: true })
  let stopped: "output" | "processes" | undefined
  let forwarded = 0
  const end = (why: "output" | "processes") => {
    if (stopped !== undefined) return
    stopped = why
    o.onData(Buffer.from(commandStoppedNotice(why)))
    stop.abort()
  }
  const room = COMMAND_OUTPUT_BYTES - Buffer.byteLength(commandStoppedNotice("output"))
  const onData = (data: Buffer) => {
    if (stopped !== undefined) return
    if (forwarded + data.length > room) {
      o.onData(data.subarray(0, room - forwarded))
      forwarded = room
      return end("output")
    }
    forwarded += data.length
    o.onData(data)
  }
  const marker = `PM_SANDBOX_COMMAND=${randomUUID()}`
  const env = { ...scrubEnvironment(o.env ?? process.env), PM_SANDBOX_COMMAND: marker.slice("PM_SANDBOX_COMMAND=".length) }
  const watch = watchProcesses({ marker, bound: COMMAND_PROCESSES, intervalMs: PROCESS_WATCH_INTERVAL_MS, onExceeded: () => end("processes") })
  try {
    return await local.exec(line, cwd, { ...o, onData, signal: stop.signal, env })
  } catch (e) {
    // Ended here for a bound (not by the caller): a failed command, with the notice as its last output.
    if (stopped !== undefined && o.signal?.aborted !== true) return { exitCode: 137 }
    throw e
  } finally {
    watch.stop()
    o.signal?.removeEventListener("abort", onOuterAbort)
  }
}

const GREP_DEFAULT_LIMIT = 100
const GREP_LINE_CHARS = 500
/** rg's message for a file it may not open. */
const DENIED = /Permission denied|Operation not permitted|os error (?:1|13)\)/

const decodeText = (data: { text?: string; bytes?: string } | undefined): string =>
  typeof data?.text === "string" ? data.text : typeof data?.bytes === "string" ? Buffer.from(data.bytes, "base64").toString("utf8") : ""

export const makeSandboxedTools = async (options: SandboxedToolsOptions): Promise<SandboxedTools> => {
  const { sandbox, cwd, memoryDir, protection } = options
  const session = await Effect.runPromise(sandbox.open)
  const { availability } = session
  const close = () => Effect.runPromise(session.close)
  if (availability._tag === "Unavailable") {
    return {
      availability,
      bashOperations: undefined,
      bashRefusal: options.whenUnavailable === "refuse" ? bashUnavailableRefusal(availability) : undefined,
      grep: undefined,
      close
    }
  }
  // The `rg` the grep tool runs, found as Pi finds it (its own in the agent folder's bin/ first), and shown to the sandbox.
  // A failure here lets the sandbox go again: a session held would keep its runtime (and the process) alive.
  const rg = await programPath("rg", protection.agentDir).catch(async (e: unknown) => {
    await close()
    throw e
  })
  const programs = rg === undefined ? [] : [dirname(rg)]
  /**
   * The policy of one command: the protected files are looked for again each time (a file may have appeared); with a
   * scope, in its trees, else in the project, the memory folder and the top of the home folder.
   */
  // What the searches learned of the project's folders, kept for the task's commands (read again when a folder changes).
  const searched = makeProtectedSearchCache()
  const policy = async () => {
    // The home's dot entries as they are now: one created since the task started is hidden too.
    const current = protection.scope === undefined ? protection : { ...protection, scope: await withCurrentHomeDotEntries(protection.scope) }
    const roots = current.scope?.trees ?? [cwd, memoryDir, protection.home]
    const search = await protectedFilesIn(roots, current, undefined, searched)
    return { filesystem: sandboxFilesystem(current, search.found, { unchecked: search.unchecked, programs }), unchecked: search.unchecked }
  }
  const local = options.pi.createLocalBashOperations()

  const bashOperations: BashOperations = {
    exec: async (command, execCwd, o) => {
      const { filesystem, unchecked } = await policy()
      const line = await Effect.runPromise(session.wrap(command, filesystem, o.signal))
      if (unchecked.length > 0) o.onData(Buffer.from(`${uncheckedNotice(unchecked.length)}\n`))
      return execBounded(local, line, execCwd, o)
    }
  }

  const grep = async (args: Record<string, unknown>, signal: AbortSignal): Promise<ToolResult> => {
    const pattern = String(args["pattern"] ?? "")
    const raw = typeof args["path"] === "string" && args["path"] !== "" ? args["path"] : "."
    const searched = resolveToolPath(raw, cwd, homedir()) ?? resolve(cwd, raw)
    const isDirectory = await stat(searched).then((s) => s.isDirectory(), () => undefined)
    if (isDirectory === undefined) throw new Error(`Path not found: ${searched}`)
    const limit = Math.max(1, Math.floor(typeof args["limit"] === "number" ? args["limit"] : GREP_DEFAULT_LIMIT))
    const context = typeof args["context"] === "number" && args["context"] > 0 ? Math.floor(args["context"]) : 0
    const rgArgs = ["--no-config", "--json", "--line-number", "--color=never", "--hidden"]
    if (args["ignoreCase"] === true) rgArgs.push("--ignore-case")
    if (args["literal"] === true) rgArgs.push("--fixed-strings")
    if (typeof args["glob"] === "string" && args["glob"] !== "") rgArgs.push("--glob", args["glob"].replace(/^(!?)(?:\.\/)+/, "$1"))
    if (context > 0) rgArgs.push("--context", String(context))
    rgArgs.push("--", pattern, isDirectory ? "." : searched)
    const { filesystem, unchecked } = await policy()
    const line = await Effect.runPromise(session.wrap(`exec ${shellQuote(rg ?? "rg")} ${rgArgs.map(shellQuote).join(" ")}`, filesystem, signal))
    const label = (file: string) => {
      if (isDirectory) {
        const rel = relative(searched, resolve(searched, file))
        if (rel !== "" && !rel.startsWith("..")) return rel.split("\\").join("/")
      }
      return basename(file)
    }
    const out: Array<string> = []
    let matches = 0
    let bytes = 0
    let limitReached = false
    let bytesCut = false
    let linesCut = false
    let trailingEnd = 0
    let lastFile = ""
    const MAX_BYTES = 50 * 1024
    const push = (file: string, n: number, text: string, match: boolean) => {
      lastFile = file
      let body = text.replace(/\r?\n?$/, "")
      if (body.length > GREP_LINE_CHARS) {
        body = `${body.slice(0, GREP_LINE_CHARS)}... [truncated]`
        linesCut = true
      }
      const row = match ? `${label(file)}:${n}: ${body}` : `${label(file)}-${n}- ${body}`
      const size = Buffer.byteLength(row, "utf8") + 1
      if (bytes + size > MAX_BYTES) bytesCut = true
      else out.push(row)
      bytes += size
    }
    const result = await runLine(line, isDirectory ? searched : cwd, scrubEnvironment(process.env), signal, (l) => {
      let event: { type?: string; data?: { path?: { text?: string }; line_number?: number; lines?: { text?: string } } }
      try {
        event = JSON.parse(l)
      } catch {
        return true
      }
      if (event.type !== "match" && event.type !== "context") return true
      const file = decodeText(event.data?.path)
      const n = event.data?.line_number
      if (file === "" || typeof n !== "number") return true
      const isMatch = event.type === "match"
      if (matches < limit) {
        push(file, n, decodeText(event.data?.lines), isMatch)
        if (isMatch && ++matches >= limit) trailingEnd = n + context
        return true
      }
      const inWindow = file === lastFile && n <= trailingEnd
      if (inWindow) push(file, n, decodeText(event.data?.lines), false)
      if (isMatch) limitReached = true
      return !(limitReached && !(inWindow && n < trailingEnd))
    })
    if (result.aborted) throw new Error("Operation aborted")
    // rg exits 2 when some file could not be read; files the sandbox denies are that, and are no failure of the search.
    const problems = result.stderr.split("\n").filter((l) => l.trim() !== "")
    const denied = problems.filter((l) => DENIED.test(l)).length
    if (!limitReached && result.code !== 0 && result.code !== 1 && result.code !== null && (denied === 0 || denied < problems.length)) {
      throw new Error(result.stderr.trim() || `ripgrep exited with code ${result.code}`)
    }
    const unread = denied === 0 ? "" : `\n\n[${denied} file(s) were not searched: the sandbox keeps credential stores unreadable]`
    const hidden = unchecked.length > 0 ? `\n\n${uncheckedNotice(unchecked.length)}` : ""
    if (matches === 0) return { content: [{ type: "text", text: `No matches found${unread}${hidden}` }], details: undefined }
    const notices: Array<string> = []
    if (limitReached) notices.push(`${limit} matches limit reached. Use limit=${limit * 2} for more, or refine pattern`)
    if (bytesCut) notices.push("50.0KB limit reached")
    if (linesCut) notices.push(`Some lines truncated to ${GREP_LINE_CHARS} chars. Use read tool to see full lines`)
    if (unchecked.length > 0) notices.push(uncheckedNotice(unchecked.length).slice(1, -1))
    const text = out.join("\n") + (notices.length > 0 ? `\n\n[${notices.join(". ")}]` : "") + unread
    return { content: [{ type: "text", text }], details: undefined }
  }

  return { availability, bashOperations, bashRefusal: undefined, grep, close }
}

/** `sandbox.whenUnavailable` of the user's config.json (the default when the file or the key is missing). */
export const loadWhenUnavailable = async (): Promise<WhenUnavailable> => {
  const home = homedir()
  const configPath = configPathOf(storageRootOf(agentDirFromEnv(process.env, home)))
  const text = await readFile(configPath, "utf8").catch(() => undefined)
  return text === undefined ? DEFAULT_WHEN_UNAVAILABLE : decodeConfig(configPath, text, home).config.sandbox.whenUnavailable
}

/** The sandbox's line for `/memory status`: the mode in force and how to get the sandbox. */
export const sandboxStatusLine = async (sandbox: SandboxShape = defaultSandbox()): Promise<string> =>
  sandboxModeLine(await Effect.runPromise(sandboxAvailability(sandbox)), await loadWhenUnavailable())
