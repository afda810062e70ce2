import { mkdirSync, realpathSync, symlinkSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { describe, expect, it } from "vitest"
import { npmrcHasToken, protectedByContent, pypircHasPassword } from "../../src/safety/protectedContent.ts"
import { isProtectedPath, normalizeAbsolute, type ProtectionOptions } from "../../src/safety/protectedPaths.ts"
import { decodeProtectedPaths } from "../../src/safety/protectedPathsConfig.ts"
import { tempDir } from "../support/tmp.ts"

const HOME = "/home/alice"
const AGENT = "/home/alice/.pi/agent"
const base: ProtectionOptions = { home: HOME, agentDir: AGENT }
const isProtected = (p: string, options: ProtectionOptions = base, real?: string): boolean => isProtectedPath(p, options, real).protected

describe("isProtectedPath: built-in rules", () => {
  it("protects .env and .env.* but not the example, sample and template files", () => {
    for (const p of ["/repo/.env", "/repo/.env.local", "/repo/.env.production", "/repo/apps/web/.env.development.local", "/repo/.envrc"]) {
      expect(isProtected(p), p).toBe(true)
    }
    for (const p of ["/repo/.env.example", "/repo/.env.sample", "/repo/.env.template", "/repo/.env.local.example", "/repo/env.ts", "/repo/.environment.md", "/repo/dotenv.md"]) {
      expect(isProtected(p), p).toBe(false)
    }
  })

  it("protects private keys by name: id_* without .pub, *.pem, *.key, *.p12, *.pfx", () => {
    for (const p of ["/repo/id_rsa", "/repo/keys/id_ed25519", "/tmp/id_ecdsa_sk", "/tmp/id_rsa.bak", "/repo/server.pem", "/repo/tls.key", "/repo/cert.p12", "/repo/cert.pfx"]) {
      expect(isProtected(p), p).toBe(true)
    }
    for (const p of ["/repo/id_rsa.pub", "/repo/id_ed25519.pub", "/repo/src/id_map.ts", "/repo/pem.md", "/repo/keyboard.key.md", "/repo/monkey", "/repo/keys.json"]) {
      expect(isProtected(p), p).toBe(false)
    }
  })

  it("protects everything under ~/.ssh, ~/.aws, ~/.gnupg and ~/.config/gcloud, the folders included", () => {
    for (const p of [
      `${HOME}/.ssh`,
      `${HOME}/.ssh/config`,
      `${HOME}/.ssh/known_hosts`,
      `${HOME}/.aws/credentials`,
      `${HOME}/.aws/config`,
      `${HOME}/.gnupg/private-keys-v1.d/ABC.key`,
      `${HOME}/.config/gcloud`,
      `${HOME}/.config/gcloud/application_default_credentials.json`
    ]) {
      expect(isProtected(p), p).toBe(true)
    }
    for (const p of [`${HOME}/.sshrc-notes.md`, `${HOME}/.aws-notes/readme.md`, `${HOME}/.config/gcloud-tools/x.md`, `${HOME}/.config`, "/srv/.ssh-backup.md", "/other/.aws/credentials.md"]) {
      expect(isProtected(p), p).toBe(false)
    }
  })

  it("protects .netrc and Pi's own auth.json, not an auth.json elsewhere", () => {
    expect(isProtected(`${HOME}/.netrc`)).toBe(true)
    expect(isProtected("/repo/.netrc")).toBe(true)
    expect(isProtected(`${AGENT}/auth.json`)).toBe(true)
    expect(isProtected(`${AGENT}/models.json`)).toBe(true)
    expect(isProtected("/repo/src/auth.json")).toBe(false)
    expect(isProtected(`${AGENT}/project-memory/config.json`)).toBe(false)
  })

  it("ignores case in names and folders", () => {
    for (const p of ["/repo/.ENV", "/repo/.Env.Local", "/repo/ID_RSA", "/repo/Server.PEM", `${HOME}/.SSH/id_x`, `${HOME}/.Aws/Credentials`, `${AGENT}/AUTH.JSON`, "/repo/.NETRC"]) {
      expect(isProtected(p), p).toBe(true)
    }
    expect(isProtected("/repo/.ENV.EXAMPLE")).toBe(false)
  })

  it("normalizes trailing slashes, doubled slashes and dot segments first", () => {
    expect(normalizeAbsolute("/a/b/")).toBe("/a/b")
    expect(normalizeAbsolute("/")).toBe("/")
    expect(isProtected(`${HOME}/.ssh/`)).toBe(true)
    expect(isProtected(`${HOME}//.ssh//id_rsa`)).toBe(true)
    expect(isProtected(`${HOME}/projects/../.aws/credentials`)).toBe(true)
    expect(isProtected(`${HOME}/.ssh/../notes.md`)).toBe(false)
    expect(isProtected("/repo/.env/")).toBe(true)
    expect(isProtectedPath(`${HOME}/.ssh/`, { home: `${HOME}/`, agentDir: `${AGENT}/` }).protected).toBe(true)
  })

  it("refuses a relative path: the caller must resolve it first", () => {
    const r = isProtectedPath("notes.md", base)
    expect(r.protected).toBe(true)
    expect(r.protected && r.reason).toContain("not an absolute path")
  })

  it("gives a reason naming the path and what it holds", () => {
    const r = isProtectedPath(`${HOME}/.aws/credentials`, base)
    expect(r).toEqual({ protected: true, reason: `${HOME}/.aws/credentials is in ~/.aws, which holds AWS credentials` })
  })

  it("leaves ordinary project and memory files open", () => {
    for (const p of ["/repo/README.md", "/repo/src/index.ts", `${AGENT}/project-memory/roots/x/memory/MEMORY.md`, HOME, "/"]) {
      expect(isProtected(p), p).toBe(false)
    }
  })
})

describe("isProtectedPath: the real path", () => {
  it("refuses a harmless name whose real path is protected, and a protected name whose real path is harmless", () => {
    const viaLink = isProtectedPath("/repo/notes.txt", base, `${HOME}/.ssh/id_rsa`)
    expect(viaLink.protected).toBe(true)
    expect(viaLink.protected && viaLink.reason).toContain(`/repo/notes.txt resolves to ${HOME}/.ssh/id_rsa`)
    expect(isProtected("/repo/.env", base, "/repo/config/defaults.txt")).toBe(true)
    expect(isProtected("/repo/notes.txt", base, "/repo/docs/notes.txt")).toBe(false)
    expect(isProtected("/repo/link/", base, `${HOME}/.gnupg/`)).toBe(true)
  })

  it("works on real symlinks resolved with realpath", () => {
    const dir = tempDir()
    const home = join(dir, "home")
    mkdirSync(join(home, ".ssh"), { recursive: true })
    writeFileSync(join(home, ".ssh", "id_ed25519"), "not a real key")
    writeFileSync(join(dir, "plain.md"), "x")
    symlinkSync(join(home, ".ssh", "id_ed25519"), join(dir, "innocent.md"))
    symlinkSync(join(home, ".ssh"), join(dir, "folder"))
    symlinkSync(join(dir, "plain.md"), join(dir, ".env"))
    const options = { home, agentDir: join(home, ".pi", "agent") }
    const check = (p: string): boolean => isProtectedPath(p, options, realpathSync(p)).protected
    expect(check(join(dir, "innocent.md"))).toBe(true)
    expect(check(join(dir, "folder"))).toBe(true)
    expect(check(join(dir, "folder", "id_ed25519"))).toBe(true)
    expect(check(join(dir, ".env"))).toBe(true)
    expect(check(join(dir, "plain.md"))).toBe(false)
  })
})

describe("isProtectedPath: configuration", () => {
  it("a user exception exempts exactly one path from the built-in rules, not its descendants nor its link target", () => {
    const options = { ...base, exceptions: ["/repo/.env.test", `${HOME}/.ssh/`] }
    expect(isProtected("/repo/.env.test", options)).toBe(false)
    expect(isProtected("/repo/.env.test/", options)).toBe(false)
    expect(isProtected("/repo/.env", options)).toBe(true)
    expect(isProtected("/other/.env.test", options)).toBe(true)
    expect(isProtected(`${HOME}/.ssh`, options)).toBe(false)
    expect(isProtected(`${HOME}/.ssh/id_rsa`, options)).toBe(true)
    expect(isProtected("/repo/.env.test", options, `${HOME}/.aws/credentials`)).toBe(true)
    // Exceptions match exactly, case included.
    expect(isProtected("/repo/.ENV.TEST", options)).toBe(true)
    // A relative exception is not an exact path and exempts nothing.
    expect(isProtected("/repo/.env", { ...base, exceptions: [".env"] })).toBe(true)
  })

  it("extra protections add folders and name patterns, and an exception does not lift them", () => {
    const options = { ...base, extraProtections: ["/repo/secrets", "*.sqlite", "credentials.yaml"], exceptions: ["/repo/secrets/a.txt"] }
    expect(isProtected("/repo/secrets", options)).toBe(true)
    expect(isProtected("/repo/secrets/a.txt", options)).toBe(true)
    expect(isProtected("/repo/secrets-public/a.txt", options)).toBe(false)
    expect(isProtected("/repo/data/app.sqlite", options)).toBe(true)
    expect(isProtected("/repo/data/app.SQLITE", options)).toBe(true)
    expect(isProtected("/repo/data/app.sqlite3", options)).toBe(false)
    expect(isProtected("/repo/config/credentials.yaml", options)).toBe(true)
    expect(isProtected("/repo/config/credentials.yaml.md", options)).toBe(false)
    // A pattern's regex characters are literal.
    expect(isProtected("/repo/xsqlite", { ...base, extraProtections: ["?sqlite"] })).toBe(false)
  })

  it("decodes protectedPaths from the user and project configuration; a project may only add", () => {
    const { settings, problems } = decodeProtectedPaths(
      { allow: ["~/.ssh/config", "/srv/app/.env.ci", "relative/.env"], add: ["~/private"] },
      { allow: ["/repo/.env"], add: ["deploy/keys", "*.sqlite", "/abs/x"] },
      HOME,
      "/repo"
    )
    expect(settings).toEqual({
      exceptions: [`${HOME}/.ssh/config`, "/srv/app/.env.ci"],
      extraProtections: [`${HOME}/private`, "/repo/deploy/keys", "*.sqlite", "/abs/x"]
    })
    expect(problems).toHaveLength(2)
    expect(problems[0]).toContain('"relative/.env"')
    expect(problems[1]).toContain("a project may add protections, never remove them")
    expect(isProtected("/repo/.env", { ...base, ...settings })).toBe(true)
    expect(isProtected(`${HOME}/.ssh/config`, { ...base, ...settings })).toBe(false)
  })

  it("reports an invalid protectedPaths value and ignores it", () => {
    const { settings, problems } = decodeProtectedPaths({ allow: "/x" }, 42, HOME, "/repo")
    expect(settings).toEqual({ exceptions: [], extraProtections: [] })
    expect(problems).toHaveLength(2)
    expect(decodeProtectedPaths(undefined, undefined, HOME, "/repo")).toEqual({ settings: { exceptions: [], extraProtections: [] }, problems: [] })
  })
})

describe(".npmrc and .pypirc: protected when they hold a token", () => {
  it("asks for a content check by name", () => {
    expect(isProtectedPath("/repo/.npmrc", base)).toEqual({ protected: false, contentCheck: "npmrc" })
    expect(isProtectedPath("/repo/.pypirc", base)).toEqual({ protected: false, contentCheck: "pypirc" })
    // The home's own ~/.pypirc is protected outright (the sandbox denies it without reading it, and so does the check).
    expect(isProtectedPath(`${HOME}/.pypirc`, base).protected).toBe(true)
    expect(isProtectedPath("/repo/notes.md", base, "/repo/.npmrc")).toEqual({ protected: false, contentCheck: "npmrc" })
  })

  it("npmrcHasToken: literal tokens, auth and passwords, scoped or not; not references or plain settings", () => {
    for (const text of [
      "//registry.npmjs.org/:_authToken=npm_Ab1Cd2Ef3Gh4Ij5Kl6Mn7Op8Qr9St0Uv1WxY",
      "registry=https://npm.acme.dev/\n//npm.acme.dev/:_authToken=\"0d3f-made-up\"",
      "_auth = YWxpY2U6bm90LXJlYWw=",
      "//npm.acme.dev/:_password=bm90LXJlYWw=",
      "\r\n//npm.acme.dev/:_authToken=abc\r\n"
    ]) {
      expect(npmrcHasToken(text), text).toBe(true)
    }
    for (const text of [
      "registry=https://registry.npmjs.org/\nsave-exact=true",
      "//registry.npmjs.org/:_authToken=${NPM_TOKEN}",
      "# //registry.npmjs.org/:_authToken=npm_old",
      "; _auth=abc",
      "//registry.npmjs.org/:_authToken=",
      ""
    ]) {
      expect(npmrcHasToken(text), text).toBe(false)
    }
  })

  it("pypircHasPassword: a non-empty password in any section", () => {
    expect(pypircHasPassword("[pypi]\nusername = __token__\npassword = pypi-AgEImadeup")).toBe(true)
    expect(pypircHasPassword("[testpypi]\n  password: hunter22")).toBe(true)
    expect(pypircHasPassword("[distutils]\nindex-servers = pypi\n[pypi]\nusername = __token__\n")).toBe(false)
    expect(pypircHasPassword("[pypi]\npassword =\n")).toBe(false)
    expect(pypircHasPassword("[pypi]\npassword = ${PYPI_TOKEN}\n")).toBe(false)
  })

  it("protectedByContent turns the content check into a verdict with a reason", () => {
    expect(protectedByContent("/repo/.npmrc", "npmrc", "//r/:_authToken=abc")).toEqual({
      protected: true,
      reason: "/repo/.npmrc is an .npmrc that holds a registry token"
    })
    expect(protectedByContent("/repo/.npmrc", "npmrc", "save-exact=true")).toEqual({ protected: false })
    expect(protectedByContent("/h/.pypirc", "pypirc", "[pypi]\npassword = x")).toMatchObject({ protected: true })
  })
})
