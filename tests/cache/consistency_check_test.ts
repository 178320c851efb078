// The consistency check (`informer.verify()`, the `consistencyCheck` option) against the
// simulated cluster: faults that really lose or corrupt watch events are caught, per kind;
// events in flight, deletes and creations after the list are not reported; the check keeps its
// budget, never runs twice at once, ends cleanly, and repairs through the normal relist path.
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { configmaps, pods } from "../../src/client/resource.ts";
import type { KubeObject } from "../../src/client/types.ts";
import type { InformerOptions } from "../../src/cache/informer_options.ts";
import type { SharedInformer } from "../../src/cache/informer.ts";
import type { ConsistencyCheckResult } from "../../src/cache/consistency_check_options.ts";
import { DriftError } from "../../src/cache/drift_error.ts";
import { SharedInformerFactory } from "../../src/cache/factory.ts";
import { closed, type Env, env, pod, show, take } from "../_informer_env.ts";

/** A cluster with `count` pods in namespace "a" (p00, p01, ...) and a synced, watching informer. */
async function watching(
  e: Env,
  count: number,
  options: Omit<InformerOptions<KubeObject>, "resource"> = {},
): Promise<SharedInformer> {
  for (let i = 0; i < count; i++) {
    e.cluster.create(pods, pod("a", `p${String(i).padStart(2, "0")}`));
  }
  const inf = e.informer<KubeObject>({ ...options, resource: pods });
  inf.start();
  await inf.waitForSync();
  await e.clock.flush();
  return inf;
}

/** Advances the clock a second at a time until `p` settles (at most `maxMs`). */
async function settle<T>(e: Env, p: Promise<T>, maxMs = 600_000): Promise<T> {
  let done = false;
  p.then(() => (done = true), () => (done = true));
  await e.clock.flush();
  for (let t = 0; !done && t < maxMs; t += 1_000) await e.clock.advance(1_000);
  return await p;
}

const keys = (r: ConsistencyCheckResult, kind: "missing" | "extra" | "stale"): string[] =>
  r[kind].map((entry) => entry.key);

/** The check's LIST requests: it sends no resourceVersion (the reflector always sends one). */
const checkLists = (e: Env) =>
  e.cluster.requests.filter((r) => r.verb === "list" && r.query.resourceVersion === undefined);

describe("consistency check: no false drift", () => {
  test("a cache in step with the server is consistent, at the list's resource version", async () => {
    const e = env();
    const inf = await watching(e, 5);
    const r = await settle(e, inf.verify());
    assert.equal(r.outcome, "consistent");
    assert.equal(r.reason, undefined);
    assert.equal(r.resourceVersion, e.cluster.resourceVersion);
    assert.equal(r.listed, 5);
    assert.equal(r.compared, 5);
    assert.deepEqual([r.missing, r.extra, r.stale], [[], [], []]);
    const list = checkLists(e)[0]!;
    assert.equal(list.query.limit, "500"); // paged at the informer's page size
    assert.deepEqual(e.errors, []);
    await closed(e);
  });

  test("waits until the cache reaches the list's resource version (a bookmark), so in-flight state is not drift", async () => {
    const e = env();
    const inf = await watching(e, 3);
    // A write to another resource moves the global resource version past the pods cache's.
    e.cluster.create(configmaps, { metadata: { namespace: "a", name: "c" } });
    let result: ConsistencyCheckResult | undefined;
    const pending = inf.verify().then((r) => (result = r));
    await e.clock.advance(30_000);
    assert.equal(result, undefined, "still waiting for the cache to reach the list's RV");
    assert.equal(inf.health().consistency.running, true);
    await e.clock.advance(30_000); // the watch's bookmark (every 60 s) carries the newer RV
    await pending;
    assert.equal(result!.outcome, "consistent");
    assert.equal(result!.resourceVersion, e.cluster.resourceVersion);
    await closed(e);
  });

  test("keeps waiting when the cache's resource version moves but stays behind the list's", async () => {
    // Watch bytes are held while the check lists, then let through: the pod event moves the
    // cache to an RV still older than the list's, and the next bookmark reaches it.
    let holding = false;
    const held: (() => void)[] = [];
    const e = env({
      fetch: (c) => async (req) => {
        const res = await c.fetch(req);
        if (!new URL(req.url).searchParams.has("watch") || res.body === null) return res;
        const body = res.body.pipeThrough(
          new TransformStream<Uint8Array, Uint8Array>({
            transform: (chunk, out) => {
              if (!holding) return out.enqueue(chunk);
              return new Promise<void>((resolve) =>
                held.push(() => {
                  out.enqueue(chunk);
                  resolve();
                })
              );
            },
          }),
        );
        return new Response(body, { status: res.status, headers: res.headers });
      },
    });
    const inf = await watching(e, 1);
    holding = true;
    e.cluster.create(pods, pod("a", "late"));
    e.cluster.create(configmaps, { metadata: { namespace: "a", name: "c" } });
    const listRv = e.cluster.resourceVersion;
    let result: ConsistencyCheckResult | undefined;
    const pending = inf.verify().then((r) => (result = r));
    await e.clock.advance(1_000);
    holding = false;
    for (const release of held.splice(0)) release();
    await e.clock.advance(1_000);
    assert.notEqual(inf.resourceVersion, listRv, "the pod event alone does not reach the list");
    assert.equal(result, undefined);
    await e.clock.advance(60_000); // the bookmark carries the list's RV
    const r = await settle(e, pending);
    assert.equal(r.outcome, "consistent", JSON.stringify(r));
    assert.ok(r.finishedAt - r.startedAt < 120_000, "no wait until maxWaitMs");
    assert.equal(r.resourceVersion, listRv);
    await closed(e);
  });

  test("objects created, changed and deleted while a paced check runs are not reported", async () => {
    const e = env();
    const inf = await watching(e, 10, {
      consistencyCheck: { pageSize: 2, requestsPerMinute: 6, intervalMs: 0 },
    });
    const pending = inf.verify();
    await e.clock.flush(); // page 1 (p00, p01) is in; the next page waits 10 s
    e.cluster.delete(pods, { namespace: "a", name: "p00" }); // listed, deleted after the list
    e.cluster.patch(pods, { namespace: "a", name: "p01" }, { metadata: { labels: { x: "1" } } });
    e.cluster.patch(pods, { namespace: "a", name: "p09" }, { metadata: { labels: { x: "1" } } });
    e.cluster.create(pods, pod("a", "new"));
    await e.clock.advance(15_000);
    e.cluster.delete(pods, { namespace: "a", name: "p08" });
    const r = await settle(e, pending);
    assert.equal(r.outcome, "consistent", JSON.stringify(r));
    assert.equal(r.pages, 5);
    assert.equal(r.listed, 10);
    assert.equal(r.changedAfterList, 5); // p00, p01, p08, p09 and new are newer than the list
    assert.equal(r.compared, 6);
    await closed(e);
  });
});

describe("consistency check: each kind of drift is caught", () => {
  test("a lost ADDED: missing, reported to onError, health() and the metrics hook", async () => {
    const e = env();
    const results: ConsistencyCheckResult[] = [];
    const inf = await watching(e, 2, { metrics: { onConsistencyCheck: (r) => results.push(r) } });
    e.cluster.faults.loseNextWatchEvent({ resource: pods });
    e.cluster.create(pods, pod("a", "lost"));
    const r = await settle(e, inf.verify());
    assert.equal(r.outcome, "drift");
    assert.deepEqual(keys(r, "missing"), ["a/lost"]);
    assert.deepEqual([keys(r, "extra"), keys(r, "stale")], [[], []]);
    const stored = e.cluster.list(pods).find((p) => p.metadata.name === "lost")!;
    assert.deepEqual(r.missing[0]!.server, {
      uid: stored.metadata.uid,
      resourceVersion: stored.metadata.resourceVersion,
    });
    assert.equal(r.resourceVersion, stored.metadata.resourceVersion);
    assert.equal(inf.store.get("a/lost"), undefined, "report only: the cache is left alone");
    const drift = e.errors.filter((x) => x.kind === "drift");
    assert.equal(drift.length, 1);
    const error = drift[0]!.error as DriftError;
    assert.ok(error instanceof DriftError);
    assert.deepEqual(
      [error.missing, error.extra, error.stale, error.sampleKeys, error.repairing],
      [1, 0, 0, ["a/lost"], false],
    );
    assert.equal(error.resourceVersion, r.resourceVersion);
    const h = inf.health();
    assert.equal(h.consistency.checks, 1);
    assert.equal(h.consistency.lastOutcome, "drift");
    assert.equal(h.consistency.lastCheckAt, r.finishedAt);
    assert.equal(h.consistency.lastResourceVersion, r.resourceVersion);
    assert.deepEqual(
      [h.consistency.driftChecks, h.consistency.missing, h.consistency.extra, h.consistency.stale],
      [1, 1, 0, 0],
    );
    assert.equal(h.errors.drift, 1);
    assert.deepEqual(results, [r]);
    await closed(e);
  });

  test("a namespaced, label- and field-selected informer is checked against the same selection", async () => {
    const e = env();
    for (const ns of ["a", "b"]) {
      for (const app of ["web", "db"]) {
        for (let i = 0; i < 3; i++) e.cluster.create(pods, pod(ns, `${app}-${i}`, { app }));
      }
    }
    e.cluster.patch(pods, { namespace: "a", name: "web-2" }, { spec: { nodeName: "n2" } });
    const inf = e.informer<KubeObject>({
      resource: pods,
      namespace: "a",
      labelSelector: "app=web",
      fieldSelector: "spec.nodeName!=n2",
    });
    inf.start();
    await inf.waitForSync();
    await e.clock.flush();
    assert.deepEqual(inf.store.listKeys().sort(), ["a/web-0", "a/web-1"]);
    const r = await settle(e, inf.verify());
    // Objects outside the selection (other namespaces, other labels, other fields) are not
    // "missing": the check lists exactly what the informer watches.
    assert.equal(r.outcome, "consistent", JSON.stringify(r));
    assert.equal(r.listed, 2);
    const list = checkLists(e)[0]!;
    assert.equal(list.namespace, "a");
    assert.equal(list.query.labelSelector, "app=web");
    assert.equal(list.query.fieldSelector, "spec.nodeName!=n2");
    // A lost event inside the selection is still caught.
    e.cluster.faults.loseNextWatchEvent({ resource: pods });
    e.cluster.create(pods, pod("a", "web-9", { app: "web" }));
    const r2 = await settle(e, inf.verify());
    assert.deepEqual(keys(r2, "missing"), ["a/web-9"]);
    await closed(e);
  });

  test("many drifted keys: the result lists every one, the error names five and says there are more", async () => {
    const e = env();
    const inf = await watching(e, 1);
    for (let i = 0; i < 8; i++) {
      e.cluster.faults.loseNextWatchEvent({ resource: pods });
      e.cluster.create(pods, pod("a", `lost-${i}`));
    }
    const r = await settle(e, inf.verify());
    assert.equal(keys(r, "missing").length, 8);
    const error = e.errors.find((x) => x.kind === "drift")!.error as DriftError;
    assert.equal(error.missing, 8);
    assert.equal(error.sampleKeys.length, 5);
    assert.ok(error.sampleKeys.every((k) => keys(r, "missing").includes(k)));
    assert.match(error.message, /8 missing, 0 extra, 0 stale \([^)]*, \.\.\.\)/);
    await closed(e);
  });

  test("a lost DELETED: extra", async () => {
    const e = env();
    const inf = await watching(e, 3);
    e.cluster.faults.loseNextWatchEvent();
    e.cluster.delete(pods, { namespace: "a", name: "p01" });
    const r = await settle(e, inf.verify());
    assert.equal(r.outcome, "drift");
    assert.deepEqual([keys(r, "missing"), keys(r, "extra"), keys(r, "stale")], [
      [],
      ["a/p01"],
      [],
    ]);
    assert.equal(r.extra[0]!.server, undefined);
    assert.equal(r.extra[0]!.cache?.uid, inf.store.get("a/p01")!.metadata.uid);
    await closed(e);
  });

  test("a lost MODIFIED: stale (an older resourceVersion in the cache)", async () => {
    const e = env();
    const inf = await watching(e, 3);
    const before = inf.store.get("a/p02")!.metadata.resourceVersion;
    e.cluster.faults.loseNextWatchEvent();
    e.cluster.patch(pods, { namespace: "a", name: "p02" }, { metadata: { labels: { x: "1" } } });
    const r = await settle(e, inf.verify());
    assert.deepEqual([keys(r, "missing"), keys(r, "extra"), keys(r, "stale")], [
      [],
      [],
      ["a/p02"],
    ]);
    assert.equal(r.stale[0]!.cache?.resourceVersion, before);
    assert.notEqual(r.stale[0]!.server?.resourceVersion, before);
    await closed(e);
  });

  test("an event carrying the wrong object: stale (wrong uid; an old version)", async () => {
    const e = env();
    const inf = await watching(e, 3);
    e.cluster.faults.corruptNextWatchEvent({ corruption: "wrong-uid" });
    e.cluster.patch(pods, { namespace: "a", name: "p00" }, { metadata: { labels: { x: "1" } } });
    e.cluster.faults.corruptNextWatchEvent({ corruption: "old-version" });
    e.cluster.patch(pods, { namespace: "a", name: "p01" }, { metadata: { labels: { x: "1" } } });
    const r = await settle(e, inf.verify());
    assert.equal(r.outcome, "drift");
    assert.deepEqual(keys(r, "stale"), ["a/p00", "a/p01"]);
    const [uid, old] = r.stale;
    assert.notEqual(uid!.cache?.uid, uid!.server?.uid);
    assert.equal(uid!.cache?.resourceVersion, uid!.server?.resourceVersion);
    assert.equal(old!.cache?.uid, old!.server?.uid);
    assert.notEqual(old!.cache?.resourceVersion, old!.server?.resourceVersion);
    await closed(e);
  });

  test("a server whose resource version went back (etcd restored): the cache's future is drift", async () => {
    // The check's list answers as a server restored from an old backup would: an older
    // resource version, and without the pod created after that backup.
    const e = env({
      fetch: (c) => async (req) => {
        const url = new URL(req.url);
        const response = await c.fetch(req);
        if (url.searchParams.has("watch") || url.searchParams.has("resourceVersion")) {
          return response;
        }
        const list = await response.json() as {
          metadata: { resourceVersion: string };
          items: KubeObject[];
        };
        list.metadata.resourceVersion = "2";
        list.items = list.items.filter((p) => p.metadata.name !== "p02");
        return Response.json(list);
      },
    });
    const inf = await watching(e, 3);
    const r = await settle(e, inf.verify());
    assert.equal(r.serverBehind, true);
    assert.equal(r.outcome, "drift");
    assert.deepEqual(keys(r, "extra"), ["a/p02"]);
    assert.equal(r.compared, 3);
    await closed(e);
  });

  test("repair: a consistent relist through Replace, listeners see exactly the difference, then consistent", async () => {
    const e = env();
    const inf = await watching(e, 3, { consistencyCheck: { repair: true, intervalMs: 0 } });
    const it = inf.events({ replayCache: false });
    const f = e.cluster.faults;
    f.loseNextWatchEvent();
    e.cluster.create(pods, pod("a", "lost"));
    f.loseNextWatchEvent();
    e.cluster.delete(pods, { namespace: "a", name: "p00" });
    f.loseNextWatchEvent();
    e.cluster.patch(pods, { namespace: "a", name: "p01" }, { metadata: { labels: { x: "1" } } });
    const listsBefore = e.cluster.requests.filter((r) => r.verb === "list").length;
    const r = await settle(e, inf.verify());
    assert.equal(r.outcome, "drift");
    assert.equal(r.repairing, true);
    assert.equal((e.errors.find((x) => x.kind === "drift")!.error as DriftError).repairing, true);
    const seen = await take(it, (_, all) => all.length === 4); // synced, then the difference
    assert.deepEqual(seen.map(show).sort(), [
      "add lost",
      "delete p00 (unknown)",
      "synced",
      "update p01",
    ]);
    // The repair is one consistent, paged LIST by the reflector (after the check's own).
    const lists = e.cluster.requests.filter((q) => q.verb === "list").slice(listsBefore);
    assert.equal(lists.length, 2);
    assert.equal(lists[1]!.query.resourceVersion, ""); // consistent: not from a watch cache
    assert.equal(lists[1]!.query.limit, "500");
    assert.equal(inf.health().relists, 1);
    assert.equal(inf.health().consistency.repairs, 1);
    const again = await settle(e, inf.verify());
    assert.equal(again.outcome, "consistent");
    await it.return?.();
    await closed(e);
  });
});

describe("consistency check: cheap, bounded, never twice at once", () => {
  test("pages of a large list are spread within the budget of requests per minute", async () => {
    const at: number[] = []; // clock time of each consistent list request
    const e = env({
      fetch: (c) => (req) => {
        const rv = new URL(req.url).searchParams.get("resourceVersion");
        if (req.method === "GET" && rv === null && !req.url.includes("watch")) {
          at.push(e.clock.now());
        }
        return c.fetch(req);
      },
    });
    const inf = await watching(e, 10, {
      consistencyCheck: { pageSize: 3, requestsPerMinute: 4, intervalMs: 0 },
    });
    const r = await settle(e, inf.verify());
    assert.equal(r.outcome, "consistent");
    assert.equal(r.pages, 4);
    const lists = checkLists(e);
    assert.equal(lists.length, 4);
    assert.ok(lists.every((q) => q.query.limit === "3"));
    assert.equal(lists[0]!.query.continue, undefined);
    assert.equal(at.length, 4);
    for (let i = 1; i < lists.length; i++) {
      assert.ok(lists[i]!.query.continue !== undefined);
      assert.ok(at[i]! - at[i - 1]! >= 15_000, `page ${i} came ${at[i]! - at[i - 1]!} ms after`);
    }
    await closed(e);
  });

  test("a check asked for while one runs joins it: one list, one result", async () => {
    const e = env();
    const inf = await watching(e, 4, { consistencyCheck: { pageSize: 2, intervalMs: 0 } });
    const [a, b] = await settle(e, Promise.all([inf.verify(), inf.verify()]));
    assert.equal(a, b);
    assert.equal(checkLists(e).length, 2); // two pages of one check
    assert.equal(inf.health().consistency.checks, 1);
    await closed(e);
  });

  test("skipped before start, before the first sync, and for a checkpoint without objects", async () => {
    const e = env();
    e.cluster.create(pods, pod("a", "p"));
    const inf = e.informer({ resource: pods });
    assert.deepEqual(
      [(await inf.verify()).outcome, (await inf.verify()).reason],
      ["skipped", "not-running"],
    );
    e.cluster.faults.stall();
    inf.start();
    const r = await inf.verify();
    assert.deepEqual([r.outcome, r.reason], ["skipped", "not-synced"]);
    e.cluster.faults.resume();
    await inf.waitForSync();
    const cp = inf.checkpoint();
    await inf.stop();
    assert.equal((await inf.verify()).reason, "not-running");
    const resumed = e.informer({ resource: pods, resumeFrom: cp });
    resumed.start();
    assert.equal((await resumed.verify()).reason, "not-synced");
    assert.equal(checkLists(e).length, 0);
    await closed(e);
  });

  test("a relist during the check makes it inconclusive, not drift", async () => {
    const e = env();
    const inf = await watching(e, 3);
    e.cluster.create(configmaps, { metadata: { namespace: "a", name: "c" } });
    const pending = inf.verify();
    await e.clock.advance(1_000); // listed; waiting for the cache to reach the list's RV
    e.cluster.faults.compact();
    e.cluster.faults.dropWatches(); // the re-watch gets 410: the informer relists
    const r = await settle(e, pending);
    assert.deepEqual([r.outcome, r.reason], ["inconclusive", "relisted"]);
    assert.equal(e.errors.filter((x) => x.kind === "drift").length, 0);
    await closed(e);
  });

  test("a cache that never reaches the list's RV within maxWaitMs: inconclusive (timeout)", async () => {
    const e = env({ cluster: { bookmarkIntervalMs: 600_000 } });
    const inf = await watching(e, 2, { consistencyCheck: { maxWaitMs: 30_000, intervalMs: 0 } });
    e.cluster.create(configmaps, { metadata: { namespace: "a", name: "c" } });
    const pending = inf.verify();
    await e.clock.advance(29_000);
    assert.equal(inf.health().consistency.checks, 0);
    await e.clock.advance(1_000);
    const r = await pending;
    assert.deepEqual([r.outcome, r.reason], ["inconclusive", "timeout"]);
    await closed(e);
  });

  test("a failing LIST ends the check inconclusive (error), reported to onError", async () => {
    const e = env();
    const inf = await watching(e, 2);
    e.cluster.faults.failNext(1, { verb: "list", status: 500 });
    const r = await settle(e, inf.verify());
    assert.deepEqual([r.outcome, r.reason], ["inconclusive", "error"]);
    assert.ok(r.error !== undefined);
    assert.deepEqual(e.errors.map((x) => x.kind), ["server"]);
    await closed(e);
  });

  test("stop() ends a running check cleanly; a verify() whose signal aborts rejects and ends it", async () => {
    const e = env();
    const inf = await watching(e, 2);
    e.cluster.create(configmaps, { metadata: { namespace: "a", name: "c" } });
    const ac = new AbortController();
    const aborted = inf.verify({ signal: ac.signal });
    await e.clock.advance(1_000);
    ac.abort(new Error("gave up"));
    await assert.rejects(aborted, /gave up/);
    await e.clock.flush();
    assert.deepEqual(
      [inf.health().consistency.lastOutcome, inf.health().consistency.lastReason],
      ["inconclusive", "aborted"],
    );
    const pending = inf.verify();
    await e.clock.advance(1_000);
    await inf.stop();
    const r = await pending;
    assert.deepEqual([r.outcome, r.reason], ["inconclusive", "stopped"]);
    await closed(e); // no timer (deadline, pacing) and no watch left
  });
});

describe("consistency check: periodic, options, factory", () => {
  test("runs every intervalMs (jittered up to +25%) once started, and stops with the informer", async () => {
    const e = env();
    const inf = await watching(e, 2, { consistencyCheck: { intervalMs: 60_000 } });
    await e.clock.advance(59_000);
    assert.equal(inf.health().consistency.checks, 0);
    await e.clock.advance(16_000);
    assert.equal(inf.health().consistency.checks, 1);
    assert.equal(inf.health().consistency.lastOutcome, "consistent");
    await e.clock.advance(150_000);
    assert.ok(inf.health().consistency.checks >= 3);
    await closed(e);
  });

  test("a throwing metrics hook is reported as a handler error and the check goes on", async () => {
    const e = env();
    const inf = await watching(e, 1, {
      metrics: {
        onConsistencyCheck: () => {
          throw new Error("hook broke");
        },
      },
    });
    assert.equal((await settle(e, inf.verify())).outcome, "consistent");
    assert.deepEqual(e.errors.map((x) => x.kind), ["handler"]);
    await closed(e);
  });

  test("options are validated, naming the field", () => {
    const e = env();
    const bad: [unknown, RegExp, ErrorConstructor][] = [
      ["yes", /consistencyCheck: options must be an object/, TypeError],
      [{ intervalMs: -1 }, /consistencyCheck\.intervalMs/, RangeError],
      [{ requestsPerMinute: 0 }, /consistencyCheck\.requestsPerMinute/, RangeError],
      [{ pageSize: 1.5 }, /consistencyCheck\.pageSize/, RangeError],
      [{ maxWaitMs: "1" }, /consistencyCheck\.maxWaitMs/, TypeError],
      [{ repair: 1 }, /consistencyCheck\.repair/, TypeError],
    ];
    for (const [consistencyCheck, message, kind] of bad) {
      assert.throws(
        () => e.informer({ resource: pods, consistencyCheck: consistencyCheck as never }),
        (error: unknown) => error instanceof kind && message.test((error as Error).message),
      );
    }
    assert.doesNotThrow(() =>
      e.informer({ resource: pods, consistencyCheck: { requestsPerMinute: Infinity } })
    );
    e.cluster.close();
  });

  test("the factory passes a consistencyCheck default to every informer and verifies them all", async () => {
    const e = env();
    e.cluster.create(pods, pod("a", "p"));
    e.cluster.create(configmaps, { metadata: { namespace: "a", name: "c" } });
    const factory = new SharedInformerFactory(e.client, {
      clock: e.clock,
      consistencyCheck: { intervalMs: 60_000 },
    });
    const podInformer = factory.informerFor(pods);
    const cmInformer = factory.informerFor(configmaps);
    factory.start();
    await factory.waitForSync();
    e.cluster.faults.loseNextWatchEvent({ resource: configmaps });
    e.cluster.create(configmaps, { metadata: { namespace: "a", name: "lost" } });
    const results = await settle(e, factory.verify());
    assert.equal(results.get(podInformer as SharedInformer<KubeObject>)?.outcome, "consistent");
    assert.deepEqual(keys(results.get(cmInformer)!, "missing"), ["a/lost"]);
    await e.clock.advance(80_000);
    assert.ok(podInformer.health().consistency.checks >= 2, "periodic checks are on");
    await factory.stop();
    await closed(e);
  });
});
