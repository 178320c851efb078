// runManager with real termination signals, each runtime in its own child process
// (tests/fixtures/manager/signals_child.ts): SIGTERM and SIGINT stop the manager gracefully
// (the in-flight reconcile finishes, the lease is released, the process exits 0); a second
// signal while stopping exits at once with code 1.
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { join } from "node:path";
import process from "node:process";
import { runtime } from "../_serve.ts";
import { bin, missingBinary, ROOT, startProcess } from "../_runtime_process.ts";

const CHILD = join(ROOT, "tests", "fixtures", "manager", "signals_child.ts");
const NODE = runtime === "node" ? process.execPath : bin("node");

const RUNTIMES = [
  {
    name: "deno",
    skip: missingBinary(bin("deno"), "deno"),
    command: bin("deno"),
    args: ["run", "-A", "--no-lock", CHILD, "deno"],
  },
  {
    name: "bun",
    skip: missingBinary(bin("bun"), "bun"),
    command: bin("bun"),
    args: [CHILD, "bun"],
  },
  {
    name: "node",
    skip: runtime === "node" ? undefined : missingBinary(NODE, "node"),
    command: NODE,
    args: [CHILD, "node"],
  },
];

for (const rt of RUNTIMES) {
  describe(`runManager on ${rt.name} with real signals`, { skip: rt.skip }, () => {
    for (const signal of ["SIGTERM", "SIGINT"] as const) {
      test(`${signal}: the in-flight reconcile finishes, the lease is released, exit 0`, async () => {
        const child = startProcess(rt.command, [...rt.args, "finish"], { killAfterMs: 30_000 });
        try {
          const [, port] = await child.waitFor(/listening (\d+)/);
          await child.waitFor(/reconciling default\/slow/);
          const ready = await fetch(`http://127.0.0.1:${port}/readyz`);
          assert.equal(ready.status, 200, child.output);
          await ready.body?.cancel();
          process.kill(child.child.pid!, signal);
          const exit = await child.exited;
          // The child printed its last line after a graceful stop: it was not killed.
          assert.match(
            child.stdout,
            /reconciled default\/slow\n[^]*stopped holder=\n/,
            child.output,
          );
          // Deno's node:child_process reports the signal it sent instead of the exit code.
          if (runtime !== "deno") assert.equal(exit.code, 0, child.output);
        } finally {
          await child.kill();
        }
      });
    }

    test("a second signal while stopping exits at once with code 1", async () => {
      const child = startProcess(rt.command, [...rt.args, "hang"], { killAfterMs: 30_000 });
      try {
        await child.waitFor(/listening (\d+)/);
        await child.waitFor(/reconciling default\/slow/);
        // process.kill, not child.kill: Deno's node:child_process sends one kill only.
        process.kill(child.child.pid!, "SIGTERM");
        await child.waitFor(/got SIGTERM/);
        // The reconcile ignores its signal and the grace period is 30 s: still stopping.
        process.kill(child.child.pid!, "SIGTERM");
        const exit = await child.exited;
        assert.doesNotMatch(child.stdout, /stopped holder/);
        if (runtime !== "deno") assert.equal(exit.code, 1, child.output);
      } finally {
        await child.kill();
      }
    });
  });
}
