/**
 * Scenario 3: L `events()` listeners on one informer (1, 10, 100); the time from the moment all
 * of them have seen `synced` until all have received M MODIFIED events, against one listener.
 * On one runtime (Node when measured), at the first size.
 * @module
 */
import { createInformer } from "../../src/cache/mod.ts";
import { KubeClient, pods } from "../../src/client/mod.ts";
import { gc, numberOption, option } from "../_runtime.ts";
import { consume, now } from "../_measure.ts";
import { fmtMs, fmtN, fmtX } from "../_format.ts";
import type { ClientResult, Scenario } from "../_scenario.ts";

const FANOUT_EVENTS = 20_000;

/** `--url --events M --listeners L --reps R`: best of R. */
async function fanout(): Promise<unknown> {
  const url = option("url");
  const m = numberOption("events");
  const listeners = numberOption("listeners");
  const reps = numberOption("reps", 3);
  let best = Infinity;
  for (let r = 0; r < reps; r++) {
    gc();
    const informer = createInformer(new KubeClient({ server: `${url}/burst/${m}` }), {
      resource: pods,
    });
    let synced = 0;
    let t0 = 0;
    const done: Promise<number>[] = [];
    for (let i = 0; i < listeners; i++) {
      let n = 0;
      done.push(consume(informer.events(), (ev) => {
        if (ev.type === "synced") {
          if (++synced === listeners) t0 = now();
        } else if (ev.type === "update") return ++n === m;
        return false;
      }));
    }
    informer.start();
    const ends = await Promise.all(done);
    best = Math.min(best, Math.max(...ends) - t0);
    await informer.stop();
  }
  return { listeners, events: m, ms: best, perEventPerListenerNs: (best * 1e6) / (m * listeners) };
}

export default {
  name: "fanout",
  order: 3,
  settings: { fanoutEvents: FANOUT_EVENTS },
  bursts: (ctx, n) => n === ctx.sizes[0] ? [FANOUT_EVENTS] : [],
  async withServer(ctx, server, n) {
    if (n !== ctx.sizes[0]) return;
    const runtime = ctx.runtimes.includes("node") ? "node" : ctx.runtimes[0]!;
    const reps = ctx.quick ? 1 : 3;
    const ms: Record<number, ClientResult> = {};
    for (const listeners of [1, 10, 100]) {
      ctx.log(
        `fanout ${runtime} N=${fmtN(n)} M=${
          fmtN(FANOUT_EVENTS)
        } listeners=${listeners} (best of ${reps})`,
      );
      const r = await ctx.client(runtime, "fanout", [
        "--url",
        server.url,
        "--events",
        String(FANOUT_EVENTS),
        "--listeners",
        String(listeners),
        "--reps",
        String(reps),
      ]);
      if (r === undefined) continue;
      ctx.raw.fanout!.push({ n, ...r });
      ms[listeners] = r;
    }
    if (ms[1] === undefined) return;
    for (const listeners of [10, 100]) {
      const r = ms[listeners];
      if (r === undefined) continue;
      const x = r.ms / ms[1].ms;
      const per = (v: ClientResult): string =>
        `${(v.perEventPerListenerNs / 1000).toFixed(2)} us/ev/listener`;
      ctx.row({
        scenario: `3 fan-out ${listeners} listeners vs 1 (total time)`,
        runtime,
        n,
        result: `${fmtMs(r.ms)} (${per(r)})`,
        baseline: `${fmtMs(ms[1].ms)} (${per(ms[1])})`,
        ratio: fmtX(x),
        target: listeners === 100 ? "<= 3x" : "info",
        holds: listeners === 100 ? x <= 3 : undefined,
      });
    }
  },
  steps: { fanout },
} satisfies Scenario;
