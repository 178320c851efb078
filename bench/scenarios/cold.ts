/**
 * Scenario 7: cold start of an informer in a fresh process, resuming from a checkpoint with
 * objects against a full LIST: time to the first event, to synced, and to current after K
 * changes made since the checkpoint. Changes the bench server's pods, so it runs last.
 * @module
 */
import { createInformer, type SharedInformer } from "../../src/cache/mod.ts";
import { KubeClient, pods } from "../../src/client/mod.ts";
import { option } from "../_runtime.ts";
import { consume, now } from "../_measure.ts";
import { best, fmtMs, fmtN, fmtX } from "../_format.ts";
import type { ClientResult, Scenario } from "../_scenario.ts";

const CHURN_AFTER_CHECKPOINT = 100;

/** Reads a file with the runtime's own API (what a cold-starting job would use). */
async function readText(path: string): Promise<string> {
  const g = globalThis as unknown as {
    Deno?: { readTextFile(path: string): Promise<string> };
    Bun?: { file(path: string): { text(): Promise<string> } };
  };
  if (g.Deno !== undefined) return await g.Deno.readTextFile(path);
  if (g.Bun !== undefined) return await g.Bun.file(path).text();
  const { readFile } = await import("node:fs/promises");
  return await readFile(path, "utf8");
}

/** Step 1 (`--url --file F`): sync, then write `checkpoint({ includeObjects: true })` to F. */
async function checkpoint(): Promise<unknown> {
  const { writeFile } = await import("node:fs/promises");
  const informer = createInformer(new KubeClient({ server: option("url") }), { resource: pods });
  informer.start();
  await informer.waitForSync();
  const text = JSON.stringify(informer.checkpoint({ includeObjects: true }));
  await writeFile(option("file"), text);
  await informer.stop();
  return { bytes: text.length, objects: informer.store.size };
}

/**
 * Step 2, in a fresh process (`--url --mode resume --file F` or `--url --mode list`): the first
 * event of a listener that wants the cache (`replayCache: true`), `waitForSync()`, and the moment
 * it has caught up with the server (`until: "current"`).
 */
async function cold(): Promise<unknown> {
  const url = option("url");
  const mode = option("mode");
  const t0 = now();
  let resumeFrom: unknown;
  if (mode === "resume") resumeFrom = JSON.parse(await readText(option("file")));
  else if (mode !== "list") throw new TypeError(`unknown --mode ${mode}`);
  const informer: SharedInformer = createInformer(new KubeClient({ server: url }), {
    resource: pods,
    ...(resumeFrom === undefined ? {} : { resumeFrom: resumeFrom as never }),
  });
  const first = informer.events({ replayCache: true }).next().then(now);
  const current = consume(informer.events({ until: "current", replayCache: false }), () => false);
  informer.start();
  const synced = informer.waitForSync().then(now);
  const result = {
    mode,
    firstEventMs: (await first) - t0,
    syncedMs: (await synced) - t0,
    currentMs: (await current) - t0,
    objects: informer.store.size,
  };
  await informer.stop();
  return result;
}

async function post(url: string): Promise<unknown> {
  const response = await fetch(url, { method: "POST" });
  return await response.json();
}

export default {
  name: "cold",
  order: 7,
  async withServer(ctx, server, n) {
    const file = `${ctx.tmp}/checkpoint-${n}.json`;
    const reps = ctx.quick ? 1 : 2;
    ctx.log(`cold start N=${fmtN(n)}: writing the checkpoint`);
    const cp = await ctx.client("node", "cold/checkpoint", ["--url", server.url, "--file", file]);
    if (cp === undefined) return;
    const churn = await post(`${server.url}/bench/churn?steps=${CHURN_AFTER_CHECKPOINT}`);
    for (const runtime of ctx.runtimes) {
      ctx.log(`cold start ${runtime} N=${fmtN(n)} (best of ${reps})`);
      const [resume, list] = await ctx.repeat(reps, [
        () =>
          ctx.client(runtime, "cold", ["--url", server.url, "--mode", "resume", "--file", file]),
        () => ctx.client(runtime, "cold", ["--url", server.url, "--mode", "list"]),
      ]) as [ClientResult[], ClientResult[]];
      if (resume.length === 0 || list.length === 0) continue;
      ctx.raw.cold!.push({ n, runtime, checkpointBytes: cp.bytes, churn, resume, list });
      const pick = (rs: ClientResult[], k: string): number => best(rs.map((x) => x[k]));
      const moments = [
        ["first event", "firstEventMs", true],
        ["synced", "syncedMs", true],
        [`current (+${CHURN_AFTER_CHECKPOINT} changes)`, "currentMs", false],
      ] as const;
      for (const [moment, key, targeted] of moments) {
        const resumed = pick(resume, key);
        const listed = pick(list, key);
        ctx.row({
          scenario: `7 cold start to ${moment}: checkpoint vs list`,
          runtime,
          n,
          result: fmtMs(resumed),
          baseline: fmtMs(listed),
          ratio: fmtX(resumed / listed),
          target: targeted ? "< 1x" : "info",
          ...(targeted ? { holds: resumed < listed } : {}),
        });
      }
    }
  },
  steps: { checkpoint, cold },
} satisfies Scenario;
