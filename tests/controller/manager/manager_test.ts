// Manager: controllers sharing informers and one leader election, /healthz /readyz /metrics,
// graceful stop (stop taking keys, finish in flight within the deadline, then release the lease),
// a failing controller, runnables. Two replicas on one simulated cluster and a ManualClock.
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import {
  type ErrorContext,
  EventRecorder,
  LifecycleError,
  Manager,
} from "../../../src/controller/mod.ts";
import { eventsV1 } from "../../../src/client/mod.ts";
import { createInformer, type SharedInformer } from "../../../src/cache/informer.ts";
import { KubeClient } from "../../../src/client/kube_client.ts";
import { leases, namespaces, pods } from "../../../src/client/resource.ts";
import type { KubeObject } from "../../../src/client/types.ts";
import { sleep } from "../../../src/util/clock.ts";
import { ManualClock } from "../../../src/testing/manual_clock.ts";
import { seededRandom } from "../../../src/testing/seeded_random.ts";
import { SimulatedCluster } from "@kinformer/simulator";
import { Link } from "../../_lease_faults.ts";

interface Replica {
  id: string;
  manager: Manager;
  link: Link;
  informer: SharedInformer<KubeObject>;
  done: string[];
  errors: [unknown, ErrorContext][];
}

class World {
  readonly clock = new ManualClock();
  readonly cluster = new SimulatedCluster({ clock: this.clock });
  /** How long a reconcile takes (simulated time). */
  costMs = 100;

  replica(id: string, options: { leaderElection?: boolean; graceMs?: number } = {}): Replica {
    const link = new Link(this.cluster.fetch, this.clock);
    const client = new KubeClient({ server: "http://sim", fetch: link.fetch });
    const informer = createInformer<KubeObject>(client, {
      resource: pods,
      clock: this.clock,
      random: seededRandom(id.charCodeAt(0)),
      onError: () => {},
    });
    const errors: [unknown, ErrorContext][] = [];
    const manager = new Manager({
      clock: this.clock,
      gracefulShutdownTimeoutMs: options.graceMs ?? 30_000,
      onError: (error, context) => void errors.push([error, context]),
      ...(options.leaderElection === false ? {} : {
        leaderElection: {
          client,
          namespace: "default",
          name: "pod-controller",
          identity: id,
          random: seededRandom(100 + id.charCodeAt(0)),
        },
      }),
    });
    const done: string[] = [];
    for (const name of ["pods", "audit"]) {
      manager.addController({
        name,
        informers: [informer],
        reconcile: async (key, ctx) => {
          await sleep(this.costMs, { clock: this.clock, signal: ctx.signal });
          done.push(`${name} ${key}`);
        },
      });
    }
    return { id, manager, link, informer, done, errors };
  }

  leaseHolder(): string {
    const lease = this.cluster.get(leases, { namespace: "default", name: "pod-controller" }) as
      | { spec?: { holderIdentity?: string } }
      | undefined;
    return lease?.spec?.holderIdentity ?? "";
  }
}

async function get(manager: Manager, path: string): Promise<{ status: number; text: string }> {
  const response = manager.fetch(new Request(`http://replica${path}`));
  return { status: response.status, text: await response.text() };
}

describe("Manager", () => {
  test("two controllers share one informer, started once; both reconcile", async () => {
    const w = new World();
    w.cluster.create(pods, { metadata: { namespace: "default", name: "p1" } });
    const a = w.replica("a", { leaderElection: false });
    w.cluster.clearRequests();
    a.manager.start();
    await a.manager.waitForSync();
    await w.clock.advance(500);
    const pods_ = w.cluster.requests.filter((r) => r.resource === "pods");
    assert.deepEqual(pods_.map((r) => r.verb).sort(), ["list", "watch"], "one LIST, one watch");
    assert.deepEqual(a.done.sort(), ["audit default/p1", "pods default/p1"]);
    assert.equal(a.manager.isLeading(), true);
    await a.manager.stop();
    assert.equal(a.manager.health().state, "stopped");
    // A manager runs once: a start after stop fails at once, saying so.
    assert.throws(() => a.manager.start(), (error: unknown) => {
      assert.ok(error instanceof LifecycleError);
      assert.equal(
        error.message,
        "manager was stopped and runs once: create a new one to start again",
      );
      return true;
    });
    w.cluster.close();
    assert.equal(w.clock.pendingTimers, 0, "no timer left");
  });

  test("one leader election for every controller; a standby is ready and takes over on stop", async () => {
    const w = new World();
    for (let i = 0; i < 3; i++) {
      w.cluster.create(pods, { metadata: { namespace: "default", name: `p${i}` } });
    }
    const a = w.replica("a");
    const b = w.replica("b");
    a.manager.start();
    await w.clock.advance(1_000);
    b.manager.start();
    await w.clock.advance(5_000);
    assert.equal(w.leaseHolder(), "a");
    assert.equal(a.done.length, 6, "both of a's controllers reconciled every pod");
    assert.deepEqual(b.done, []);
    for (const r of [a, b]) {
      assert.deepEqual(await get(r.manager, "/healthz"), { status: 200, text: "ok" });
      assert.deepEqual(await get(r.manager, "/readyz"), { status: 200, text: "ok" }, r.id);
    }
    const metricsA = (await get(a.manager, "/metrics")).text;
    const metricsB = (await get(b.manager, "/metrics")).text;
    assert.match(metricsA, /^leader_election_master_status\{name="pod-controller"\} 1$/m);
    assert.match(metricsB, /^leader_election_master_status\{name="pod-controller"\} 0$/m);
    assert.match(
      metricsA,
      /^controller_runtime_reconcile_total\{controller="pods",result="success"\} 3$/m,
    );
    assert.match(
      metricsA,
      /^controller_runtime_reconcile_total\{controller="audit",result="success"\} 3$/m,
    );
    assert.match(
      metricsB,
      /^controller_runtime_reconcile_total\{controller="pods",result="success"\} 0$/m,
    );

    // a stops: its in-flight reconcile finishes, then the lease is released; b leads at once.
    w.costMs = 2_000;
    w.cluster.create(pods, { metadata: { namespace: "default", name: "late" } });
    await w.clock.advance(500); // a is reconciling "late" (2 s)
    const stopping = a.manager.stop();
    assert.equal((await get(a.manager, "/readyz")).status, 500, "not ready while stopping");
    await w.clock.advance(1_000);
    assert.equal(w.leaseHolder(), "a", "still held while a reconcile runs");
    await w.clock.advance(1_000);
    await stopping;
    assert.ok(a.done.includes("pods default/late"), "the in-flight reconcile finished");
    assert.equal(w.leaseHolder(), "", "released after the last reconcile");
    assert.match(
      (await get(a.manager, "/metrics")).text,
      /^leader_election_master_status\{name="pod-controller"\} 0$/m,
    );
    await w.clock.advance(3_000);
    assert.equal(w.leaseHolder(), "b");
    await w.clock.advance(10_000);
    assert.equal(b.done.length, 8, "b reconciles every pod with both controllers");
    assert.deepEqual(a.errors, []);
    await b.manager.stop();
    w.cluster.close();
  });

  test("reconciles still running at the deadline are aborted, then the lease is released", async () => {
    const w = new World();
    w.cluster.create(pods, { metadata: { namespace: "default", name: "p1" } });
    w.costMs = 600_000;
    const a = w.replica("a", { graceMs: 10_000 });
    a.manager.start();
    await w.clock.advance(2_000);
    assert.equal(w.leaseHolder(), "a");
    const stopping = a.manager.stop();
    await w.clock.advance(9_999);
    assert.equal(w.leaseHolder(), "a");
    await w.clock.advance(1);
    await stopping;
    assert.equal(w.leaseHolder(), "");
    assert.deepEqual(a.done, [], "aborted, not finished");
    w.cluster.close();
  });

  test("a controller that stops by itself stops the manager; /healthz fails", async () => {
    const w = new World();
    w.cluster.create(pods, { metadata: { namespace: "default", name: "p1" } });
    const client = new KubeClient({ server: "http://sim", fetch: w.cluster.fetch });
    const informer = createInformer<KubeObject>(client, { resource: pods, clock: w.clock });
    const errors: ErrorContext[] = [];
    const manager = new Manager({ clock: w.clock, onError: (_e, c) => void errors.push(c) });
    manager.addController({
      name: "broken",
      informers: [informer],
      reconcile: () => {
        throw new Error("reconcile failed");
      },
      onError: () => {
        throw new Error("onError is broken");
      },
    });
    manager.addController({ name: "fine", informers: [informer], reconcile: () => {} });
    manager.start();
    await w.clock.advance(1_000);
    await assert.rejects(manager.whenStopped(), /onError is broken/);
    assert.equal(manager.health().state, "stopped");
    assert.deepEqual(errors.map((c) => [c.phase, c.source, c.action]), [
      ["runnable", "manager", "stopping the manager"],
    ]);
    const health = await get(manager, "/healthz?verbose");
    assert.equal(health.status, 500);
    assert.equal(
      health.text,
      "[+]ping ok\n[-]controllers failed: reason withheld\nhealthz check failed\n",
    );
    w.cluster.close();
  });

  test("endpoints: verbose checks, single checks, 404, 405, HEAD", async () => {
    const w = new World();
    const a = w.replica("a", { leaderElection: false });
    assert.equal((await get(a.manager, "/readyz")).status, 500, "not ready before start");
    a.manager.start();
    await a.manager.waitForSync();
    assert.deepEqual(await get(a.manager, "/readyz?verbose"), {
      status: 200,
      text:
        "[+]started ok\n[+]informers-synced-pods ok\n[+]informers-synced-audit ok\nreadyz check passed\n",
    });
    assert.deepEqual(await get(a.manager, "/readyz/informers-synced-pods"), {
      status: 200,
      text: "ok",
    });
    assert.deepEqual(await get(a.manager, "/healthz/ping"), { status: 200, text: "ok" });
    assert.equal((await get(a.manager, "/healthz/nope")).status, 404);
    assert.equal((await get(a.manager, "/other")).status, 404);
    const post = a.manager.fetch(new Request("http://replica/metrics", { method: "POST" }));
    assert.equal(post.status, 405);
    const head = a.manager.fetch(new Request("http://replica/metrics", { method: "HEAD" }));
    assert.equal(head.status, 200);
    assert.equal(head.headers.get("content-type"), "text/plain; version=0.0.4; charset=utf-8");
    assert.equal(await head.text(), "");
    // A server that built the URL from a Host header ("x/healthz?") made /metrics read as
    // /healthz; such a Host is refused rather than routed.
    const poisoned = a.manager.fetch(
      new Request("http://x/healthz?/metrics", { headers: { host: "x/healthz?" } }),
    );
    assert.equal(poisoned.status, 400);
    assert.match(await poisoned.text(), /invalid Host header/);
    await a.manager.stop();
    w.cluster.close();
  });

  test("runnables start before the controllers and stop after them: an EventRecorder flushes", async () => {
    const w = new World();
    w.cluster.create(pods, { metadata: { namespace: "default", name: "p1" } });
    const client = new KubeClient({ server: "http://sim", fetch: w.cluster.fetch });
    const informer = createInformer<KubeObject>(client, { resource: pods, clock: w.clock });
    const recorder = new EventRecorder({
      client,
      clock: w.clock,
      reportingController: "example.com/pods",
      reportingInstance: "pods-0",
    });
    const manager = new Manager({ clock: w.clock });
    manager.add(recorder);
    manager.addController({
      name: "pods",
      informers: [informer],
      reconcile: (key) => {
        const [namespace, name] = key.split("/") as [string, string];
        const pod = informer.store.get(key);
        if (pod !== undefined) {
          recorder.record(pod, {
            type: "Normal",
            reason: "Seen",
            action: "Reconcile",
            note: `${namespace}/${name}`,
            resource: pods,
          });
        }
      },
    });
    manager.start();
    await manager.waitForSync();
    await w.clock.flush();
    await manager.stop();
    assert.equal(recorder.health().state, "stopped");
    assert.equal(w.cluster.list(eventsV1).length, 1);
    w.cluster.close();
  });

  test("one sharding group for every controller: each key is reconciled by one replica", async () => {
    const w = new World();
    for (let i = 0; i < 4; i++) w.cluster.create(namespaces, { metadata: { name: `ns-${i}` } });
    for (let i = 0; i < 40; i++) {
      w.cluster.create(pods, { metadata: { namespace: `ns-${i % 4}`, name: `p${i}` } });
    }
    const replicas = ["a", "b"].map((id) => {
      const link = new Link(w.cluster.fetch, w.clock);
      const client = new KubeClient({ server: "http://sim", fetch: link.fetch });
      const informer = createInformer<KubeObject>(client, { resource: pods, clock: w.clock });
      const manager = new Manager({
        clock: w.clock,
        sharding: { client, namespace: "default", name: "pods", identity: id, shards: 8 },
      });
      const done: string[] = [];
      for (const name of ["pods", "audit"]) {
        manager.addController({
          name,
          informers: [informer],
          reconcile: (key) => void done.push(`${name} ${key}`),
        });
      }
      manager.start();
      return { manager, done };
    });
    await w.clock.advance(20_000);
    const [a, b] = replicas as [typeof replicas[0], typeof replicas[0]];
    assert.ok(a.done.length > 0 && b.done.length > 0, "both replicas own shards");
    assert.equal(new Set([...a.done, ...b.done]).size, 80, "both controllers reconciled every key");
    for (const r of replicas) {
      assert.equal((await get(r.manager, "/readyz")).status, 200);
      assert.equal(r.manager.isLeading(), true, "each owns some shards");
    }
    await Promise.all(replicas.map((r) => r.manager.stop()));
    w.cluster.close();
  });

  test("addController and add are checked", () => {
    const manager = new Manager({
      leaderElection: {
        client: new KubeClient({
          server: "http://sim",
          fetch: () => Promise.reject(new Error("x")),
        }),
        namespace: "default",
        name: "l",
        identity: "a",
      },
    });
    const informer = { addEventHandler: () => ({ hasSynced: () => true, remove: () => {} }) };
    manager.addController({ name: "one", informers: [informer], reconcile: () => {} });
    assert.throws(
      () => manager.addController({ name: "one", informers: [informer], reconcile: () => {} }),
      /named one exists/,
    );
    assert.throws(
      () =>
        manager.addController({
          name: "two",
          informers: [informer],
          reconcile: () => {},
          sharding: {} as never,
        }),
      /applies to every controller/,
    );
    assert.throws(() => manager.add({} as never), /start\(\) and stop\(\)/);
    assert.throws(
      () => new Manager({ gracefulShutdownTimeoutMs: -1 }),
      /gracefulShutdownTimeoutMs/,
    );
    assert.throws(() => new Manager({ extraMetrics: [{}] as never }), /extraMetrics/);
  });
});
