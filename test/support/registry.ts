/**
 * A local npm registry, for the install tests and benches: verdaccio (the dev dependency) in a child process on
 * 127.0.0.1 (test/fixtures/registry.mjs), with its configuration, storage and users in a folder of the caller's.
 * This package is served only as it was published there; every other name is fetched through it from the registry
 * npm is configured with (its uplink), so an install from it reaches the network only for what a real one does.
 *
 * `publish` runs `npm publish` of a tarball with a user made on the registry; `npmEnv` is what a person's shell has
 * after pointing npm at it (`npm_config_registry`), with a cache of the caller's choosing. No vitest imports (benches
 * use it too).
 */
import { spawn } from "node:child_process"
import { writeFileSync } from "node:fs"
import { join } from "node:path"
import { repoRoot, run } from "./install.ts"

export interface LocalRegistry {
  /** The registry's address, with its trailing slash: http://127.0.0.1:PORT/ */
  readonly url: string
  readonly close: () => Promise<void>
}

/** The registry npm itself would use here (the uplink). */
const upstream = async (): Promise<string> => {
  const r = await run("npm", ["config", "get", "registry"], { cwd: repoRoot })
  const url = r.code === 0 ? r.stdout.trim() : ""
  return url.startsWith("http") ? url : "https://registry.npmjs.org/"
}

/** Starts verdaccio with its files under `dir`; resolves once it listens (its own line on stdout says so). */
export const startRegistry = async (dir: string): Promise<LocalRegistry> => {
  const config = join(dir, "config.yaml")
  writeFileSync(
    config,
    [
      `storage: ${JSON.stringify(join(dir, "storage"))}`,
      "auth:",
      "  htpasswd:",
      `    file: ${JSON.stringify(join(dir, "htpasswd"))}`,
      "uplinks:",
      "  upstream:",
      `    url: ${JSON.stringify(await upstream())}`,
      "    timeout: 60s",
      "packages:",
      // Our own name never falls through to the real registry: only what the test published is served.
      "  'pi-project-memory':",
      "    access: $all",
      "    publish: $authenticated",
      "  '**':",
      "    access: $all",
      "    publish: $authenticated",
      "    proxy: upstream",
      "web:",
      "  enable: false",
      "log: { type: stdout, format: pretty, level: error }",
      ""
    ].join("\n")
  )
  const child = spawn(process.execPath, [join(repoRoot, "test", "fixtures", "registry.mjs"), config], {
    cwd: dir,
    stdio: ["ignore", "pipe", "pipe"]
  })
  let stderr = ""
  child.stderr.setEncoding("utf8").on("data", (c: string) => void (stderr += c))
  const exited = new Promise<void>((resolve) => child.on("exit", () => resolve()))
  const port = await new Promise<number>((resolve, reject) => {
    let stdout = ""
    child.stdout.setEncoding("utf8").on("data", (c: string) => {
      stdout += c
      const m = /^listening (\d+)$/m.exec(stdout)
      if (m !== null) resolve(Number(m[1]))
    })
    child.on("exit", (code) => reject(new Error(`the local registry exited (${code}) before it listened:\n${stderr}`)))
  })
  return {
    url: `http://127.0.0.1:${port}/`,
    close: async () => {
      child.kill("SIGKILL")
      await exited
    }
  }
}

/** The environment of a shell whose npm uses `registry`, with npm's cache in `cache`. */
export const npmEnv = (registry: LocalRegistry, cache: string): NodeJS.ProcessEnv => ({
  npm_config_registry: registry.url,
  npm_config_cache: cache,
  npm_config_audit: "false",
  npm_config_fund: "false",
  npm_config_update_notifier: "false"
})

/** Makes a user on the registry and publishes `tarball` as that user; `dir` holds the user's npm settings. */
export const publish = async (registry: LocalRegistry, tarball: string, dir: string): Promise<void> => {
  const name = "pm-test"
  const added = await fetch(new URL(`-/user/org.couchdb.user:${name}`, registry.url), {
    method: "PUT",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ name, password: "pm-test-password", type: "user", roles: [] })
  })
  const { token } = (await added.json()) as { token?: string }
  if (!added.ok || token === undefined) throw new Error(`the local registry refused a new user (${added.status})`)
  const npmrc = join(dir, ".npmrc")
  writeFileSync(npmrc, `//${new URL(registry.url).host}/:_authToken=${token}\n`)
  const r = await run("npm", ["publish", tarball, "--registry", registry.url, "--userconfig", npmrc, "--no-provenance"], {
    cwd: dir,
    env: { ...process.env, npm_config_cache: join(dir, "npm-cache") }
  })
  if (r.code !== 0) throw new Error(`npm publish to the local registry failed (${r.code}):\n${r.stderr}`)
}
