/**
 * Scenario 10: the cost of the cache mutation detector (`detectMutations: true`): sync time and
 * heap of an informer with the detector next to one without, and the time of one full check
 * (a `JSON.stringify` of every cached object, what the periodic check does each interval), in
 * the same process.
 * @module
 */
import { createInformer } from "../../src/cache/mod.ts";
import { KubeClient, pods } from "../../src/client/mod.ts";
import { heapAfterGc, option } from "../_runtime.ts";
import { now } from "../_measure.ts";
import { best, fmtMB, fmtMs, fmtN, fmtX, median } from "../_format.ts";
import type { ClientResult, Scenario } from "../_scenario.ts";

/** `--url --detect on|off`: sync time and heap; with the detector, one full check's time. */
async function sync(): Promise<unknown> {
  const detect = option("detect") === "on";
  const before = heapAfterGc();
  const t0 = now();
  const informer = createInformer(new KubeClient({ server: option("url") }), {
    resource: pods,
    // A check every hour: the sync is measured on its own, the check below.
    detectMutations: detect ? { intervalMs: 3_600_000 } : false,
  });
  informer.start();
  await informer.waitForSync();
  const ms = now() - t0;
  const heap = heapAfterGc() - before;
  let checkMs = 0;
  if (detect) {
    // One full check is a fingerprint per object compared with the one taken at insertion:
    // the same work as JSON.stringify over the cache.
    const t1 = now();
    let bytes = 0;
    for (const object of informer.store.list()) bytes += JSON.stringify(object).length;
    checkMs = now() - t1;
    if (bytes === 0) throw new Error("empty cache");
  }
  await informer.stop();
  return { ms, heap, checkMs };
}

export default {
  name: "mutations",
  order: 10,
  async withServer(ctx, server, n) {
    if (n !== ctx.sizes.at(-1)) return; // the largest size only
    const reps = ctx.quick ? 1 : 2;
    for (const runtime of ctx.runtimes) {
      ctx.log(`mutation detector ${runtime} N=${fmtN(n)} (best of ${reps})`);
      const [off, on] = await ctx.repeat(reps, [
        () => ctx.client(runtime, "mutations/sync", ["--url", server.url, "--detect", "off"]),
        () => ctx.client(runtime, "mutations/sync", ["--url", server.url, "--detect", "on"]),
      ]) as [ClientResult[], ClientResult[]];
      if (off.length === 0 || on.length === 0) continue;
      ctx.raw.mutations!.push({ n, runtime, off, on });
      const offMs = best(off.map((r) => r.ms as number));
      const onMs = best(on.map((r) => r.ms as number));
      const offHeap = median(off.map((r) => r.heap as number));
      const onHeap = median(on.map((r) => r.heap as number));
      ctx.row({
        scenario: "10 sync time, detectMutations on vs off",
        runtime,
        n,
        result: fmtMs(onMs),
        baseline: fmtMs(offMs),
        ratio: fmtX(onMs / offMs),
        target: "info",
      });
      ctx.row({
        scenario: "10 heap after sync, detectMutations on vs off",
        runtime,
        n,
        result: fmtMB(onHeap),
        baseline: fmtMB(offHeap),
        ratio: fmtX(onHeap / offHeap),
        target: "info",
      });
      ctx.row({
        scenario: "10 one periodic mutation check (every object) vs the sync",
        runtime,
        n,
        result: fmtMs(best(on.map((r) => r.checkMs as number))),
        baseline: fmtMs(offMs),
        ratio: fmtX(best(on.map((r) => r.checkMs as number)) / offMs),
        target: "info",
      });
    }
  },
  steps: { sync },
} satisfies Scenario;
