import { defineConfig } from "vitest/config"

// Tuned for a loaded 2-core machine (see README, "Tests"):
// - forks: every test file in a child process of its own, so a file's child processes, mounts and globals end with it;
// - two workers even on 2 cores (vitest's default there is one): most files spend their time waiting on child
//   processes (pi, pm, git, npm), so two overlap that waiting;
// - the build runs once, before any worker starts (globalSetup), instead of in the first file that needs it;
// - one timeout for every test and hook, 10 minutes, and none set by a test of its own: a timeout here only catches a
//   hang, and a test that takes 5 s on an idle machine takes a minute or more at load 20; none waits on the clock;
// - teardownTimeout: closing a worker that just ran child processes can take longer than 10 s under load;
// - PM_QUEUE_WORKER=0: a pi -p run waits for its own extraction and starts no detached worker (docs/background.md),
//   so what a test's Pi saved is there when it exits, and no process outlives a test; a test of the worker sets it;
// - the event-loop watch (test/support/loopWatch.ts, on with PM_TEST_LOOP_REPORT=folder) finds what holds a
//   worker's event loop: vitest's RPC channel gives up after 60 s of it, whatever the tests' timeouts.
export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    env: { PM_QUEUE_WORKER: "0" },
    testTimeout: 600_000,
    hookTimeout: 600_000,
    teardownTimeout: 60_000,
    pool: "forks",
    maxWorkers: 2,
    minWorkers: 1,
    globalSetup: ["test/support/globalSetup.ts"],
    setupFiles: ["test/support/loopWatch.ts"],
    reporters: ["default"]
  }
})
