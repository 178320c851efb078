// Every benchmark scenario file keeps the contract the runner relies on (bench/README.md,
// bench/_scenario.ts), so that adding a scenario stays a matter of adding one file.
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { readdir } from "node:fs/promises";
import { join } from "node:path";
import type { BenchContext, Scenario } from "../../bench/_scenario.ts";
import decode from "../../bench/scenarios/decode.ts";
import sync from "../../bench/scenarios/sync.ts";
import fanout from "../../bench/scenarios/fanout.ts";
import slow from "../../bench/scenarios/slow.ts";
import scale from "../../bench/scenarios/scale.ts";
import bundle from "../../bench/scenarios/bundle.ts";
import cold from "../../bench/scenarios/cold.ts";
import { ROOT } from "../_runtime_process.ts";

/** The scenarios the benchmark has had from the start, in table order. */
const KNOWN: Scenario[] = [decode, sync, fanout, slow, scale, bundle, cold];

/** bench/scenarios/*.ts, as the runner lists them. */
async function scenarioFiles(): Promise<string[]> {
  const names = await readdir(join(ROOT, "bench", "scenarios"));
  return names.filter((f) => f.endsWith(".ts") && !f.startsWith("_")).map((f) => f.slice(0, -3));
}

describe("bench scenarios", () => {
  test("each file default-exports a scenario named after it, with a unique order", async () => {
    const files = await scenarioFiles();
    const scenarios: Scenario[] = [];
    for (const file of files) {
      const mod = await import(`../../bench/scenarios/${file}.ts`) as { default?: Scenario };
      const scenario = mod.default;
      assert.ok(scenario !== undefined, `${file}.ts has no default export`);
      assert.equal(scenario.name, file, `${file}.ts exports the scenario ${scenario.name}`);
      assert.ok(Number.isInteger(scenario.order), `${file}: order must be an integer`);
      const hooks = [scenario.alone, scenario.withServer, scenario.after];
      assert.ok(hooks.some((h) => typeof h === "function"), `${file}: nothing to run`);
      for (const [step, fn] of Object.entries(scenario.steps ?? {})) {
        assert.equal(typeof fn, "function", `${file}: step ${step}`);
        assert.match(step, /^[a-z][a-z0-9_]*$/, `${file}: step name ${step}`);
      }
      scenarios.push(scenario);
    }
    const orders = scenarios.map((s) => s.order);
    assert.equal(new Set(orders).size, orders.length, `orders collide: ${orders.join(", ")}`);
    for (const s of scenarios) {
      for (const need of s.needs ?? []) {
        assert.ok(files.includes(need), `${s.name} needs ${need}, which has no file`);
      }
    }
  });

  test("the original seven keep their names and table order; cold runs last", async () => {
    const files = await scenarioFiles();
    for (const s of KNOWN) assert.ok(files.includes(s.name), `${s.name} has no file`);
    assert.deepEqual(
      [...KNOWN].sort((a, b) => a.order - b.order).map((s) => s.name),
      ["decode", "sync", "fanout", "slow", "scale", "bundle", "cold"],
    );
    assert.deepEqual(KNOWN.map((s) => s.order), [1, 2, 3, 4, 5, 6, 7]);
    assert.deepEqual(scale.needs, ["sync"]);
  });

  test("bursts: decode at every size; fan-out and slow consumer at the first size only", () => {
    const ctx = { sizes: [10_000, 50_000] } as unknown as BenchContext;
    const bursts = (s: Scenario, n: number): number[] => s.bursts?.(ctx, n) ?? [];
    assert.deepEqual(bursts(decode, 10_000), [100_000]);
    assert.deepEqual(bursts(decode, 50_000), [100_000]);
    assert.deepEqual(bursts(fanout, 10_000), [20_000]);
    assert.deepEqual(bursts(fanout, 50_000), []);
    assert.deepEqual(bursts(slow, 10_000), [100_000]);
    assert.deepEqual(bursts(slow, 50_000), []);
    assert.deepEqual(bursts(sync, 10_000), []);
  });
});
