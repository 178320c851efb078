/**
 * Scenario 4: one listener stalls (never reads) while M events arrive; a second listener reads
 * them all and samples the heap (after GC) and the stalled backlog at every quarter. Policies
 * `grow`, `coalesce`, and `none` (no stalled listener: the baseline). On one runtime (Node when
 * measured), at the first size.
 * @module
 */
import { createInformer, type InformerEvent } from "../../src/cache/mod.ts";
import { KubeClient, pods } from "../../src/client/mod.ts";
import type { KubeObject } from "../../src/client/types.ts";
import { heapAfterGc, numberOption, option } from "../_runtime.ts";
import { consume } from "../_measure.ts";
import { fmtMB, fmtN, fmtX } from "../_format.ts";
import type { ClientResult, Scenario } from "../_scenario.ts";

const SLOW_EVENTS = 100_000;

/** `--url --events M --policy grow|coalesce|none`. */
async function slow(): Promise<unknown> {
  const url = option("url");
  const m = numberOption("events");
  const policy = option("policy");
  const informer = createInformer(new KubeClient({ server: `${url}/burst/${m}` }), {
    resource: pods,
  });
  const reader = informer.events();
  let stalled: AsyncIterableIterator<InformerEvent<KubeObject>> | undefined;
  if (policy === "grow" || policy === "coalesce") stalled = informer.events({ overflow: policy });
  else if (policy !== "none") throw new TypeError(`unknown --policy ${policy}`);
  const backlog = (): number => stalled === undefined ? 0 : informer.health().listeners[1]!.backlog;
  informer.start();
  const samples: { events: number; heap: number; backlog: number }[] = [];
  let n = 0;
  await consume(reader, (ev) => {
    if (ev.type === "synced") samples.push({ events: 0, heap: heapAfterGc(), backlog: backlog() });
    else if (ev.type === "update" && ++n % (m / 4) === 0) {
      samples.push({ events: n, heap: heapAfterGc(), backlog: backlog() });
    }
    return n === m;
  });
  await informer.stop();
  return { policy, events: m, samples };
}

interface Sample {
  heap: number;
  backlog: number;
}

export default {
  name: "slow",
  order: 4,
  settings: { slowEvents: SLOW_EVENTS },
  bursts: (ctx, n) => n === ctx.sizes[0] ? [SLOW_EVENTS] : [],
  async withServer(ctx, server, n) {
    if (n !== ctx.sizes[0]) return;
    const runtime = ctx.runtimes.includes("node") ? "node" : ctx.runtimes[0]!;
    const out: Record<string, ClientResult> = {};
    for (const policy of ["none", "grow", "coalesce"]) {
      ctx.log(`slow consumer ${runtime} N=${fmtN(n)} M=${fmtN(SLOW_EVENTS)} policy=${policy}`);
      const r = await ctx.client(runtime, "slow", [
        "--url",
        server.url,
        "--events",
        String(SLOW_EVENTS),
        "--policy",
        policy,
      ]);
      if (r === undefined) continue;
      ctx.raw.slow!.push({ n, ...r });
      out[policy] = r;
    }
    const growth = (r: ClientResult): number => r.samples.at(-1).heap - r.samples[0].heap;
    const curve = (r: ClientResult): string =>
      r.samples.map((s: Sample) => (s.heap / 1048576).toFixed(0)).join("/");
    const none = out.none;
    if (out.grow && none) {
      ctx.row({
        scenario: "4 slow consumer, grow: heap after M events",
        runtime,
        n,
        result: `+${fmtMB(growth(out.grow))}, backlog ${out.grow.samples.at(-1).backlog} (MB: ${
          curve(out.grow)
        })`,
        baseline: `+${fmtMB(growth(none))} (no stalled listener; MB: ${curve(none)})`,
        ratio: fmtX((out.grow.samples.at(-1).heap) / none.samples.at(-1).heap),
        target: "info (unbounded)",
      });
    }
    if (out.coalesce && none && out.grow) {
      const c = out.coalesce;
      const maxBacklog = Math.max(...c.samples.map((s: Sample) => s.backlog));
      // Flat: once every key has an event pending, the heap stops growing; allow 10% of what
      // "grow" added over the same events (noise), and a backlog bounded by the keys.
      const flat = growth(c) <= 0.1 * growth(out.grow) && maxBacklog <= n + 1;
      ctx.row({
        scenario: "4 slow consumer, coalesce: heap after M events",
        runtime,
        n,
        result: `+${fmtMB(growth(c))}, backlog <= ${maxBacklog} (MB: ${curve(c)})`,
        baseline: `grow: +${fmtMB(growth(out.grow))}`,
        ratio: fmtX(growth(c) / growth(out.grow)),
        target: "flat: <= 0.1x grow, backlog <= keys",
        holds: flat,
      });
    }
  },
  steps: { slow },
} satisfies Scenario;
