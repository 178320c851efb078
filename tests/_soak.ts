// A seeded, bounded soak: mutations and faults together, then quiescence and strict checks.
// Shared by tests/cache/informer_soak_test.ts (a fixed set of seeds in CI) and scripts/soak.ts
// (`npm run soak -- --seeds N`).
import assert from "node:assert/strict";
import process from "node:process";
import { pods } from "../src/client/resource.ts";
import type { KubeObject } from "../src/client/types.ts";
import type { InformerEvent } from "../src/cache/informer_event.ts";
import type { ConsistencyCheckResult } from "../src/cache/consistency_check_options.ts";
import { objectKey } from "../src/cache/object_key.ts";
import type { SharedInformer } from "../src/cache/informer.ts";
import { env, seeded } from "./_informer_env.ts";

/** Applies events to a model of a consumer's view; throws on an impossible sequence. */
class Model {
  readonly objects = new Map<string, KubeObject>();
  synced = false;
  apply(ev: InformerEvent): void {
    if (ev.type === "synced") {
      assert.equal(this.synced, false, "synced twice");
      this.synced = true;
      return;
    }
    const key = objectKey(ev.object);
    const had = this.objects.get(key);
    switch (ev.type) {
      case "add":
        assert.equal(had, undefined, `add for known ${key}`);
        this.objects.set(key, ev.object);
        break;
      case "update":
        assert.ok(had !== undefined, `update for unknown ${key}`);
        assert.equal(had.metadata.uid, ev.object.metadata.uid, `update changed uid of ${key}`);
        assert.equal(ev.oldObject, had, `oldObject of ${key} is not what the consumer holds`);
        this.objects.set(key, ev.object);
        break;
      case "delete":
        assert.ok(had !== undefined, `delete for unknown ${key}`);
        this.objects.delete(key);
        break;
    }
  }
}

function snapshot(objects: Iterable<KubeObject>): string[] {
  return [...objects]
    .map((o) => `${objectKey(o)} ${o.metadata.uid} ${o.metadata.resourceVersion}`)
    .sort();
}

/** What one soak run measured. */
export interface SoakResult {
  /** Requests the informer made. */
  requests: number;
  /** Simulated seconds the run lasted. */
  seconds: number;
  /** The most requests in any 10 s window. */
  peakPer10s: number;
  /** Consistency checks by outcome and reason (never `drift`: the ordinary faults lose nothing). */
  checks: Record<string, number>;
}

/** Requests in any 10 simulated seconds may not exceed this, whatever the faults. */
export const MAX_REQUESTS_PER_10S = 30;

/** Runs one seeded soak; throws an AssertionError when anything is off. */
export async function soak(seed: number, initialList: "list" | "stream"): Promise<SoakResult> {
  const rejections: unknown[] = [];
  const onRejection = (reason: unknown): void => void rejections.push(reason);
  process.on("unhandledRejection", onRejection);
  // Every request the informer makes, on the simulated clock, for the rate bound.
  const at: number[] = [];
  const e = env({
    seed,
    fetch: (c) => (req) => {
      at.push(e.clock.now());
      return c.fetch(req);
    },
  });
  const rng = seeded(seed * 7 + 1);
  try {
    const namespaces = ["a", "b", "c"];
    e.cluster.churn(60, {
      resource: pods,
      namespaces,
      mix: { create: 1, update: 0, delete: 0, recreate: 0, labelFlip: 0 },
    });
    // The consistency check runs throughout, paged and paced, to show that none of these
    // faults loses or corrupts an event: it must never report drift.
    const checks: ConsistencyCheckResult[] = [];
    const inf: SharedInformer = e.informer({
      resource: pods,
      initialList,
      resyncPeriodMs: 45_000,
      maxLineLength: 64 * 1024,
      consistencyCheck: { intervalMs: 20_000, pageSize: 20 },
      metrics: { onConsistencyCheck: (r) => void checks.push(r) },
    });
    // Three consumers: an iterator, a slow async handler, a coalescing iterator.
    const direct = new Model();
    const slow = new Model();
    const coalesced = new Model();
    const drains: Promise<void>[] = [];
    const consume = async (it: AsyncIterableIterator<InformerEvent>, model: Model) => {
      for await (const ev of it) {
        // A resync is an update with object === oldObject: the model stays as it is.
        model.apply(ev);
      }
    };
    drains.push(consume(inf.events(), direct));
    drains.push(consume(inf.events({ overflow: "coalesce" }), coalesced));
    let delay = Promise.resolve();
    inf.addEventHandler({
      onAdd: (
        o,
        initial,
      ) => (delay = delay.then(() =>
        slow.apply({ type: "add", object: o, isInInitialList: initial })
      )),
      onUpdate: (
        old,
        o,
      ) => (delay = delay.then(() => slow.apply({ type: "update", object: o, oldObject: old }))),
      onDelete: (
        o,
        unknown,
      ) => (delay = delay.then(() =>
        slow.apply({ type: "delete", object: o, finalStateUnknown: unknown })
      )),
      onSynced: () => (delay = delay.then(() => slow.apply({ type: "synced" }))),
    });
    inf.start();
    const f = e.cluster.faults;
    for (let round = 0; round < 250; round++) {
      e.cluster.churn(Math.floor(rng() * 4), { resource: pods, namespaces });
      const r = rng();
      if (r < 0.04) f.dropWatches();
      else if (r < 0.06) f.compact();
      else if (r < 0.08) {
        f.failNext(1 + Math.floor(rng() * 2), {
          status: rng() < 0.5 ? 500 : 429,
          verb: rng() < 0.5 ? "list" : "watch",
          retryAfterSeconds: 1,
        });
      } else if (r < 0.10) f.chunkBodies({ maxChunkBytes: 1 + Math.floor(rng() * 40) });
      else if (r < 0.12) f.wholeBodies();
      else if (r < 0.13) f.stall();
      else if (r < 0.16) f.resume();
      else if (r < 0.18) f.dropWatchAfter(1 + Math.floor(rng() * 5));
      // The hostile ones: proxies that close watches early, slow lists, garbage on the wire,
      // nonsense delays, streams that never finish.
      else if (r < 0.20) f.closeWatchesAfter(1 + Math.floor(rng() * 3));
      else if (r < 0.23) f.closeWatchesAfter(undefined);
      else if (r < 0.25) f.dripListBodies({ maxChunkBytes: 4096, delayMs: 200 });
      else if (r < 0.27) {
        const kinds = ["malformed", "unknown-type", "numeric-rv", "long-line"] as const;
        f.corruptWatches(kinds[Math.floor(rng() * kinds.length)]!, {
          times: 1 + Math.floor(rng() * 2),
          longLineBytes: 100_000,
        });
      } else if (r < 0.29) {
        const garbage = ["abc", "-1", "99999999999", "Fri, 99 Foo 2026 99:99:99 GMT"];
        f.failNext(1, {
          status: rng() < 0.5 ? 503 : 429,
          retryAfter: garbage[Math.floor(rng() * garbage.length)]!,
        });
      } else if (r < 0.30 && initialList === "stream") f.omitInitialEventsEnd(rng() < 0.5);
      await e.clock.advance(Math.floor(rng() * 3_000));
    }
    // Quiesce: no more faults, let backoff and reconnects finish.
    f.reset();
    f.resume();
    for (let i = 0; i < 40; i++) await e.clock.advance(5_000);
    const truth = snapshot(e.cluster.list(pods));
    assert.ok(truth.length > 10, `the soak kept objects (${truth.length})`);
    assert.deepEqual(
      snapshot(inf.store.list()),
      truth,
      `store equals the server after quiescence; health: ${JSON.stringify(inf.health())}`,
    );
    await delay;
    await e.clock.flush();
    for (
      const [name, model] of [["iterator", direct], ["slow handler", slow], [
        "coalescing iterator",
        coalesced,
      ]] as const
    ) {
      assert.ok(model.synced, `${name} synced`);
      assert.deepEqual(
        snapshot(model.objects.values()),
        truth,
        `replaying the ${name}'s events reproduces the store`,
      );
    }
    const final = inf.verify();
    await e.clock.advance(60_000);
    assert.equal((await final).outcome, "consistent", "a check after quiescence");
    const drifted = checks.filter((r) => r.outcome === "drift");
    assert.deepEqual(drifted, [], `no drift under the ordinary faults (seed ${seed})`);
    const outcomes: Record<string, number> = {};
    for (const r of checks) {
      const key = r.reason === undefined ? r.outcome : `${r.outcome}:${r.reason}`;
      outcomes[key] = (outcomes[key] ?? 0) + 1;
    }
    assert.ok((outcomes.consistent ?? 0) >= 5, `checks concluded: ${JSON.stringify(outcomes)}`);
    const h = inf.health();
    assert.ok(h.watchRestarts > 0 && Object.keys(h.errors).length > 0, "faults really happened");
    // No hammering, whatever the faults: a bound on requests in any 10 simulated seconds.
    let peak = 0;
    for (let i = 0, j = 0; i < at.length; i++) {
      while (at[i]! - at[j]! >= 10_000) j++;
      peak = Math.max(peak, i - j + 1);
    }
    assert.ok(peak <= MAX_REQUESTS_PER_10S, `${peak} requests in 10 s (seed ${seed})`);
    const result: SoakResult = {
      requests: at.length,
      seconds: Math.round(e.clock.now() / 1000),
      peakPer10s: peak,
      checks: outcomes,
    };
    await inf.stop();
    await Promise.all(drains);
    await e.clock.flush();
    assert.equal(e.cluster.openWatches, 0, "no watch left open after stop()");
    e.cluster.close();
    assert.equal(e.clock.pendingTimers, 0, "no timer left after stop()");
    assert.deepEqual(rejections, [], "no unhandled rejections");
    return result;
  } finally {
    process.off("unhandledRejection", onRejection);
    await e.close();
  }
}
