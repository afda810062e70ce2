/** Helpers for the tests that use real child processes and real temp directories. */
import { type ChildProcess, spawn } from "node:child_process"
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { fileURLToPath } from "node:url"

export const WORKER = fileURLToPath(new URL("./worker.ts", import.meta.url))

export const tempDir = (prefix: string): { readonly path: string; readonly [Symbol.dispose]: () => void } => {
  const path = mkdtempSync(join(tmpdir(), `pm-${prefix}-`))
  return { path, [Symbol.dispose]: () => rmSync(path, { recursive: true, force: true }) }
}

export interface Worker {
  readonly child: ChildProcess
  readonly pid: number
  /** Resolves with the first JSON line satisfying `predicate`. */
  readonly waitFor: (predicate: (line: Record<string, unknown>) => boolean, timeoutMs?: number) => Promise<Record<string, unknown>>
  /** Resolves with the exit code (or signal name). */
  readonly exited: Promise<number | string>
  readonly lines: ReadonlyArray<Record<string, unknown>>
  readonly stderr: () => string
}

export const startWorker = (mode: string, args: Record<string, unknown>): Worker => {
  const child = spawn(process.execPath, [WORKER, mode, JSON.stringify(args)], { stdio: ["ignore", "pipe", "pipe"] })
  const lines: Array<Record<string, unknown>> = []
  const waiters: Array<{ predicate: (line: Record<string, unknown>) => boolean; resolve: (line: Record<string, unknown>) => void }> = []
  let buffer = ""
  let errors = ""
  child.stdout!.setEncoding("utf8").on("data", (chunk: string) => {
    buffer += chunk
    let newline: number
    while ((newline = buffer.indexOf("\n")) !== -1) {
      const line = JSON.parse(buffer.slice(0, newline)) as Record<string, unknown>
      buffer = buffer.slice(newline + 1)
      lines.push(line)
      for (const waiter of [...waiters]) {
        if (waiter.predicate(line)) {
          waiters.splice(waiters.indexOf(waiter), 1)
          waiter.resolve(line)
        }
      }
    }
  })
  child.stderr!.setEncoding("utf8").on("data", (chunk: string) => {
    errors += chunk
  })
  const exited = new Promise<number | string>((resolve) => {
    child.on("exit", (code, signal) => resolve(code ?? signal ?? -1))
  })
  // The bound only keeps a stuck worker from hanging the test: a worker loading its TypeScript sources took over 20 s
  // to start at load average 17.
  const waitFor = (predicate: (line: Record<string, unknown>) => boolean, timeoutMs = 60_000) =>
    new Promise<Record<string, unknown>>((resolve, reject) => {
      const seen = lines.find(predicate)
      if (seen !== undefined) return resolve(seen)
      const timer = setTimeout(() => reject(new Error(`worker ${mode} timed out; stderr: ${errors}`)), timeoutMs)
      waiters.push({
        predicate,
        resolve: (line) => {
          clearTimeout(timer)
          resolve(line)
        }
      })
      void exited.then((code) => {
        clearTimeout(timer)
        reject(new Error(`worker ${mode} exited (${code}) before the expected line; stderr: ${errors}`))
      })
    })
  return { child, pid: child.pid!, waitFor, exited, lines, stderr: () => errors }
}

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))
