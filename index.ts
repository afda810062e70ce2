// Pi's entry for pi-project-memory, named in package.json `pi.extensions`. It sits at the package's root as
// index.ts so that Pi's list of loaded extensions names the package (`pi-project-memory`, or the repository for a
// git install) rather than a file. It hands on the build's entry, dist/extension.ts, which Pi's loader compiles with
// the host's own modules (scripts/build.mjs says why that entry is TypeScript). dist/ is committed, so every install
// route (the registry, git, a checkout, a tarball) has it without building.
export { default } from "./dist/extension.ts"
