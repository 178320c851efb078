/**
 * One benchmark measurement per process, against the bench server (bench/server.ts) over
 * loopback HTTP. Run by scripts/bench.mjs on Deno, Bun and Node; runs one step of a scenario
 * file (bench/scenarios/<scenario>.ts, its `steps`) and prints one line `BENCH_RESULT {json}`.
 *
 *   <runtime> bench/client.ts <scenario>[/<step>] --url http://127.0.0.1:PORT [options]
 *
 * `<scenario>` alone runs its step of the same name (`decode`, `sync`, ...; `cold/checkpoint`).
 * @module
 */
import type { Scenario } from "./_scenario.ts";
import { args, heapUsed, report, runtime } from "./_runtime.ts";

const target = args()[0] ?? "";
const [scenarioName = "", stepName = scenarioName] = target.split("/");
if (!/^[a-z][a-z0-9_]*$/.test(scenarioName)) {
  throw new TypeError(`unknown scenario ${JSON.stringify(target)}`);
}
// A template literal, so that esbuild bundles every scenario file into the Node client.
const scenario = (await import(`./scenarios/${scenarioName}.ts`)).default as Scenario;
const step = scenario.steps?.[stepName];
if (step === undefined) throw new TypeError(`unknown step ${JSON.stringify(target)}`);
const result = await step();
report({ scenario: stepName, runtime, heapUsed: heapUsed(), ...(result as object) });
