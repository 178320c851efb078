// Streaming lists (sendInitialEvents=true) against servers that accept them but never finish
// them: the informer falls back to a LIST within initialEventsTimeoutMs, while a real server's
// stream (initial ADDED objects, maybe a few live events, then the end bookmark) and a large
// stream of initial objects that keeps flowing are never cut.
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { pods } from "../../src/client/resource.ts";
import type { KubeObject } from "../../src/client/types.ts";
import { InitialEventsTimeoutError } from "../../src/cache/reflector_errors.ts";
import type { ManualClock } from "../../src/testing/manual_clock.ts";
import type { SimulatedCluster } from "@kinformer/simulator";
import { closed, env, pod } from "../_informer_env.ts";

/** What a scripted streaming list sends: lines now, then one step every `everyMs`. */
interface Script {
  /** Lines sent at once (the initial objects, say). */
  first: (cluster: SimulatedCluster) => string[];
  /** Lines sent at step `n` (1-based); `undefined` ends the response. */
  step: (n: number, cluster: SimulatedCluster) => string[] | undefined;
  everyMs: number;
}

const line = (type: string, object: unknown): string => JSON.stringify({ type, object }) + "\n";

/** A pod as the cluster holds it now, as a watch line of `type`. */
const podLine = (c: SimulatedCluster, type: string, name: string): string =>
  line(type, c.list(pods).find((p) => p.metadata.name === name));

const bookmark = (rv: string, end = false): string =>
  line("BOOKMARK", {
    kind: "Pod",
    apiVersion: "v1",
    metadata: {
      resourceVersion: rv,
      ...(end ? { annotations: { "k8s.io/initial-events-end": "true" } } : {}),
    },
  });

/**
 * A fetch that answers streaming-list watches with `script` (on the manual clock) and passes
 * everything else to the simulated cluster. The script's timer stops when the body is
 * cancelled, so nothing is left behind.
 */
function scripted(clockOf: () => ManualClock, script: Script, log: Logged[]) {
  return (cluster: SimulatedCluster) => (request: Request): Promise<Response> => {
    const clock = clockOf();
    const url = new URL(request.url);
    const stream = url.searchParams.get("sendInitialEvents") === "true";
    const verb = url.searchParams.get("watch") === null ? "list" : "watch";
    log.push({ what: `${verb}${stream ? " (stream)" : ""}`, at: clock.now() });
    if (!stream) return cluster.fetch(request);
    const encoder = new TextEncoder();
    let timer: unknown;
    const body = new ReadableStream<Uint8Array>({
      start(controller) {
        for (const l of script.first(cluster)) controller.enqueue(encoder.encode(l));
        let n = 0;
        const tick = (): void => {
          const lines = script.step(++n, cluster);
          if (lines === undefined) {
            timer = undefined;
            controller.close();
            return;
          }
          for (const l of lines) controller.enqueue(encoder.encode(l));
          timer = clock.setTimeout(tick, script.everyMs);
        };
        timer = clock.setTimeout(tick, script.everyMs);
      },
      cancel() {
        if (timer !== undefined) clock.clearTimeout(timer);
        timer = undefined;
      },
    });
    request.signal.addEventListener("abort", () => {
      if (timer !== undefined) clock.clearTimeout(timer);
      timer = undefined;
    }, { once: true });
    return Promise.resolve(
      new Response(body, { headers: { "content-type": "application/json" } }),
    );
  };
}

/** A request the scripted fetch saw, and when. */
interface Logged {
  what: string;
  at: number;
}

/** An informer on a streaming list scripted by `script`, started; and its environment. */
function start(script: Script, names = ["p1", "p2"]) {
  const log: Logged[] = [];
  const e: ReturnType<typeof env> = env({
    fetch: (c) => scripted(() => e.clock, script, log)(c),
  });
  for (const name of names) e.cluster.create(pods, pod("a", name));
  const inf = e.informer({
    resource: pods,
    initialList: "stream",
    initialEventsTimeoutMs: 10_000,
  });
  inf.start();
  return { e, inf, log, verbs: () => log.map((l) => l.what) };
}

/** Advances the clock second by second until `inf` syncs (or `limitMs` passes). */
async function untilSynced(
  e: ReturnType<typeof env>,
  inf: { hasSynced(): boolean },
  limitMs: number,
): Promise<number> {
  const from = e.clock.now();
  while (!inf.hasSynced() && e.clock.now() - from < limitMs) await e.clock.advance(1_000);
  return e.clock.now() - from;
}

/**
 * The stream was abandoned within the 10 s deadline from its last initial object (sent with
 * the response, when it opened), and the LIST went out at once, as client-go's reflector falls
 * back: no backoff in between.
 */
function withinDeadline(
  inf: { health(): { lastError?: { at: number } | undefined } },
  log: Logged[],
): void {
  const opened = log[0]!.at;
  const abandonedAt = inf.health().lastError?.at ?? Infinity;
  assert.ok(
    abandonedAt - opened <= 10_000,
    `the stream was abandoned after ${abandonedAt - opened} ms`,
  );
  const listedAt = log.find((l) => l.what === "list")?.at ?? Infinity;
  assert.equal(listedAt, abandonedAt, "the LIST goes out when the stream is abandoned");
}

describe("streaming lists against servers that never finish them", () => {
  test("initial objects, then plain bookmarks every 2 s and no end bookmark: LIST within the deadline", async () => {
    const { e, inf, log, verbs } = start({
      first: (c) => [podLine(c, "ADDED", "p1"), podLine(c, "ADDED", "p2")],
      step: (_, c) => [bookmark(c.resourceVersion)],
      everyMs: 2_000,
    });
    await untilSynced(e, inf, 60_000);
    assert.equal(inf.hasSynced(), true, "the keep-alive bookmarks did not count as progress");
    withinDeadline(inf, log);
    assert.deepEqual(verbs().slice(0, 2), ["watch (stream)", "list"]);
    const error = e.errors[0]?.error;
    assert.ok(error instanceof InitialEventsTimeoutError);
    assert.equal(error.unexpected, "bookmark");
    assert.match(error.message, /does not seem to implement streaming lists/);
    assert.deepEqual(inf.store.listKeys().sort(), ["a/p1", "a/p2"]);
    await closed(e);
  });

  test("initial objects, then live MODIFIED events every 2 s and no end bookmark: LIST within the deadline", async () => {
    const { e, inf, log } = start({
      first: (c) => [podLine(c, "ADDED", "p1"), podLine(c, "ADDED", "p2")],
      step: (_, c) => [podLine(c, "MODIFIED", "p1")],
      everyMs: 2_000,
    });
    await untilSynced(e, inf, 60_000);
    assert.equal(inf.hasSynced(), true);
    withinDeadline(inf, log);
    assert.equal((e.errors[0]?.error as InitialEventsTimeoutError).unexpected, "MODIFIED");
    await closed(e);
  });

  test("no initial objects, only keep-alive bytes (empty lines) every 2 s: LIST within the deadline", async () => {
    const { e, inf, log } = start({ first: () => [], step: () => ["\n"], everyMs: 2_000 });
    await untilSynced(e, inf, 60_000);
    assert.equal(inf.hasSynced(), true, "bytes that carry no initial object are no progress");
    withinDeadline(inf, log);
    assert.equal(e.errors[0]?.kind, "initial-events-timeout");
    assert.deepEqual(inf.store.listKeys().sort(), ["a/p1", "a/p2"]);
    await closed(e);
  });

  test("initial objects, then only empty lines every 2 s and no end bookmark: LIST within the deadline", async () => {
    const { e, inf, log } = start({
      first: (c) => [podLine(c, "ADDED", "p1"), podLine(c, "ADDED", "p2")],
      step: () => ["\n"],
      everyMs: 2_000,
    });
    await untilSynced(e, inf, 60_000);
    assert.equal(inf.hasSynced(), true, "empty lines after the initial objects are no progress");
    withinDeadline(inf, log);
    assert.equal(e.errors[0]?.kind, "initial-events-timeout");
    assert.deepEqual(inf.store.listKeys().sort(), ["a/p1", "a/p2"]);
    await closed(e);
  });

  test("as kube-apiserver before 1.32 may: a live MODIFIED between the initial objects and the end bookmark is applied, no fallback", async () => {
    const { e, inf, verbs } = start({
      first: (c) => [podLine(c, "ADDED", "p1"), podLine(c, "ADDED", "p2")],
      step: (n, c) => {
        if (n === 1) {
          c.update(pods, {
            ...pod("a", "p2"),
            metadata: { namespace: "a", name: "p2", labels: { v: "2" } },
          });
          return [podLine(c, "MODIFIED", "p2")];
        }
        if (n === 2) return [bookmark(c.resourceVersion, true)];
        return [bookmark(c.resourceVersion)];
      },
      everyMs: 600,
    });
    await untilSynced(e, inf, 5_000);
    assert.equal(inf.hasSynced(), true);
    assert.deepEqual(verbs(), ["watch (stream)"], "no fallback to LIST");
    assert.deepEqual(e.errors, []);
    assert.equal((inf.store.get("a/p2") as KubeObject).metadata.labels?.v, "2");
    await closed(e);
  });

  test("a large stream of initial objects that keeps flowing (one every 2 s for a minute) is never cut", async () => {
    const names = Array.from({ length: 30 }, (_, i) => `p${i}`);
    const { e, inf, verbs } = start({
      first: (c) => [podLine(c, "ADDED", names[0]!)],
      step: (n, c) => {
        if (n < names.length) return [podLine(c, "ADDED", names[n]!)];
        if (n === names.length) return [bookmark(c.resourceVersion, true)];
        return [bookmark(c.resourceVersion)];
      },
      everyMs: 2_000,
    }, names);
    const took = await untilSynced(e, inf, 120_000);
    assert.equal(inf.hasSynced(), true);
    assert.ok(took >= 58_000, `the stream ran ${took} ms, well past the 10 s deadline`);
    assert.deepEqual(verbs(), ["watch (stream)"], "no fallback to LIST");
    assert.equal(inf.store.size, 30);
    await closed(e);
  });
});
