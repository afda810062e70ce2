// Bundles the two entries. The Pi host packages stay external: Pi provides its own copies at run time; so does the
// sandbox runtime (below).
import { build } from "esbuild"
import { chmodSync, copyFileSync, mkdirSync, readdirSync, rmSync, writeFileSync } from "node:fs"
import { createRequire } from "node:module"
import { dirname, join } from "node:path"
import { fileURLToPath } from "node:url"

const root = join(dirname(fileURLToPath(import.meta.url)), "..")
const require = createRequire(import.meta.url)
const external = [
  "@earendil-works/pi-coding-agent",
  "@earendil-works/pi-ai",
  "@earendil-works/pi-agent-core",
  "@earendil-works/pi-tui",
  "typebox",
  // A production dependency that finds its own files at run time (the seccomp helper, the proxy agent under
  // vendor/), so it is loaded from node_modules, never bundled.
  "@anthropic-ai/sandbox-runtime"
]
// CommonJS dependencies (gray-matter) call require(); give the ESM bundle one.
const banner = {
  js: "import { createRequire as __pmCreateRequire } from 'node:module'; const require = __pmCreateRequire(import.meta.url);"
}
// gray-matter loads js-yaml for its default engine, and js-yaml loads esprima from node_modules at run time. We parse
// YAML with the `yaml` package through our own engines, so js-yaml is replaced by a stub that refuses to be used.
const noJsYaml = {
  name: "no-js-yaml",
  setup(b) {
    b.onResolve({ filter: /^js-yaml$/ }, () => ({ path: "js-yaml", namespace: "no-js-yaml" }))
    b.onLoad({ filter: /.*/, namespace: "no-js-yaml" }, () => ({
      contents: "const refuse = () => { throw new Error('js-yaml is not bundled: frontmatter uses the yaml engine') };" +
        "module.exports = { safeLoad: refuse, safeDump: refuse, load: refuse, dump: refuse };",
      loader: "js"
    }))
  }
}
// The YAML side of frontmatter (src/memory/yamlEngine.ts: gray-matter and the `yaml` package) is its own CommonJS file,
// dist/frontmatter-yaml.cjs. In the ESM bundles its import is replaced by a stand-in that requires that file on the
// first header the fast path cannot read: a synchronous load, so parsing stays synchronous, and a start that meets
// only plain headers never evaluates either package.
const YAML_ENGINE_FILE = "frontmatter-yaml.cjs"
const lazyYamlEngine = {
  name: "lazy-yaml-engine",
  setup(b) {
    b.onResolve({ filter: /\/yamlEngine\.ts$/ }, () => ({ path: "yamlEngine", namespace: "lazy-yaml-engine" }))
    b.onResolve({ filter: new RegExp(`^\\./${YAML_ENGINE_FILE.replace(".", "\\.")}$`) }, (a) => ({ path: a.path, external: true }))
    b.onLoad({ filter: /.*/, namespace: "lazy-yaml-engine" }, () => ({
      contents: `let engine;\nexport const splitWithYaml = (source) => (engine ??= require("./${YAML_ENGINE_FILE}")).splitWithYaml(source);\n`,
      loader: "js"
    }))
  }
}
// The credential detector (src/safety/secrets.ts: 176 rules, their trigger table and views, ~45 KB) is its own CommonJS
// file too, dist/secrets-detector.cjs, required on the first call of one of its functions: a session start and its
// first request, which write nothing, never evaluate it. The stand-in exports the functions other modules import;
// a new export used by a bundle fails the build here until it is added to the list.
const DETECTOR_FILE = "secrets-detector.cjs"
const DETECTOR_FUNCTIONS = ["detectSecrets", "detectSecretSpans", "secretLabel", "secretRefusalReason", "startsBefore"]
const lazyDetector = {
  name: "lazy-detector",
  setup(b) {
    const detector = join(root, "src", "safety", "secrets.ts")
    b.onResolve({ filter: /(^|\/)secrets\.ts$/ }, (a) =>
      join(a.resolveDir, a.path) === detector ? { path: "secrets", namespace: "lazy-detector" } : undefined)
    b.onResolve({ filter: new RegExp(`^\\./${DETECTOR_FILE.replace(".", "\\.")}$`) }, (a) => ({ path: a.path, external: true }))
    b.onLoad({ filter: /.*/, namespace: "lazy-detector" }, () => ({
      contents: `let detector;\nconst load = () => (detector ??= require("./${DETECTOR_FILE}"));\n` +
        DETECTOR_FUNCTIONS.map((f) => `export const ${f} = (...args) => load().${f}(...args);`).join("\n") + "\n",
      loader: "js"
    }))
  }
}
const common = {
  plugins: [noJsYaml, lazyYamlEngine, lazyDetector],
  bundle: true,
  platform: "node",
  format: "esm",
  target: "node22",
  sourcemap: "linked",
  // Smaller files load faster from Node's compile cache; the linked source maps keep traces readable.
  minify: true,
  logLevel: "warning",
  external,
  banner
}

mkdirSync(join(root, "dist"), { recursive: true })
// Chunks of an earlier build would linger beside the new ones.
for (const name of readdirSync(join(root, "dist"))) if (/^(pm-chunk|extension)-/.test(name)) rmSync(join(root, "dist", name))
await Promise.all([
  // `dist/pm.js` is a small launcher that checks the Node version before it loads the CLI (`dist/pm-main.js`).
  build({ ...common, entryPoints: [join(root, "cli/launcher.ts")], outfile: join(root, "dist/pm.js"),
    external: [...external, "./pm-main.js"], banner: { js: "#!/usr/bin/env node" } }),
  // Code splitting: what a subcommand imports on demand (the bash parser for `bash-check`, Node's terminal for
  // `--wizard`) is a chunk of its own, not evaluated by `pm scan` or `pm --help`. Chunks sit beside the entry so
  // that modules which find files next to themselves (the wasm of the bash parser) see the same folder.
  build({ ...common, entryPoints: { "pm-main": join(root, "cli/main.ts") }, outdir: join(root, "dist"), splitting: true,
    chunkNames: "pm-chunk-[name]-[hash]" }),
  // The extension is split: Pi's entry (dist/extension.ts, below) imports the small dist/extension.js at start-up; the
  // session side and the background tasks are chunks it imports on first use. Chunks sit beside the entry (the bash parser finds its wasm
  // files beside the module that loads them).
  build({ ...common, entryPoints: { extension: join(root, "extension/index.ts") }, outdir: join(root, "dist"), splitting: true,
    chunkNames: "extension-[name]-[hash]" }),
  build({ ...common, plugins: [noJsYaml], format: "cjs", banner: {}, entryPoints: [join(root, "src/memory/yamlEngine.ts")],
    outfile: join(root, "dist", YAML_ENGINE_FILE) }),
  build({ ...common, plugins: [], format: "cjs", banner: {}, entryPoints: [join(root, "src/safety/secrets.ts")],
    outfile: join(root, "dist", DETECTOR_FILE) })
])
chmodSync(join(root, "dist/pm.js"), 0o755)
// Pi's entry, named in package.json's `pi.extensions`. It is TypeScript on purpose: Pi's loader always compiles a
// TypeScript entry, and maps the host's package names to the host's own modules in what it compiles, in every install
// form. A JavaScript entry it would first import as it is, and the name would then resolve to no package (an install
// from the registry) or to the dev dependencies' second Pi (a checkout). Everything else is plain JavaScript that
// never imports Pi: the host's module is handed to projectMemory.
writeFileSync(
  join(root, "dist", "extension.ts"),
  [
    "// Pi's entry for pi-project-memory (written by scripts/build.mjs; see extension/index.ts).",
    'import * as host from "@earendil-works/pi-coding-agent"',
    'import { projectMemory } from "./extension.js"',
    "",
    "export default projectMemory(host)",
    ""
  ].join("\n")
)
// The bash grammar and the tree-sitter runtime are loaded from beside the bundle.
for (const spec of ["tree-sitter-bash/tree-sitter-bash.wasm", "web-tree-sitter/web-tree-sitter.wasm"]) {
  copyFileSync(require.resolve(spec), join(root, "dist", spec.split("/")[1]))
}
