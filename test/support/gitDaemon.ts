/**
 * A local git remote over git's own protocol, for the install tests and benches: a TCP server on 127.0.0.1 at a port
 * the system picks, handing each connection to `git daemon --inetd` over the folder `base` (every repository in it
 * exported). `pi install git:git://127.0.0.1:PORT/owner/repo` then clones as from any git host; Pi takes a file://
 * address for a local path, not a git remote. No vitest imports (benches use it too).
 */
import { spawn } from "node:child_process"
import { createServer, type Socket } from "node:net"

export interface GitDaemon {
  /** git://127.0.0.1:PORT/ */
  readonly url: string
  readonly close: () => Promise<void>
}

export const startGitDaemon = async (base: string): Promise<GitDaemon> => {
  const sockets = new Set<Socket>()
  const server = createServer((socket) => {
    sockets.add(socket)
    const child = spawn("git", ["daemon", "--inetd", "--export-all", `--base-path=${base}`, base], { stdio: ["pipe", "pipe", "ignore"] })
    socket.pipe(child.stdin)
    child.stdout.pipe(socket)
    child.stdin.on("error", () => undefined)
    socket.on("error", () => child.kill("SIGKILL"))
    socket.on("close", () => sockets.delete(socket))
    child.on("exit", () => socket.end())
  })
  const port = await new Promise<number>((resolve, reject) => {
    server.once("error", reject)
    server.listen(0, "127.0.0.1", () => resolve((server.address() as { port: number }).port))
  })
  return {
    url: `git://127.0.0.1:${port}/`,
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy()
        server.close(() => resolve())
      })
  }
}
