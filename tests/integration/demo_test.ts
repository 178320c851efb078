// `npm start` is the first thing a new user runs: prove it works and ends with a consistent cache.
import { test } from "node:test";
import assert from "node:assert/strict";
import { bin, missingBinary, ROOT, runProcess } from "../_runtime_process.ts";

const deno = bin("deno");
const skip = missingBinary(deno, "deno");

test(
  "the demo (npm start) recovers from every scheduled fault and ends with the cache equal to the server",
  {
    skip,
    timeout: 60_000,
  },
  async () => {
    const r = await runProcess(
      deno,
      ["run", "-A", "examples/demo.ts", "--seconds", "2", "--quiet"],
      {
        cwd: ROOT,
      },
    );
    assert.equal(r.code, 0, r.output);
    assert.match(r.stdout, /simulated cluster with 150 pods/);
    assert.match(r.stdout, /cache synced in \d+ ms: 150 pods/);
    for (const fault of ["drop every open watch", "compact history", "throttle"]) {
      assert.match(r.stdout, new RegExp(`fault: ${fault}`));
    }
    assert.match(r.stdout, /cache matches the server: yes/);
  },
);
