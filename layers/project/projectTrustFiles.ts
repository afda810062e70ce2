/**
 * What `pm status`, `pm doctor` and the extension in print mode read to say why Pi trusts a project or not (the rule
 * is src/project/projectTrust.ts): the project's resources that need trust, trust.json and settings.json.
 */
import { existsSync, readFileSync, realpathSync } from "node:fs"
import { homedir } from "node:os"
import { dirname, join, resolve } from "node:path"
import { type DefaultProjectTrust, TRUST_REQUIRING_PI_ENTRIES, type TrustVerdict, trustVerdict } from "../../src/project/projectTrust.ts"

const canonical = (path: string): string => {
  try {
    return realpathSync(path)
  } catch {
    return resolve(path)
  }
}

const readJsonObject = (path: string): Record<string, unknown> => {
  try {
    const parsed: unknown = JSON.parse(readFileSync(path, "utf8").replace(/^\uFEFF/, ""))
    return typeof parsed === "object" && parsed !== null && !Array.isArray(parsed) ? (parsed as Record<string, unknown>) : {}
  } catch {
    return {}
  }
}

/** The resources in `cwd` that make Pi ask for trust: entries of `.pi/`, and `.agents/skills` in cwd or a parent. */
const trustRequiringResources = (cwd: string): ReadonlyArray<string> => {
  const found = TRUST_REQUIRING_PI_ENTRIES.map((e) => join(cwd, ".pi", e)).filter((p) => existsSync(p))
  const userSkills = join(canonical(process.env["HOME"] || homedir()), ".agents", "skills")
  for (let dir = cwd; ; dir = dirname(dir)) {
    const skills = join(dir, ".agents", "skills")
    if (skills !== userSkills && existsSync(skills)) {
      found.push(skills)
      break
    }
    if (dirname(dir) === dir) break
  }
  return found
}

/** The decision saved for `cwd` or its nearest parent with one. */
const savedDecision = (trustFile: string, cwd: string) => {
  const data = readJsonObject(trustFile)
  for (let dir = cwd; ; dir = dirname(dir)) {
    const value = data[dir]
    if (value === true || value === false) return { path: dir, decision: value }
    if (dirname(dir) === dir) return null
  }
}

/** Pi's verdict on the project started in `cwd`, as far as files tell it. */
export const readProjectTrust = (agentDir: string, cwd: string): TrustVerdict => {
  const dir = canonical(cwd)
  const trustFile = join(agentDir, "trust.json")
  const setting = readJsonObject(join(agentDir, "settings.json"))["defaultProjectTrust"]
  const defaultProjectTrust: DefaultProjectTrust = setting === "always" || setting === "never" ? setting : "ask"
  return trustVerdict({ resources: trustRequiringResources(dir), saved: savedDecision(trustFile, dir), defaultProjectTrust, trustFile })
}
