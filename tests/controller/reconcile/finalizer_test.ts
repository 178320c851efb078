// finalizer(): kube-rs' finalizer semantics on the simulated cluster, with conflicting writers.
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { finalizer, FinalizerError } from "../../../src/controller/mod.ts";
import { KubeClient } from "../../../src/client/kube_client.ts";
import { SimulatedCluster } from "@kinformer/simulator";
import { type Widget, widgets } from "@kinformer/simulator";

const NAME = "example.com/bucket";
const ref = { namespace: "default", name: "w1" };

/** A cluster, a client whose PATCHes can be intercepted, and an external "bucket" store. */
function setup() {
  const cluster = new SimulatedCluster();
  let beforePatch: (() => void) | undefined;
  const client = new KubeClient({
    server: "http://sim",
    fetch: (request) => {
      if (request.method === "PATCH" && beforePatch !== undefined) {
        const run = beforePatch;
        beforePatch = undefined;
        run();
      }
      return cluster.fetch(request);
    },
  });
  const buckets = new Set<string>();
  const calls: string[] = [];
  const reconcile = async (overrides: { cleanup?: () => void } = {}) => {
    const w = await client.get(widgets, "w1", { namespace: "default" }).catch(() => undefined);
    if (w === undefined) return "gone";
    return await finalizer(w, {
      client,
      resource: widgets,
      finalizer: NAME,
      apply: (obj) => {
        calls.push("apply");
        // The finalizer is on the server before any external work.
        const stored = cluster.get(widgets, ref);
        assert.ok(stored?.metadata.finalizers?.includes(NAME), "finalizer stored before apply");
        assert.ok(obj.metadata.finalizers?.includes(NAME), "apply sees the finalizer");
        buckets.add("w1");
        return "applied";
      },
      cleanup: () => {
        calls.push("cleanup");
        overrides.cleanup?.();
        buckets.delete("w1");
        return "cleaned";
      },
    });
  };
  return {
    cluster,
    client,
    buckets,
    calls,
    reconcile,
    onNextPatch: (fn: () => void) => (beforePatch = fn),
  };
}

const finalizersOf = (cluster: SimulatedCluster): string[] | undefined =>
  cluster.get<Widget>(widgets, ref)?.metadata.finalizers;

describe("finalizer()", () => {
  test("adds the finalizer, then applies; later reconciles only apply", async () => {
    const s = setup();
    s.cluster.create(widgets, { metadata: ref });
    assert.equal(await s.reconcile(), "applied");
    assert.deepEqual(finalizersOf(s.cluster), [NAME]);
    const rv = s.cluster.get(widgets, ref)?.metadata.resourceVersion;
    assert.equal(await s.reconcile(), "applied");
    assert.equal(s.cluster.get(widgets, ref)?.metadata.resourceVersion, rv, "no second write");
    assert.deepEqual(s.calls, ["apply", "apply"]);
    s.cluster.close();
  });

  test("deletion runs cleanup, then removes the finalizer and the object goes", async () => {
    const s = setup();
    s.cluster.create(widgets, { metadata: ref });
    await s.reconcile();
    s.cluster.delete(widgets, ref);
    assert.ok(s.cluster.get(widgets, ref)?.metadata.deletionTimestamp, "held by the finalizer");
    assert.equal(await s.reconcile(), "cleaned");
    assert.deepEqual([...s.buckets], []);
    assert.equal(s.cluster.get(widgets, ref), undefined);
    assert.deepEqual(s.calls, ["apply", "cleanup"]);
    s.cluster.close();
  });

  test("a failing cleanup propagates and keeps the finalizer; the next reconcile retries it", async () => {
    const s = setup();
    s.cluster.create(widgets, { metadata: ref });
    await s.reconcile();
    s.cluster.delete(widgets, ref);
    await assert.rejects(
      s.reconcile({
        cleanup: () => {
          throw new Error("bucket API down");
        },
      }),
      /bucket API down/,
    );
    assert.deepEqual(finalizersOf(s.cluster), [NAME]);
    assert.equal(await s.reconcile(), "cleaned");
    assert.equal(s.cluster.get(widgets, ref), undefined);
    s.cluster.close();
  });

  test("another controller's finalizer is never removed, even when it is added concurrently", async () => {
    const s = setup();
    s.cluster.create(widgets, { metadata: { ...ref, finalizers: ["other.io/a"] } });
    // Between our read and our write, another controller adds its finalizer: our patch
    // carries the resourceVersion we read, gets 409, and is recomputed on a fresh read.
    s.onNextPatch(() => {
      const w = s.cluster.get<Widget>(widgets, ref)!;
      w.metadata.finalizers = [...(w.metadata.finalizers ?? []), "other.io/b"];
      s.cluster.update(widgets, w);
    });
    await s.reconcile();
    assert.deepEqual(finalizersOf(s.cluster), ["other.io/a", "other.io/b", NAME]);

    s.cluster.delete(widgets, ref);
    s.onNextPatch(() => {
      const w = s.cluster.get<Widget>(widgets, ref)!;
      w.metadata.finalizers = w.metadata.finalizers!.filter((f) => f !== "other.io/a");
      s.cluster.update(widgets, w);
    });
    assert.equal(await s.reconcile(), "cleaned");
    assert.deepEqual(finalizersOf(s.cluster), ["other.io/b"], "only ours was removed");
    s.cluster.close();
  });

  test("an object being deleted without our finalizer is left alone", async () => {
    const s = setup();
    s.cluster.create(widgets, { metadata: { ...ref, finalizers: ["other.io/a"] } });
    s.cluster.delete(widgets, ref);
    assert.equal(await s.reconcile(), undefined);
    assert.deepEqual(s.calls, []);
    assert.deepEqual(finalizersOf(s.cluster), ["other.io/a"], "no finalizer added while deleting");
    s.cluster.close();
  });

  test("deleted between read and write: no finalizer is added and nothing is applied", async () => {
    const s = setup();
    s.cluster.create(widgets, { metadata: { ...ref, finalizers: ["other.io/a"] } });
    s.onNextPatch(() => s.cluster.delete(widgets, ref));
    assert.equal(await s.reconcile(), undefined);
    assert.deepEqual(s.calls, []);
    assert.deepEqual(finalizersOf(s.cluster), ["other.io/a"]);

    const gone = setup();
    gone.cluster.create(widgets, { metadata: ref });
    gone.onNextPatch(() => gone.cluster.delete(widgets, ref));
    assert.equal(await gone.reconcile(), undefined, "a 404 on the write: the object is gone");
    assert.deepEqual(gone.calls, []);
    s.cluster.close();
    gone.cluster.close();
  });

  test("a failed finalizer write is a FinalizerError with its phase", async () => {
    const cluster = new SimulatedCluster();
    const client = new KubeClient({
      server: "http://sim",
      fetch: (request) =>
        request.method === "PATCH"
          ? Promise.resolve(
            Response.json({ kind: "Status", code: 503, reason: "ServiceUnavailable" }, {
              status: 503,
            }),
          )
          : cluster.fetch(request),
    });
    const w = cluster.create(widgets, { metadata: ref });
    let applied = false;
    await assert.rejects(
      finalizer(w, {
        client,
        resource: widgets,
        finalizer: NAME,
        apply: () => void (applied = true),
        cleanup: () => {},
      }),
      (e: unknown) =>
        e instanceof FinalizerError && e.phase === "add" && e.finalizer === NAME &&
        e.object === "default/w1" && e.kind === "server", // its cause's kind: a 503
    );
    assert.equal(applied, false, "no external work without the finalizer");
    // A cause that is not one of kinformer's errors: filed as "other", as errorKind files it.
    assert.equal(new FinalizerError("remove", NAME, "default/w1", new Error("x")).kind, "other");
    cluster.close();
  });

  test("bad finalizer names and objects are TypeErrors", async () => {
    const cluster = new SimulatedCluster();
    const client = new KubeClient({ server: "http://sim", fetch: cluster.fetch });
    const w = cluster.create(widgets, { metadata: ref });
    const base = { client, resource: widgets, apply: () => {}, cleanup: () => {} };
    for (const name of ["", "has space", "Example.com/x", "a/b/c", "x".repeat(64)]) {
      await assert.rejects(finalizer(w, { ...base, finalizer: name }), {
        name: "TypeError",
        message: /finalizer/,
      }, name);
    }
    await assert.rejects(finalizer({ metadata: {} } as Widget, { ...base, finalizer: NAME }), {
      name: "TypeError",
      message: /metadata.name/,
    });
    cluster.close();
  });
});
