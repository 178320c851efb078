/**
 * Scenario 8: the cost of one consistency check (`informer.verify()`: a consistent paged LIST
 * compared per key with the cache) on a synced informer, next to a full relist (a second
 * informer's LIST and cache build), in the same process. The check runs unpaced here
 * (`requestsPerMinute: Infinity`) to measure its work; the default budget spreads the same
 * pages over pages / 60 minutes.
 * @module
 */
import { createInformer } from "../../src/cache/mod.ts";
import { DEFAULT_CONSISTENCY_CHECK_REQUESTS_PER_MINUTE } from "../../src/cache/consistency_check_options.ts";
import { KubeClient, pods } from "../../src/client/mod.ts";
import { option } from "../_runtime.ts";
import { now } from "../_measure.ts";
import { best, fmtMs, fmtN, fmtX } from "../_format.ts";
import type { ClientResult, Scenario } from "../_scenario.ts";

const PAGE_SIZE = 500;

/** `--url`: sync, one check, then a full relist by a second informer. */
async function check(): Promise<unknown> {
  const client = new KubeClient({ server: option("url") });
  const informer = createInformer(client, {
    resource: pods,
    pageSize: PAGE_SIZE,
    consistencyCheck: { requestsPerMinute: Infinity, intervalMs: 0 },
  });
  informer.start();
  await informer.waitForSync();
  const t0 = now();
  const result = await informer.verify();
  const checkMs = now() - t0;
  if (result.outcome !== "consistent") {
    throw new Error(`check: ${result.outcome} ${result.reason ?? ""}`);
  }
  const relist = createInformer(client, { resource: pods, pageSize: PAGE_SIZE });
  const t1 = now();
  relist.start();
  await relist.waitForSync();
  const relistMs = now() - t1;
  await relist.stop();
  await informer.stop();
  return { checkMs, relistMs, pages: result.pages, compared: result.compared };
}

export default {
  name: "consistency",
  order: 8,
  settings: { pageSize: PAGE_SIZE },
  async withServer(ctx, server, n) {
    if (n !== ctx.sizes.at(-1)) return; // the largest size only (50k in a full run)
    const reps = ctx.quick ? 1 : 2;
    for (const runtime of ctx.runtimes) {
      ctx.log(`consistency check ${runtime} N=${fmtN(n)} (best of ${reps})`);
      const [rs] = await ctx.repeat(reps, [
        () => ctx.client(runtime, "consistency/check", ["--url", server.url]),
      ]) as [ClientResult[]];
      if (rs.length === 0) continue;
      ctx.raw.consistency!.push({ n, runtime, runs: rs });
      const checkMs = best(rs.map((r) => r.checkMs));
      const relistMs = best(rs.map((r) => r.relistMs));
      const pages = rs[0].pages as number;
      const spreadS = (pages - 1) * 60 / DEFAULT_CONSISTENCY_CHECK_REQUESTS_PER_MINUTE;
      ctx.row({
        scenario: "8 one consistency check (unpaced) vs a full relist",
        runtime,
        n,
        result: `${fmtMs(checkMs)}, ${pages} pages (default budget: over ${spreadS} s)`,
        baseline: fmtMs(relistMs),
        ratio: fmtX(checkMs / relistMs),
        target: "info",
      });
    }
  },
  steps: { check },
} satisfies Scenario;
