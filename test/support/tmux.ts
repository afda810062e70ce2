/**
 * A program in a real terminal for the tests: tmux (its own server, on a socket of the test's) runs it in a pane of a
 * fixed size; keys are sent one `send-keys` at a time, as a person types them, and the screen is read as tmux draws
 * it (`capture-pane`). Waiting is on events: every chunk the program writes reaches the test through `pipe-pane` and a
 * FIFO, and the screen is read again after each, until it shows what the test waits for.
 */
import { spawn } from "node:child_process"
import { createReadStream } from "node:fs"
import { join } from "node:path"
import { run } from "./install.ts"
import { tempDir } from "./tmp.ts"

export interface Terminal {
  /** The screen as drawn now, one line a row, trailing spaces removed. */
  readonly screen: () => Promise<string>
  /** Types `text` one character a `send-keys`, so the program reads each key on its own. */
  readonly type: (text: string) => Promise<void>
  /** Sends one named key (tmux's names: Enter, Escape, Tab...). */
  readonly key: (name: string) => Promise<void>
  /** Resolves with the screen once `test` holds for it, read after each chunk the program writes. */
  readonly waitFor: (test: (screen: string) => boolean) => Promise<string>
  readonly close: () => Promise<void>
}

const tmux = async (socket: string, ...args: Array<string>): Promise<string> => {
  const r = await run("tmux", ["-S", socket, ...args], { timeoutMs: 600_000 })
  if (r.code !== 0) throw new Error(`tmux ${args.join(" ")} failed (${r.code}): ${r.stderr}`)
  return r.stdout
}

/** Starts `argv` in a terminal of `width` x `height` in `cwd`, with exactly `env` added to tmux's environment. */
export const startTerminal = async (
  argv: ReadonlyArray<string>,
  options: { readonly cwd: string; readonly env: Readonly<Record<string, string>>; readonly width?: number; readonly height?: number }
): Promise<Terminal> => {
  const dir = tempDir("pm-tmux-")
  const socket = join(dir, "socket")
  const fifo = join(dir, "output")
  const made = await run("mkfifo", [fifo])
  if (made.code !== 0) throw new Error(`mkfifo failed: ${made.stderr}`)
  const env = Object.entries(options.env).map(([k, v]) => `${k}=${v}`)
  // The pane starts a shell-less `env`, which holds it still until the output pipe is attached, then runs the program.
  const gate = join(dir, "gate")
  const gated = await run("mkfifo", [gate])
  if (gated.code !== 0) throw new Error(`mkfifo failed: ${gated.stderr}`)
  await tmux(socket, "-f", "/dev/null", "new-session", "-d", "-s", "t", "-x", String(options.width ?? 200), "-y", String(options.height ?? 50), "-c", options.cwd,
    "sh", "-c", 'read _ < "$0"; exec "$@"', gate, "env", ...env, ...argv)
  await tmux(socket, "pipe-pane", "-O", "-t", "t", `cat > '${fifo}'`)
  const output = createReadStream(fifo)
  // Kept flowing between waits, so that the pipe never fills.
  output.on("data", () => undefined)
  // Releases the pane's program: it starts only now that every byte it writes reaches the FIFO.
  const release = spawn("sh", ["-c", 'echo go > "$0"', gate], { stdio: "ignore" })
  await new Promise((resolve) => release.on("close", resolve))

  const screen = async () => (await tmux(socket, "capture-pane", "-p", "-t", "t")).split("\n").map((l) => l.trimEnd()).join("\n")
  const waitFor = (test: (screen: string) => boolean): Promise<string> =>
    new Promise((resolve, reject) => {
      let reading = false
      let again = false
      const check = async (): Promise<void> => {
        if (reading) return void (again = true)
        reading = true
        try {
          do {
            again = false
            const now = await screen()
            if (test(now)) {
              output.off("data", onData)
              output.off("end", onEnd)
              return resolve(now)
            }
          } while (again)
        } catch (e) {
          reject(e)
        } finally {
          reading = false
        }
      }
      const onData = () => void check()
      const onEnd = () => void screen().then((s) => reject(new Error(`the program's output ended before the screen showed what was awaited:\n${s}`)), reject)
      output.on("data", onData)
      output.on("end", onEnd)
      void check()
    })
  return {
    screen,
    type: async (text) => {
      for (const c of text) await tmux(socket, "send-keys", "-t", "t", "-l", c)
    },
    key: async (name) => void (await tmux(socket, "send-keys", "-t", "t", name)),
    waitFor,
    close: async () => {
      await run("tmux", ["-S", socket, "kill-server"])
      output.destroy()
    }
  }
}
