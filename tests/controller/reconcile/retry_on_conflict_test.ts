// retryOnConflict and updateWithRetry: client-go's RetryOnConflict (re-read, re-apply, bounded
// backoff), on a ManualClock and the simulated cluster.
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { isConflict, retryOnConflict, updateWithRetry } from "../../../src/controller/mod.ts";
import { KubeApiError } from "../../../src/client/errors.ts";
import { KubeClient } from "../../../src/client/kube_client.ts";
import { configmaps } from "../../../src/client/resource.ts";
import type { KubeObject } from "../../../src/client/types.ts";
import { ManualClock } from "../../../src/testing/manual_clock.ts";
import { SimulatedCluster } from "@kinformer/simulator";

type ConfigMap = KubeObject & { data?: Record<string, string> };

const conflict = (): KubeApiError =>
  KubeApiError.fromStatus({ kind: "Status", code: 409, reason: "Conflict", message: "stale" });

describe("retryOnConflict", () => {
  test("retries conflicts with client-go's DefaultRetry: 5 attempts, ~10 ms apart", async () => {
    const clock = new ManualClock(0);
    const attempts: number[] = [];
    const run = retryOnConflict(() => {
      attempts.push(clock.now());
      throw conflict();
    }, { clock, random: () => 0.5 });
    const outcome = run.then(() => "resolved", (e: unknown) => e);
    await clock.advance(1_000);
    const error = await outcome;
    assert.ok(isConflict(error), "the last conflict is the error");
    assert.deepEqual(attempts, [0, 10.5, 21, 31.5, 42]);
  });

  test("DefaultBackoff's growth and a cap are honoured", async () => {
    const clock = new ManualClock(0);
    const attempts: number[] = [];
    const run = retryOnConflict(() => {
      attempts.push(clock.now());
      throw conflict();
    }, { clock, random: () => 0, backoff: { steps: 4, durationMs: 10, factor: 5, capMs: 100 } });
    const outcome = run.catch((e: unknown) => e);
    await clock.advance(1_000);
    await outcome;
    assert.deepEqual(attempts, [0, 10, 60, 160]);
  });

  test("another error is not retried; success resolves with the value", async () => {
    let calls = 0;
    await assert.rejects(
      retryOnConflict(() => {
        calls++;
        throw KubeApiError.fromStatus({ kind: "Status", code: 409, reason: "AlreadyExists" });
      }),
      { name: "KubeApiError", message: /AlreadyExists/ },
    );
    assert.equal(calls, 1);
    const clock = new ManualClock(0);
    const run = retryOnConflict((attempt) => {
      if (attempt < 2) throw conflict();
      return attempt;
    }, { clock });
    await clock.advance(100);
    assert.equal(await run, 2);
  });

  test("a custom retriable predicate, and an abort between attempts", async () => {
    const clock = new ManualClock(0);
    const abort = new AbortController();
    let calls = 0;
    const run = retryOnConflict(() => {
      calls++;
      throw new Error("transient");
    }, {
      clock,
      signal: abort.signal,
      retriable: (e) => e instanceof Error && e.message === "transient",
    });
    const outcome = run.catch((e: unknown) => e);
    await clock.flush();
    const reason = new Error("stop");
    abort.abort(reason);
    assert.equal(await outcome, reason);
    assert.equal(calls, 1);
    assert.equal(clock.pendingTimers, 0);
  });

  test("options are checked", async () => {
    await assert.rejects(retryOnConflict(undefined as never), { name: "TypeError", message: /fn/ });
    await assert.rejects(retryOnConflict(() => 1, { backoff: { steps: 0, durationMs: 10 } }), {
      name: "RangeError",
      message: /backoff.steps/,
    });
    await assert.rejects(retryOnConflict(() => 1, { retriable: 3 as never }), {
      name: "TypeError",
      message: /retriable/,
    });
  });
});

describe("updateWithRetry", () => {
  test("a write that loses the race is re-read and re-applied, keeping the other writer's change", async () => {
    const cluster = new SimulatedCluster();
    const client = new KubeClient({ server: "http://sim", fetch: cluster.fetch });
    cluster.create<ConfigMap>(configmaps, {
      metadata: { namespace: "default", name: "cm" },
      data: { a: "1" },
    });
    let calls = 0;
    const result = await updateWithRetry<ConfigMap>(client, {
      resource: configmaps,
      namespace: "default",
      name: "cm",
      mutate: (cm) => {
        calls++;
        if (calls === 1) {
          // Someone else writes between our read and our write.
          cluster.patch(configmaps, { namespace: "default", name: "cm" }, { data: { b: "2" } });
        }
        cm.data = { ...cm.data, c: "3" };
      },
    });
    assert.equal(calls, 2, "mutate ran again on a fresh read");
    assert.deepEqual(result.data, { a: "1", b: "2", c: "3" });
    assert.deepEqual(
      cluster.get<ConfigMap>(configmaps, { namespace: "default", name: "cm" })?.data,
      { a: "1", b: "2", c: "3" },
    );
    cluster.close();
  });

  test("mutate returning false writes nothing; a returned object is written", async () => {
    const cluster = new SimulatedCluster();
    const client = new KubeClient({ server: "http://sim", fetch: cluster.fetch });
    cluster.create<ConfigMap>(configmaps, { metadata: { namespace: "default", name: "cm" } });
    cluster.clearRequests();
    const same = await updateWithRetry<ConfigMap>(client, {
      resource: configmaps,
      namespace: "default",
      name: "cm",
      mutate: () => false,
    });
    assert.equal(same.metadata.name, "cm");
    assert.deepEqual(cluster.requests.map((r) => r.method), ["GET"]);
    const replaced = await updateWithRetry<ConfigMap>(client, {
      resource: configmaps,
      namespace: "default",
      name: "cm",
      mutate: (cm) => ({ ...cm, data: { x: "y" } }),
    });
    assert.deepEqual(replaced.data, { x: "y" });
    cluster.close();
  });

  test("a 404 is not retried; bad options are TypeErrors", async () => {
    const cluster = new SimulatedCluster();
    const client = new KubeClient({ server: "http://sim", fetch: cluster.fetch });
    await assert.rejects(
      updateWithRetry(client, {
        resource: configmaps,
        namespace: "default",
        name: "missing",
        mutate: () => {},
      }),
      (e: unknown) => e instanceof KubeApiError && e.code === 404,
    );
    await assert.rejects(
      updateWithRetry(client, { resource: configmaps, name: "", mutate: () => {} }),
      { name: "TypeError", message: /name/ },
    );
    await assert.rejects(
      updateWithRetry(client, {
        resource: configmaps,
        name: "x",
        mutate: () => {},
        subresource: "scale" as never,
      }),
      { name: "TypeError", message: /subresource/ },
    );
    cluster.close();
  });
});
