// Checkpoint, resume and catch-up runs (the serverless pattern), against the simulated cluster on
// a manual clock: what a resumed informer asks the server for, what its listeners are told, and
// where a catch-up run (`events({ until: "current" })`) ends.
import { resumeFromCheckpoint } from "../../src/cache/_checkpoint_validation.ts";
import { makeCheckpoint } from "../../src/cache/checkpoint.ts";
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { configmaps, pods } from "../../src/client/resource.ts";
import type { KubeObject } from "../../src/client/types.ts";
import type { InformerCheckpoint, SharedInformer } from "../../src/cache/informer.ts";
import type { InformerEvent } from "../../src/cache/informer_event.ts";
import { objectKey } from "../../src/cache/object_key.ts";
import { CheckpointError } from "../../src/cache/checkpoint_error.ts";
import { compareResourceVersions } from "../../src/util/resource_version.ts";
import { closed, type Env, env, pod, show, take, verbs } from "../_informer_env.ts";

/** Runs an informer to its first sync, takes a checkpoint and stops it. */
async function checkpointOf(
  e: Env,
  options: { namespace?: string; labelSelector?: string; includeObjects?: boolean } = {},
): Promise<InformerCheckpoint> {
  const { includeObjects = true, ...selection } = options;
  const first = e.informer({ resource: pods, ...selection });
  first.start();
  await first.waitForSync();
  const cp = first.checkpoint({ includeObjects });
  await first.stop();
  // What a serverless job does with it: store it as JSON, read it back next time.
  return JSON.parse(JSON.stringify(cp)) as InformerCheckpoint;
}

/**
 * An env whose `limit=1` lists (a catch-up run's lookup of the current resource version) wait
 * until `answer()` is called.
 */
function envWithLookupsHeld(): { e: Env; answer: () => void } {
  let answer!: () => void;
  const held = new Promise<void>((resolve) => (answer = resolve));
  const e = env({
    fetch: (c) => async (req) => {
      if (new URL(req.url).searchParams.get("limit") === "1") await held;
      return c.fetch(req);
    },
  });
  return { e, answer };
}

/** Drains a catch-up iteration. */
async function drain<T extends KubeObject>(
  it: AsyncIterable<InformerEvent<T>>,
): Promise<InformerEvent<T>[]> {
  const out: InformerEvent<T>[] = [];
  for await (const ev of it) out.push(ev);
  return out;
}

/** `key -> uid@resourceVersion` of a set of objects. */
function fingerprint(objects: Iterable<KubeObject>): Map<string, string> {
  const out = new Map<string, string>();
  for (const o of objects) out.set(objectKey(o), `${o.metadata.uid}@${o.metadata.resourceVersion}`);
  return out;
}

/**
 * Applies delivered events to a consumer's model of the cache, checking each one makes sense
 * against what the consumer already knows (an update's old object and a delete's object are the
 * ones it holds; an add is for a key it does not hold).
 */
function applyTo(model: Map<string, KubeObject>, ev: InformerEvent): void {
  switch (ev.type) {
    case "add": {
      const key = objectKey(ev.object);
      assert.equal(model.has(key), false, `add of ${key}, which the consumer already holds`);
      model.set(key, ev.object);
      return;
    }
    case "update": {
      const key = objectKey(ev.object);
      const held = model.get(key);
      assert.ok(held !== undefined, `update of ${key}, which the consumer never got`);
      assert.equal(
        ev.oldObject.metadata.resourceVersion,
        held.metadata.resourceVersion,
        `old object of ${key}`,
      );
      assert.equal(ev.object.metadata.uid, held.metadata.uid, `update of ${key} changed its uid`);
      model.set(key, ev.object);
      return;
    }
    case "delete": {
      const key = objectKey(ev.object);
      assert.ok(model.has(key), `delete of ${key}, which the consumer does not hold`);
      model.delete(key);
      return;
    }
    case "synced":
      return;
  }
}

function rvAtLeast(rv: string | undefined, goal: string): boolean {
  return rv !== undefined && (compareResourceVersions(rv, goal) ?? -1) >= 0;
}

describe("checkpoint()", () => {
  test("throws before the first sync; afterwards names the resource, selection and resource version", async () => {
    const e = env();
    e.cluster.create(pods, pod("a", "p1", { app: "web" }));
    const inf = e.informer({ resource: pods, namespace: "a", labelSelector: "app=web" });
    assert.throws(() => inf.checkpoint(), /synced/);
    inf.start();
    await inf.waitForSync();
    const cp = inf.checkpoint();
    assert.deepEqual(cp, {
      version: 1,
      resource: "v1/pods",
      namespace: "a",
      labelSelector: "app=web",
      fieldSelector: "",
      resourceVersion: e.cluster.resourceVersion,
    });
    assert.equal("objects" in cp, false);
    await closed(e);
  });

  test("round-trips through JSON.stringify/parse unchanged, objects as cached (after transform)", async () => {
    const e = env();
    e.cluster.create(pods, {
      ...pod("a", "p1"),
      metadata: { namespace: "a", name: "p1", managedFields: [{ manager: "kubectl" }] },
    });
    e.cluster.create(pods, pod("b", "p2"));
    const inf = e.informer({
      resource: pods,
      transform: (o) => {
        delete o.metadata.managedFields;
        return o;
      },
    });
    inf.start();
    await inf.waitForSync();
    const cp = inf.checkpoint({ includeObjects: true });
    const text = JSON.stringify(cp);
    assert.deepEqual(JSON.parse(text), cp);
    assert.equal(cp.objects?.length, 2);
    assert.ok(cp.objects!.every((o) => o.metadata.managedFields === undefined));
    assert.deepEqual(fingerprint(cp.objects!), fingerprint(inf.store.list()));
    await closed(e);
  });

  test("a checkpoint without objects stays small: the selection and a resource version", async () => {
    const e = env();
    e.cluster.seed(pods, 50);
    const inf = e.informer({ resource: pods });
    inf.start();
    await inf.waitForSync();
    assert.ok(JSON.stringify(inf.checkpoint()).length < 200);
    assert.ok(JSON.stringify(inf.checkpoint({ includeObjects: true })).length > 50 * 1000);
    await closed(e);
  });
});

describe("resuming from a checkpoint", () => {
  test("watches from the checkpoint's resource version with no LIST; the cache is seeded before start", async () => {
    const e = env();
    e.cluster.create(pods, pod("a", "p1"));
    e.cluster.create(pods, pod("a", "p2"));
    const cp = await checkpointOf(e);
    e.cluster.create(pods, pod("a", "p3"));
    e.cluster.clearRequests();

    const inf = e.informer({ resource: pods, resumeFrom: cp });
    assert.equal(inf.hasSynced(), true);
    assert.deepEqual(inf.store.listKeys().sort(), ["a/p1", "a/p2"]);
    assert.equal(inf.resourceVersion, cp.resourceVersion);
    const it = inf.events();
    inf.start();
    const evs = await take(it, (ev) => ev.type === "add");
    assert.deepEqual(evs.map(show), ["synced", "add p3"]);
    assert.deepEqual(verbs(e.cluster), ["watch"]);
    assert.equal(e.cluster.requests[0]!.query.resourceVersion, cp.resourceVersion);
    const h = inf.health();
    assert.equal(h.lists, 0);
    assert.equal(h.relists, 0);
    assert.equal(h.objects, 3);
    await closed(e);
  });

  test("listeners are not sent the seeded objects again, unless they ask with replayCache: true", async () => {
    const e = env();
    e.cluster.create(pods, pod("a", "p1"));
    const cp = await checkpointOf(e);
    const inf = e.informer({ resource: pods, resumeFrom: cp });
    const quiet = await take(inf.events(), () => true);
    assert.deepEqual(quiet.map(show), ["synced"]);
    const replay = await take(inf.events({ replayCache: true }), (ev) => ev.type === "synced");
    assert.deepEqual(replay.map(show), ["add p1 (initial)", "synced"]);
    const added: string[] = [];
    const reg = inf.addEventHandler({ onAdd: (p) => void added.push(p.metadata.name!) });
    await reg.waitForSync();
    assert.deepEqual(added, []);
    reg.remove();
    await closed(e);
  });

  test("after compaction (410) it relists, and listeners see exactly the difference from the seeded state", async () => {
    const e = env();
    for (const n of ["p1", "p2", "p3", "p4"]) e.cluster.create(pods, pod("a", n));
    const cp = await checkpointOf(e);
    // While no one was watching: p1 changes, p2 goes, p3 is re-created (new uid), p5 is new,
    // p4 stays; then the server compacts its history past the checkpoint.
    e.cluster.patch(pods, { namespace: "a", name: "p1" }, { metadata: { labels: { v: "2" } } });
    e.cluster.delete(pods, { namespace: "a", name: "p2" });
    e.cluster.delete(pods, { namespace: "a", name: "p3" });
    e.cluster.create(pods, pod("a", "p3"));
    e.cluster.create(pods, pod("a", "p5"));
    e.cluster.faults.compact();
    e.cluster.clearRequests();

    const inf = e.informer({ resource: pods, resumeFrom: cp });
    const seededP4 = inf.store.get("a/p4");
    const it = inf.events();
    inf.start();
    await e.clock.advance(10_000);
    const evs = await take(it, (_, all) => all.length === 6);
    assert.deepEqual(evs.map(show), [
      "synced",
      "update p1",
      "delete p3 (unknown)",
      "add p3",
      "add p5",
      "delete p2 (unknown)",
    ]);
    const byName = (type: string, name: string) =>
      evs.find((ev) =>
        ev.type === type && ev.type !== "synced" && ev.object.metadata.name === name
      )!;
    const update = byName("update", "p1");
    assert.ok(update.type === "update");
    assert.equal(update.oldObject.metadata.labels?.v, undefined);
    assert.equal(update.object.metadata.labels?.v, "2");
    const gone = byName("delete", "p2");
    assert.ok(gone.type === "delete" && gone.finalStateUnknown);
    assert.equal(
      gone.object.metadata.uid,
      cp.objects!.find((o) => o.metadata.name === "p2")!.metadata.uid,
    );
    const readd = byName("add", "p3");
    assert.ok(readd.type === "add" && readd.isInInitialList === false);
    assert.notEqual(
      readd.object.metadata.uid,
      cp.objects!.find((o) => o.metadata.name === "p3")!.metadata.uid,
    );
    // Nothing for p4, which kept its uid and resourceVersion: the seeded object stays cached.
    assert.equal(inf.store.get("a/p4"), seededP4);
    assert.deepEqual(fingerprint(inf.store.list()), fingerprint(e.cluster.list(pods)));
    // A watch at the checkpoint -> 410; one unpaged list at the checkpoint's version (served
    // from the watch cache, never older than that); then a watch from the new list's version.
    const asked = e.cluster.requests.map((r) =>
      `${r.verb} ${r.query.resourceVersion} ${r.query.limit ?? "-"}`
    );
    assert.deepEqual(asked, [
      `watch ${cp.resourceVersion} -`,
      `list ${cp.resourceVersion} -`,
      `watch ${e.cluster.resourceVersion} -`,
    ]);
    const h = inf.health();
    assert.equal(h.lists, 1);
    assert.equal(h.relists, 1);
    assert.ok((h.errors.expired ?? 0) >= 1);
    await closed(e);
  });

  test("without objects: the cache starts empty and changes since the checkpoint arrive as adds", async () => {
    const e = env();
    e.cluster.create(pods, pod("a", "p1"));
    e.cluster.create(pods, pod("a", "p2"));
    const cp = await checkpointOf(e, { includeObjects: false });
    assert.equal(cp.objects, undefined);
    e.cluster.patch(pods, { namespace: "a", name: "p1" }, { metadata: { labels: { v: "2" } } });
    e.cluster.create(pods, pod("a", "p3"));
    e.cluster.clearRequests();

    const inf = e.informer({ resource: pods, resumeFrom: cp });
    assert.equal(inf.store.size, 0);
    const it = inf.events();
    inf.start();
    const evs = await take(it, (_, all) => all.length === 3);
    assert.deepEqual(evs.map(show), ["synced", "add p1", "add p3"]);
    assert.deepEqual(verbs(e.cluster), ["watch"]);
    assert.deepEqual(inf.store.listKeys().sort(), ["a/p1", "a/p3"]);
    await closed(e);
  });

  test(
    "without objects: a deletion seen on the watch is still told (the DELETED event has the object)",
    async () => {
      const e = env();
      e.cluster.create(pods, pod("a", "p1"));
      const cp = await checkpointOf(e, { includeObjects: false });
      e.cluster.delete(pods, { namespace: "a", name: "p1" });
      e.cluster.create(pods, pod("a", "p2"));
      const inf = e.informer({ resource: pods, resumeFrom: cp });
      const it = inf.events();
      inf.start();
      await e.clock.flush();
      const evs = await take(it, (ev) => ev.type === "add");
      assert.deepEqual(evs.map(show), ["synced", "delete p1", "add p2"]);
      await closed(e);
    },
  );
});

describe("catch-up runs: events({ until: 'current' })", () => {
  test("on a fresh informer: the initial list as adds, synced, then the iteration ends", async () => {
    const e = env();
    e.cluster.create(pods, pod("a", "p1"));
    e.cluster.create(pods, pod("a", "p2"));
    const inf = e.informer({ resource: pods });
    const it = inf.events({ until: "current" });
    inf.start();
    const evs = await drain(it);
    assert.deepEqual(evs.map(show), ["add p1 (initial)", "add p2 (initial)", "synced"]);
    assert.equal(inf.resourceVersion, e.cluster.resourceVersion);
    assert.equal(inf.health().listeners.length, 0);
    // The current resource version comes from a cheap consistent list of one item.
    const probe = e.cluster.requests.filter((r) => r.verb === "list" && r.query.limit === "1");
    assert.equal(probe.length, 1);
    assert.equal(probe[0]!.query.resourceVersion, undefined);
    await closed(e);
  });

  test(
    "on a fresh informer started before events(): the initial list is still delivered",
    async () => {
      const e = env();
      e.cluster.create(pods, pod("a", "p1"));
      const inf = e.informer({ resource: pods });
      inf.start();
      const evs = await drain(inf.events({ until: "current" }));
      assert.deepEqual(evs.map(show), ["add p1 (initial)", "synced"]);
      await closed(e);
    },
  );

  test("on a resumed informer: exactly the changes since the checkpoint, with no paged LIST", async () => {
    const e = env();
    for (const n of ["p1", "p2", "p3"]) e.cluster.create(pods, pod("a", n));
    const cp = await checkpointOf(e);
    e.cluster.create(pods, pod("a", "p4"));
    e.cluster.patch(pods, { namespace: "a", name: "p1" }, { metadata: { labels: { v: "2" } } });
    e.cluster.delete(pods, { namespace: "a", name: "p2" });
    const goal = e.cluster.resourceVersion;
    e.cluster.clearRequests();

    const inf = e.informer({ resource: pods, resumeFrom: cp });
    const it = inf.events({ until: "current" });
    await e.clock.flush(); // the current resource version is known before the watch opens
    inf.start();
    const evs = await drain(it);
    assert.deepEqual(evs.map(show), ["synced", "add p4", "update p1", "delete p2"]);
    assert.equal(inf.resourceVersion, goal);
    assert.deepEqual(
      e.cluster.requests.map((r) => `${r.verb} limit=${r.query.limit ?? "-"}`),
      ["list limit=1", "watch limit=-"],
    );
    await closed(e);
  });

  test("with nothing new since the checkpoint: only synced, then the end", async () => {
    const e = env();
    e.cluster.create(pods, pod("a", "p1"));
    const cp = await checkpointOf(e);
    const inf = e.informer({ resource: pods, resumeFrom: cp });
    const it = inf.events({ until: "current" });
    inf.start();
    assert.deepEqual((await drain(it)).map(show), ["synced"]);
    await closed(e);
  });

  test(
    "changes that arrive while the current resource version is being fetched are delivered",
    async () => {
      const { e, answer } = envWithLookupsHeld();
      e.cluster.create(pods, pod("a", "p1"));
      const cp = await checkpointOf(e);
      e.cluster.create(pods, pod("a", "p2"));
      e.cluster.create(pods, pod("a", "p3"));
      const inf = e.informer({ resource: pods, resumeFrom: cp });
      const run = drain(inf.events({ until: "current" }));
      inf.start();
      await e.clock.flush(); // the watch delivers p2 and p3 while the limit=1 list is held
      assert.equal(inf.resourceVersion, e.cluster.resourceVersion);
      answer();
      assert.deepEqual((await run).map(show), ["synced", "add p2", "add p3"]);
      await closed(e);
    },
  );

  test("while churn goes on (on the clock), every change up to the start RV is delivered, then it ends", async () => {
    const e = env({ seed: 7 });
    e.cluster.seed(pods, 30, (i) => pod("default", `seed-${i}`));
    const cp = await checkpointOf(e);
    e.cluster.churn(200, { resource: pods }); // changes since the checkpoint
    const inf = e.informer({ resource: pods, resumeFrom: cp });
    const it = inf.events({ until: "current" });
    await e.clock.flush();
    const goal = e.cluster.resourceVersion; // the limit=1 list has been answered at this version
    assert.deepEqual(verbs(e.cluster).slice(-1), ["list"]);
    const churn = e.cluster.startChurn({ resource: pods, ratePerSecond: 50 });
    inf.start();
    const model = new Map<string, KubeObject>(cp.objects!.map((o) => [objectKey(o), o]));
    let taken = 0;
    for await (const ev of it) {
      applyTo(model, ev);
      // A slow consumer: the cluster keeps changing while it works through the backlog.
      if (++taken % 25 === 0) await e.clock.advance(100);
    }
    // Taken as the iteration ends: what the consumer holds must be the cache at that point.
    const end = { rv: inf.resourceVersion, cache: fingerprint(inf.store.list()) };
    const churned = churn.stats.steps;
    churn.stop();
    assert.ok(churned > 0, "churn ran during the catch-up");
    assert.ok(rvAtLeast(end.rv, goal), `ended at ${end.rv}, before ${goal}`);
    assert.deepEqual(fingerprint(model.values()), end.cache);
    // And that cache is the cluster's state: let the informer catch up with the rest, compare.
    await e.clock.flush();
    assert.deepEqual(fingerprint(inf.store.list()), fingerprint(e.cluster.list(pods)));
    await closed(e);
  });

  test("after compaction, a catch-up run relists and still ends with the consumer holding the cache", async () => {
    const e = env({ seed: 11 });
    e.cluster.seed(pods, 20, (i) => pod("default", `seed-${i}`));
    const cp = await checkpointOf(e);
    e.cluster.churn(100, { resource: pods });
    e.cluster.faults.compact();
    const inf = e.informer({ resource: pods, resumeFrom: cp });
    const it = inf.events({ until: "current" });
    await e.clock.flush();
    const goal = e.cluster.resourceVersion;
    inf.start();
    const model = new Map<string, KubeObject>(cp.objects!.map((o) => [objectKey(o), o]));
    const run = (async () => {
      for await (const ev of it) applyTo(model, ev);
      return fingerprint(inf.store.list());
    })();
    await e.clock.advance(10_000); // the relist waits out one backoff after the 410 on LIST
    const cache = await run;
    assert.ok(rvAtLeast(inf.resourceVersion, goal));
    assert.deepEqual(fingerprint(model.values()), cache);
    assert.deepEqual(cache, fingerprint(e.cluster.list(pods)));
    assert.equal(inf.health().relists, 1);
    await closed(e);
  });

  test("a second run from the first run's checkpoint sees only what changed in between", async () => {
    const e = env();
    for (const n of ["p1", "p2"]) e.cluster.create(pods, pod("a", n));
    const run = async (from: InformerCheckpoint | undefined) => {
      const inf: SharedInformer = e.informer(
        from ? { resource: pods, resumeFrom: from } : { resource: pods },
      );
      const it = inf.events({ until: "current" });
      await e.clock.flush();
      inf.start();
      const evs = (await drain(it)).map(show);
      const cp = JSON.parse(
        JSON.stringify(inf.checkpoint({ includeObjects: true })),
      ) as InformerCheckpoint;
      await inf.stop();
      return { evs, cp };
    };
    const first = await run(undefined);
    assert.deepEqual(first.evs, ["add p1 (initial)", "add p2 (initial)", "synced"]);
    e.cluster.create(pods, pod("a", "p3"));
    e.cluster.delete(pods, { namespace: "a", name: "p1" });
    e.cluster.clearRequests();
    const second = await run(first.cp);
    assert.deepEqual(second.evs, ["synced", "add p3", "delete p1"]);
    assert.equal(
      e.cluster.requests.filter((r) => r.verb === "list" && r.query.limit !== "1").length,
      0,
    );
    const third = await run(second.cp);
    assert.deepEqual(third.evs, ["synced"]);
    assert.deepEqual(third.cp.objects!.map((o) => o.metadata.name).sort(), ["p2", "p3"]);
    await closed(e);
  });

  test("when the newest write in the cluster was to another resource, the run ends at the next bookmark", async () => {
    const e = env();
    e.cluster.create(pods, pod("a", "p1"));
    const cp = await checkpointOf(e);
    e.cluster.create(pods, pod("a", "p2"));
    e.cluster.create(configmaps, { metadata: { namespace: "a", name: "c1" } });
    const inf = e.informer({ resource: pods, resumeFrom: cp });
    const it = inf.events({ until: "current" });
    await e.clock.flush();
    inf.start();
    let ended = false;
    const run = drain(it).then((evs) => {
      ended = true;
      return evs;
    });
    await e.clock.advance(59_000);
    assert.equal(ended, false); // the pods watch has nothing to say about the configmap's RV
    await e.clock.advance(1_000); // the simulated server's bookmark, once a minute
    assert.deepEqual((await run).map(show), ["synced", "add p2"]);
    assert.equal(inf.resourceVersion, e.cluster.resourceVersion);
    assert.ok(inf.health().lastBookmarkAt !== undefined);
    await closed(e);
  });

  test("aborting the signal while waiting for changes ends the iteration", async () => {
    const e = env();
    e.cluster.create(pods, pod("a", "p1"));
    const cp = await checkpointOf(e);
    e.cluster.create(configmaps, { metadata: { namespace: "a", name: "c1" } }); // pods lag behind
    const inf = e.informer({ resource: pods, resumeFrom: cp });
    const ac = new AbortController();
    const it = inf.events({ until: "current", signal: ac.signal });
    await e.clock.flush();
    inf.start();
    assert.deepEqual(await it.next(), { done: false, value: { type: "synced" } });
    const pending = it.next();
    await e.clock.flush();
    ac.abort();
    assert.deepEqual(await pending, { done: true, value: undefined });
    assert.equal(inf.health().listeners.length, 0);
    await closed(e);
  });

  test(
    "aborting the signal while the current resource version is being fetched ends the iteration",
    async () => {
      const { e, answer } = envWithLookupsHeld();
      const cp = await checkpointOf(e);
      const inf = e.informer({ resource: pods, resumeFrom: cp });
      const ac = new AbortController();
      const it = inf.events({ until: "current", signal: ac.signal });
      inf.start();
      assert.deepEqual(await it.next(), { done: false, value: { type: "synced" } });
      const pending = it.next().catch((error: unknown) => ({ rejected: String(error) }));
      ac.abort(new Error("cancelled"));
      const settled = await Promise.race([pending, e.clock.flush(10).then(() => "still pending")]);
      answer();
      assert.deepEqual(settled, { done: true, value: undefined });
      await closed(e);
    },
  );

  test(
    "a failed current-RV lookup ends the iteration with the error and removes the listener",
    async () => {
      const e = env();
      const cp = await checkpointOf(e);
      e.cluster.faults.failNext(1, { verb: "list" });
      const inf = e.informer({ resource: pods, resumeFrom: cp });
      inf.start();
      await assert.rejects(drain(inf.events({ until: "current" })), /500/);
      assert.equal(inf.health().listeners.length, 0);
      await closed(e);
    },
  );
});

describe("hostile checkpoints: a resume checks everything against its informer", () => {
  /** A checkpoint of a `default`-namespace pods informer (two pods), as JSON would give it back. */
  async function defaultCheckpoint(e: Env): Promise<InformerCheckpoint> {
    e.cluster.create(pods, pod("default", "web-1", { app: "web" }));
    e.cluster.create(pods, pod("default", "web-2", { app: "web" }));
    e.cluster.create(pods, pod("kube-system", "dns"));
    return await checkpointOf(e, { namespace: "default" });
  }

  /** Resumes from `cp`, syncs, and checks the refusal and that the cache is the server's. */
  async function refused(
    e: Env,
    cp: InformerCheckpoint,
    problem: string,
    options: Record<string, unknown> = {},
  ): Promise<void> {
    e.cluster.clearRequests();
    const inf = e.informer({ resource: pods, namespace: "default", resumeFrom: cp, ...options });
    assert.equal(inf.store.size, 0, "nothing of a refused checkpoint reaches the cache");
    assert.equal(inf.health().errors.checkpoint, 1);
    inf.start();
    await inf.waitForSync();
    await e.clock.flush();
    const error = e.errors.find((x) => x.kind === "checkpoint")?.error;
    assert.ok(error instanceof CheckpointError, `${problem}: reported to onError`);
    assert.equal(error.problem, problem);
    assert.equal(error.kind, "checkpoint");
    assert.deepEqual(verbs(e.cluster), ["list", "watch"], "it lists as if it had no checkpoint");
    assert.deepEqual(
      inf.store.list().map((o) => objectKey(o)).sort(),
      e.cluster.list(pods).filter((p) => p.metadata.namespace === "default").map((o) =>
        objectKey(o)
      ).sort(),
    );
    await inf.stop();
    e.errors.length = 0;
  }

  test("an injected kube-system object and a Secret are refused; the informer lists instead", async () => {
    const e = env();
    const cp = await defaultCheckpoint(e);
    const injected = structuredClone(cp.objects![0]!);
    injected.metadata.namespace = "kube-system";
    injected.metadata.name = "injected";
    await refused(e, { ...cp, objects: [...cp.objects!, injected] }, "namespace");
    const secret = {
      apiVersion: "v1",
      kind: "Secret",
      metadata: { namespace: "default", name: "token", uid: "u", resourceVersion: "1" },
      data: { token: "c2VjcmV0" },
    };
    await refused(e, { ...cp, objects: [...cp.objects!, secret as KubeObject] }, "resource");
    await closed(e);
  });

  test("a checkpoint whose own fields were edited (resource, namespace, selectors, version) is refused; the informer lists instead", async () => {
    const e = env();
    const cp = await defaultCheckpoint(e);
    const rows: [string, unknown][] = [
      ["resource", { ...cp, resource: "v1/secrets" }],
      ["namespace", { ...cp, namespace: "kube-system" }],
      ["namespace", { ...cp, namespace: "" }],
      ["selector", { ...cp, labelSelector: "app=web" }],
      ["selector", { ...cp, fieldSelector: "metadata.name=web-1" }],
      ["malformed", { ...cp, version: 2 }],
      ["malformed", { ...cp, resourceVersion: 7 }],
      ["malformed", { ...cp, namespace: 7 }],
      ["malformed", {}],
      ["malformed", null],
      ["malformed", "a string from the store"],
    ];
    for (const [problem, bad] of rows) {
      await refused(e, bad as InformerCheckpoint, problem);
    }
    await closed(e);
  });

  test("an object without apiVersion and kind passes only if shaped like a pod (metadata, spec, status): a Secret's data and type are refused; the informer's own checkpoints carry both", async () => {
    const e = env();
    const cp = await defaultCheckpoint(e);
    for (const object of cp.objects!) {
      assert.equal(object.apiVersion, "v1");
      assert.equal(object.kind, "Pod");
    }
    const secret = {
      metadata: { namespace: "default", name: "token", uid: "u", resourceVersion: "1" },
      type: "Opaque",
      data: { token: "c2VjcmV0" },
    };
    await refused(e, { ...cp, objects: [...cp.objects!, secret as KubeObject] }, "resource");
    const halfTyped = structuredClone(cp.objects![0]!) as Partial<KubeObject>;
    delete halfTyped.kind;
    halfTyped.apiVersion = "apps/v1";
    await refused(e, { ...cp, objects: [halfTyped as KubeObject] }, "resource");
    // As a LIST gives them (no apiVersion, no kind): a checkpoint written by hand still resumes.
    const bare = cp.objects!.map((o) => {
      const { apiVersion: _a, kind: _k, ...rest } = o;
      return rest as KubeObject;
    });
    e.cluster.clearRequests();
    const resumed = e.informer({
      resource: pods,
      namespace: "default",
      resumeFrom: { ...cp, objects: bare },
    });
    assert.equal(resumed.store.size, 2);
    assert.equal(resumed.health().errors.checkpoint ?? 0, 0);
    await resumed.stop();
    await closed(e);
  });

  test("every kind of tampering is refused with its problem named", async () => {
    const e = env();
    const cp = await defaultCheckpoint(e);
    const tamper = (change: (o: Record<string, unknown>) => void): InformerCheckpoint => {
      const objects = structuredClone(cp.objects!) as unknown as Record<string, unknown>[];
      change(objects[1]!);
      return { ...cp, objects: objects as unknown as KubeObject[] };
    };
    const meta = (o: Record<string, unknown>) => o.metadata as Record<string, unknown>;
    let deep: Record<string, unknown> = {};
    const deepest = deep;
    for (let i = 0; i < 990; i++) deep = { nested: deep };
    Object.defineProperty(deepest, "__proto__", {
      value: { polluted: true },
      enumerable: true,
      configurable: true,
      writable: true,
    });
    const rows: [string, InformerCheckpoint][] = [
      ["resource", tamper((o) => void (o.apiVersion = "apps/v1"))],
      ["resource", tamper((o) => void (o.kind = "ConfigMap"))],
      ["metadata", tamper((o) => void delete meta(o).uid)],
      ["metadata", tamper((o) => void (meta(o).resourceVersion = 7))],
      ["metadata", tamper((o) => void (meta(o).name = { toString: "x" }))],
      ["metadata", tamper((o) => void (meta(o).labels = { app: 1 }))],
      ["metadata", tamper((o) => void (o.metadata = "default/web-2"))],
      ["namespace", tamper((o) => void delete meta(o).namespace)],
      [
        "forbidden-key",
        JSON.parse(JSON.stringify(cp).replace('"spec":{', '"spec":{"__proto__":{"x":1},')),
      ],
      ["forbidden-key", tamper((o) => void (o.status = { constructor: { prototype: {} } }))],
      ["forbidden-key", tamper((o) => void (o.spec = deep))],
      ["duplicate", tamper((o) => void (meta(o).name = "web-1"))],
      // A Secret that says it is a Pod: a Pod has no data or type.
      [
        "resource",
        tamper((o) => void Object.assign(o, { data: { token: "c2VjcmV0" }, type: "Opaque" })),
      ],
      ["metadata", tamper((o) => void (meta(o).name = "a/b"))],
      ["metadata", tamper((o) => void (meta(o).name = ".."))],
      ["metadata", tamper((o) => void (meta(o).name = "x".repeat(254)))],
      ["metadata", tamper((o) => void (meta(o).annotations = { a: 1 }))],
      ["metadata", tamper((o) => void (meta(o).ownerReferences = 5))],
      ["metadata", tamper((o) => void (meta(o).managedFields = "zzz"))],
      ["metadata", tamper((o) => void (meta(o).finalizers = [1]))],
      ["malformed", { ...cp, objects: "web-1" as unknown as KubeObject[] }],
      ["malformed", { ...cp, objects: [...cp.objects!, 42 as unknown as KubeObject] }],
      ["malformed", { ...cp, resourceVersion: "" }],
    ];
    for (const [problem, bad] of rows) await refused(e, bad, problem);
    await closed(e);
  });

  test("what JSON cannot write is refused: a cycle, nesting deeper than 1,000 levels, a shared container past maxBytes", async () => {
    const e = env();
    const cp = await defaultCheckpoint(e);
    // In memory (a structured clone from a KV store keeps cycles and shared containers).
    const tamper = (change: (o: Record<string, unknown>) => void): InformerCheckpoint => {
      const objects = structuredClone(cp.objects!) as unknown as Record<string, unknown>[];
      change(objects[1]!);
      return { ...cp, objects: objects as unknown as KubeObject[] };
    };
    const loop: Record<string, unknown> = { name: "a" };
    loop.self = { items: [loop] };
    let tooDeep: Record<string, unknown> = {};
    for (let i = 0; i < 999; i++) tooDeep = { nested: tooDeep }; // its {} at level 1,001
    // 2^40 leaves as JSON, 41 containers in memory.
    let bomb: Record<string, unknown> = { leaf: "x".repeat(100) };
    for (let i = 0; i < 40; i++) bomb = { left: bomb, right: bomb };
    await refused(e, tamper((o) => void (o.spec = loop)), "malformed");
    await refused(e, tamper((o) => void (o.spec = tooDeep)), "malformed");
    await refused(e, tamper((o) => void (o.spec = bomb)), "too-large", {
      checkpointLimits: { maxBytes: 1_000_000 },
    });
    // Each refusal says where (the path to the offending value), never the value.
    const errors: unknown[] = [];
    const inf = e.informer({
      resource: pods,
      namespace: "default",
      resumeFrom: tamper((o) => void ((o.spec as { x?: unknown }).x = [1, { f: () => 1 }])),
      onError: (error) => errors.push(error),
    });
    inf.start();
    await inf.waitForSync();
    const error = errors[0] as CheckpointError;
    assert.equal(error.problem, "malformed");
    assert.equal(error.index, 1);
    assert.equal(error.path, "spec.x[1].f");
    // Nesting within the limit is checked to the bottom: object (1) > spec (2) > ... > (1,000).
    let deep: Record<string, unknown> = { fine: true };
    for (let i = 0; i < 998; i++) deep = { nested: deep };
    const ok = e.informer({
      resource: pods,
      namespace: "default",
      resumeFrom: tamper((o) => void (o.spec = deep)),
    });
    assert.equal(ok.store.size, 2);
    await inf.stop();
    await ok.stop();
    await closed(e);
  });

  test("a checkpoint outside the informer's label or field selector is refused", async () => {
    const e = env();
    e.cluster.create(pods, pod("default", "web-1", { app: "web" }));
    e.cluster.create(pods, pod("default", "db-1", { app: "db" }));
    const all = await checkpointOf(e, { namespace: "default" });
    const web = { ...all, labelSelector: "app=web" };
    e.cluster.clearRequests();
    const inf = e.informer({
      resource: pods,
      namespace: "default",
      labelSelector: "app=web",
      resumeFrom: web,
    });
    assert.equal(inf.store.size, 0);
    const error = inf.health().lastError;
    assert.equal(error?.kind, "checkpoint");
    assert.match(error!.message, /labelSelector/);
    await inf.stop();
    const byName = { ...all, fieldSelector: "metadata.name=web-1" };
    const named = e.informer({
      resource: pods,
      namespace: "default",
      fieldSelector: "metadata.name=web-1",
      resumeFrom: byName,
    });
    assert.equal(named.store.size, 0);
    assert.match(named.health().lastError!.message, /fieldSelector/);
    await named.stop();
    await closed(e);
  });

  test("checkpoint objects get the informer's apiVersion and kind, also over an own kind: undefined (a transform's copy)", () => {
    const meta = { name: "p", namespace: "default", uid: "u", resourceVersion: "1" };
    const cp = makeCheckpoint({ resource: pods }, "5", [
      { apiVersion: undefined, kind: undefined, metadata: meta } as unknown as KubeObject,
      { metadata: meta } as KubeObject,
    ]);
    for (const o of cp.objects!) {
      assert.equal(o.apiVersion, "v1");
      assert.equal(o.kind, "Pod");
    }
  });

  test("a refusal names the field that is wrong, even when name and namespace are one string", () => {
    const long = "n".repeat(64); // a fine name, too long for a namespace (a DNS label)
    const object = {
      apiVersion: "v1",
      kind: "Pod",
      metadata: { name: long, namespace: long, uid: "u", resourceVersion: "1" },
    };
    const resumed = resumeFromCheckpoint({
      resource: pods,
      resumeFrom: { ...makeCheckpoint({ resource: pods }, "5", [object as KubeObject]) },
    });
    assert.equal(resumed.refused?.path, "metadata.namespace");
    assert.match(resumed.refused!.message, /namespace that is longer than 63 characters/);
  });

  test("an informer with a transform resumes from its own checkpoint, whatever top-level fields the transform adds", async () => {
    const e = env();
    e.cluster.create(pods, pod("default", "web-1"));
    type Slim = KubeObject & { node?: string };
    const transform = (p: KubeObject): Slim => ({ ...p, node: "n1" });
    const first = e.informer<Slim>({ resource: pods, namespace: "default", transform });
    first.start();
    await first.waitForSync();
    const cp = JSON.parse(JSON.stringify(first.checkpoint({ includeObjects: true })));
    await first.stop();
    const errors: unknown[] = [];
    const second = e.informer<Slim>({
      resource: pods,
      namespace: "default",
      transform,
      resumeFrom: cp,
      onError: (error) => errors.push(error),
    });
    assert.equal(second.store.size, 1, "seeded from the checkpoint");
    second.start();
    await e.clock.flush();
    assert.deepEqual(errors, []);
    assert.equal(second.store.get("default/web-1")?.node, "n1");
    await second.stop();
    await closed(e);
  });

  test("checkpointLimits bound the objects and the bytes; the defaults take a normal checkpoint", async () => {
    const e = env();
    const cp = await defaultCheckpoint(e);
    await refused(e, cp, "too-large", { checkpointLimits: { maxObjects: 1 } });
    await refused(e, cp, "too-large", { checkpointLimits: { maxBytes: 200 } });
    const ok = e.informer({ resource: pods, namespace: "default", resumeFrom: cp });
    assert.equal(ok.store.size, 2, "a checkpoint within the default limits seeds the cache");
    assert.throws(
      () => e.informer({ resource: pods, checkpointLimits: { maxObjects: -1 } }),
      /checkpointLimits\.maxObjects/,
    );
    await ok.stop();
    await closed(e);
  });

  test('a resume whose resource version the server refuses (400, "abc") relists instead of re-watching forever', async () => {
    const e = env();
    const cp = await defaultCheckpoint(e);
    e.cluster.clearRequests();
    const inf = e.informer({
      resource: pods,
      namespace: "default",
      resumeFrom: { ...cp, resourceVersion: "abc" },
    });
    inf.start();
    for (let i = 0; i < 30; i++) await e.clock.advance(1_000);
    assert.deepEqual(verbs(e.cluster).slice(0, 3), ["watch", "list", "watch"]);
    assert.equal(e.errors[0]?.kind, "invalid");
    assert.equal(inf.health().activity, "watching");
    assert.notEqual(inf.resourceVersion, "abc");
    assert.equal(verbs(e.cluster).filter((v) => v === "list").length, 1);
    e.cluster.create(pods, pod("default", "web-3"));
    await e.clock.flush();
    assert.ok(inf.store.get("default/web-3"), "watching again from the list's resource version");
    await closed(e);
  });
});
