// examples/exec_plugin.ts, run as a user runs it, by the runtime running this test (Deno with
// `deno run -A`, Bun, Node 22.18+/24 directly on the .ts file): a kubeconfig with an exec
// plugin, a simulated cluster over HTTPS that refuses requests without the plugin's token.
import { test } from "node:test";
import assert from "node:assert/strict";
import { join } from "node:path";
import process from "node:process";
import { runtime } from "../_serve.ts";
import { bin, ROOT, runProcess, SOURCE_CONDITION } from "../_runtime_process.ts";

const EXAMPLE = join(ROOT, "examples", "exec_plugin.ts");

test(`examples/exec_plugin.ts connects through an exec plugin on ${runtime}`, async () => {
  const [command, args] = runtime === "deno"
    ? [bin("deno"), ["run", "-A", "--no-lock", EXAMPLE]]
    : runtime === "bun"
    ? [bin("bun"), [SOURCE_CONDITION, EXAMPLE]]
    : [process.execPath, [SOURCE_CONDITION, EXAMPLE]];
  const result = await runProcess(command, args, { killAfterMs: 60_000 });
  assert.equal(result.code, 0, result.output);
  const lines = result.stdout.trim().split("\n");
  assert.match(
    lines[0]!,
    /^kinformer on (Deno|Bun|Node v[\d.]+): https:\/\/127\.0\.0\.1:\d+ \(context demo\)$/,
  );
  assert.deepEqual(lines.slice(1), ["synced: 2 pods in default", "add default/added-after-sync"]);
});
