// What a new user gets from the controller layer with default options when the cluster says no:
// a controller (runController) and a manager print a line naming the error within 5 s, then a
// handful a minute while they retry; a reconcile that keeps failing prints a handful a minute;
// the event recorder in an outage prints a bounded number of lines, not one per event.
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { defineResource } from "../../src/client/define_resource.ts";
import { KubeClient } from "../../src/client/kube_client.ts";
import { pods, type ResourceDescriptor } from "../../src/client/resource.ts";
import type { KubeObject } from "../../src/client/types.ts";
import { createInformer } from "../../src/cache/informer.ts";
import {
  EventRecorder,
  LeaderElector,
  LifecycleError,
  Manager,
  runController,
  ShardCoordinator,
} from "../../src/controller/mod.ts";
import { ManualClock } from "../../src/testing/manual_clock.ts";
import { SimulatedCluster } from "@kinformer/simulator";
import { advance } from "../_advance.ts";
import { captureConsole } from "../_console.ts";

/** A custom resource whose CRD is not installed. */
const gadgets = defineResource({
  group: "example.org",
  version: "v1",
  resource: "gadgets",
  kind: "Gadget",
  namespaced: true,
});

/** What each case runs: a default controller, or a default manager with one controller. */
type Runner = (
  informer: ReturnType<typeof createInformer<KubeObject>>,
  signal: AbortSignal,
) => Promise<void>;

const runners: Record<string, Runner> = {
  "runController": (informer, signal) =>
    runController<KubeObject>({ informers: [informer], reconcile: () => {}, signal }),
  "a manager": async (informer, signal) => {
    const manager = new Manager();
    manager.addController({ name: "web", informers: [informer], reconcile: () => {} });
    manager.start({ signal });
    await manager.whenStopped();
  },
};

/** A cluster case: the resource to watch, whether everything is forbidden, the line expected. */
interface Case {
  resource: ResourceDescriptor<KubeObject>;
  deny: boolean;
  line: RegExp;
}

const cases: Record<string, Case> = {
  "403 from RBAC": {
    resource: pods,
    deny: true,
    line:
      /^error pods informer: list forbidden \(403\): pods is forbidden: .*; retrying with backoff/,
  },
  "a resource the server does not serve (404)": {
    resource: gadgets as ResourceDescriptor<KubeObject>,
    deny: false,
    line:
      /^error gadgets\.example\.org informer: list not found \(404\): .*; retrying with backoff/,
  },
};

for (const [runnerName, run] of Object.entries(runners)) {
  describe(`${runnerName} with default options says what is wrong`, () => {
    for (const [caseName, c] of Object.entries(cases)) {
      test(`${caseName}: a line naming the error within 5 s, a handful in a minute of retries`, async () => {
        const printed = captureConsole();
        const clock = new ManualClock(0);
        const cluster = new SimulatedCluster({
          clock,
          autoCreateNamespaces: true,
          ...(c.deny ? { authorization: [] } : {}), // no rule: everything is forbidden
        });
        const client = new KubeClient({ server: "http://sim.test", fetch: cluster.fetch });
        const stop = new AbortController();
        try {
          const informer = createInformer<KubeObject>(client, { resource: c.resource, clock });
          const running = run(informer, stop.signal);
          await advance(clock, 5_000, 100);
          assert.equal(printed.lines.length, 1, printed.lines.join("\n"));
          assert.match(printed.lines[0]!, c.line);
          await advance(clock, 60_000);
          const requests = cluster.requests.length;
          assert.ok(requests >= 5, `it kept retrying (${requests} requests)`);
          assert.ok(printed.lines.length <= 3, printed.lines.join("\n"));
          stop.abort();
          await running;
        } finally {
          printed.restore();
          cluster.close();
        }
      });
    }

    test("a refused connection: a line naming the network error at once, a handful in a minute", async () => {
      const clock = new ManualClock(0);
      const printed = captureConsole();
      const stop = new AbortController();
      try {
        // Port 1 on the loopback: nothing listens there, the connection is refused.
        const client = new KubeClient({ server: "http://127.0.0.1:1" });
        const informer = createInformer<KubeObject>(client, { resource: pods, clock });
        const running = run(informer, stop.signal);
        await printed.firstError; // the first attempt fails at once, before any backoff: the clock is at 0
        assert.equal(clock.now(), 0);
        assert.match(
          printed.lines[0]!,
          /^error pods informer: list network error: GET http:\/\/127\.0\.0\.1:1\/api\/v1\/pods.*; retrying with backoff/,
        );
        await advance(clock, 60_000);
        assert.ok(printed.lines.length <= 3, printed.lines.join("\n"));
        stop.abort();
        await running;
      } finally {
        printed.restore();
      }
    });
  });
}

describe("leader election and sharding with default options", () => {
  for (const kind of ["LeaderElector", "ShardCoordinator"] as const) {
    test(`${kind} forbidden (403): a line naming the error within 5 s, a handful a minute, one when healthy again`, async () => {
      const printed = captureConsole();
      const clock = new ManualClock(0);
      let allowed = false; // RBAC that grants nothing, until it is fixed
      const cluster = new SimulatedCluster({ clock, authorization: () => allowed });
      const client = new KubeClient({ server: "http://sim.test", fetch: cluster.fetch });
      const replica = { client, namespace: "default", name: "ctl", identity: "a", clock };
      const coordinator = kind === "LeaderElector"
        ? new LeaderElector(replica)
        : new ShardCoordinator({ ...replica, shards: 2 });
      try {
        coordinator.start();
        await advance(clock, 5_000, 100);
        assert.equal(printed.lines.length, 1, printed.lines.join("\n"));
        assert.match(
          printed.lines[0]!,
          kind === "LeaderElector"
            ? /^error leader election default\/ctl \(lease default\/ctl\): lease forbidden \(403\): leases\.coordination\.k8s\.io "ctl" is forbidden: .*; retrying every retry period \(next in 2 s\)$/
            : /^error shard coordinator default\/ctl \(a\) \(renewing the member lease \(a\)\): lease forbidden \(403\): .*; retrying every retry period \(next in 2 s\)$/,
        );
        await advance(clock, 60_000);
        assert.ok(printed.lines.length <= 3, printed.lines.join("\n"));
        allowed = true;
        await advance(clock, 5_000);
        assert.match(printed.lines.at(-1)!, /^warn .*: healthy again after \d+ errors$/);
        await coordinator.stop();
      } finally {
        printed.restore();
        cluster.close();
      }
    });
  }
});

describe("a reconcile that keeps failing, with default options", () => {
  test("the first error at once with the controller and key, then one line a minute with a count", async () => {
    const printed = captureConsole();
    const clock = new ManualClock(0);
    const cluster = new SimulatedCluster({ clock, autoCreateNamespaces: true });
    cluster.create(pods, { metadata: { namespace: "default", name: "web" } });
    const client = new KubeClient({ server: "http://sim.test", fetch: cluster.fetch });
    const stop = new AbortController();
    let attempts = 0;
    try {
      const informer = createInformer<KubeObject>(client, { resource: pods, clock });
      const running = runController<KubeObject>({
        name: "web",
        informers: [informer],
        clock,
        signal: stop.signal,
        reconcile: () => {
          attempts++;
          throw new Error("the image registry refused the pull");
        },
      });
      await advance(clock, 1_000, 100);
      assert.deepEqual(printed.lines, [
        "error controller web (default/web): reconcile error: the image registry refused the pull; retrying the key with backoff (next in 5 ms)",
      ]);
      await advance(clock, 120_000);
      assert.ok(attempts >= 10, `it kept retrying (${attempts} attempts)`);
      assert.ok(printed.lines.length <= 3, printed.lines.join("\n"));
      assert.match(printed.lines.at(-1)!, /\[\d+ more since [\d.]+ min ago\]$/);
      stop.abort();
      await running;
    } finally {
      printed.restore();
      cluster.close();
    }
  });
});

describe("the event recorder in an outage, with default options", () => {
  test("prints a bounded number of lines, not one per dropped or failed event", async () => {
    const printed = captureConsole();
    const clock = new ManualClock(0);
    // Every request fails as fetch fails when the server cannot be reached.
    const client = new KubeClient({
      server: "http://unreachable.test",
      fetch: () => Promise.reject(new TypeError("fetch failed: connection refused")),
    });
    const recorder = new EventRecorder({
      client,
      clock,
      api: "events.k8s.io/v1",
      reportingController: "example.com/web-controller",
      reportingInstance: "web-controller-0",
    });
    try {
      recorder.start();
      // Ten minutes of an outage, 20 events a second about 2,000 objects: 12,000 events, so the
      // queue (1,000 writes) fills and drops.
      for (let second = 0; second < 600; second++) {
        for (let i = 0; i < 20; i++) {
          recorder.record(
            {
              apiVersion: "v1",
              kind: "Pod",
              namespace: "default",
              name: `web-${(second * 20 + i) % 2_000}`,
            },
            { type: "Warning", reason: `Failed${second % 50}`, action: "Sync", note: "failed" },
          );
        }
        await clock.advance(1_000);
        if (second === 4) {
          // Within 5 s: the failed writes are named at once.
          assert.ok(printed.lines.length >= 1, "a line within 5 s");
          assert.match(
            printed.lines[0]!,
            /^error event recorder example\.com\/web-controller \(default\/web-0\.[0-9a-f]+\): event network error: .*connection refused.*; retrying the write \(attempt 1 of 12\)/,
          );
        }
      }
      const h = recorder.health();
      assert.ok(h.dropped > 1_000, JSON.stringify(h));
      // At most one line per kind (network, a full queue) per minute, and the first ones.
      assert.ok(printed.lines.length <= 2 * 11, `${printed.lines.length} lines`);
      assert.ok(
        printed.lines.some((line) => /event queue full/.test(line)),
        printed.lines.join("\n"),
      );
      const stopping = recorder.stop();
      await advance(clock, 5_000);
      await stopping;
    } finally {
      printed.restore();
    }
  });

  test("a recorder runs once: start() after stop() throws a LifecycleError at once", async () => {
    const cluster = new SimulatedCluster();
    const client = new KubeClient({ server: "http://sim.test", fetch: cluster.fetch });
    const recorder = new EventRecorder({ client, reportingController: "example.com/web" });
    recorder.start();
    await recorder.stop();
    assert.equal(recorder.health().state, "stopped");
    assert.throws(() => recorder.start(), (error: unknown) => {
      assert.ok(error instanceof LifecycleError);
      assert.equal(
        error.message,
        "event recorder example.com/web was stopped and runs once: create a new one to start again",
      );
      return true;
    });
    cluster.close();
  });
});
