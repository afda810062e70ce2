import { defineConfig } from "vitest/config"

// Tuned for a loaded 2-core machine (see README, "Tests"):
// - forks: every test file in a child process of its own, so a file's child processes, mounts and globals end with it;
// - two workers even on 2 cores (vitest's default there is one): most files spend their time waiting on child
//   processes (pi, pm, git, npm), so two overlap that waiting;
// - the build runs once, before any worker starts (globalSetup), instead of in the first file that needs it;
// - teardownTimeout: closing a worker that just ran child processes can take longer than 10 s under load.
export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    teardownTimeout: 60_000,
    pool: "forks",
    maxWorkers: 2,
    minWorkers: 1,
    globalSetup: ["test/support/globalSetup.ts"],
    setupFiles: ["test/support/loopWatch.ts"],
    reporters: ["default"]
  }
})
