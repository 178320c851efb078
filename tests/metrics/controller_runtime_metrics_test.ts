// controllerRuntimeMetrics: controller-runtime's metric names, labels, help texts and buckets,
// rendered as client_golang renders them, fed by a real controller and queue on a ManualClock.
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { controllerRuntimeMetrics } from "../../src/metrics/mod.ts";
import { formatValue } from "../../src/metrics/_exposition.ts";
import { Controller, type InformerLike } from "../../src/controller/mod.ts";
import { RateLimitingQueue } from "../../src/queue/mod.ts";
import { sleep } from "../../src/util/clock.ts";
import { ManualClock } from "../../src/testing/manual_clock.ts";

type Obj = { metadata: { namespace?: string; name?: string } };

function informerOf(...names: string[]): InformerLike<Obj> {
  return {
    addEventHandler(handler) {
      for (const name of names) handler.onAdd?.({ metadata: { namespace: "default", name } }, true);
      return { hasSynced: () => true, remove: () => {} };
    },
  };
}

/** Families of an exposition: type, help and sample lines, checked line by line. */
function parse(text: string): Map<string, { type: string; help: string; samples: string[] }> {
  assert.ok(text.endsWith("\n"));
  const families = new Map<string, { type: string; help: string; samples: string[] }>();
  let current: string | undefined;
  for (const line of text.slice(0, -1).split("\n")) {
    const help = line.match(/^# HELP (\S+) (.*)$/);
    if (help !== null) {
      current = help[1]!;
      assert.equal(families.has(current), false, `${current} twice`);
      families.set(current, { type: "", help: help[2]!, samples: [] });
      continue;
    }
    const type = line.match(/^# TYPE (\S+) (counter|gauge|histogram)$/);
    if (type !== null) {
      assert.equal(type[1], current);
      families.get(current!)!.type = type[2]!;
      continue;
    }
    assert.match(line, /^[a-z_]+(\{[a-z_]+="[^"]*"(,[a-z_]+="[^"]*")*\})? \S+$/, line);
    assert.ok(line.startsWith(current!), `${line} belongs to ${current}`);
    families.get(current!)!.samples.push(line);
  }
  return families;
}

describe("controllerRuntimeMetrics", () => {
  test("the families, label sets and help texts of controller-runtime, in client_golang's order", () => {
    const clock = new ManualClock(0);
    const registry = controllerRuntimeMetrics({ clock });
    registry.controller("widgets");
    registry.leaderElection("widget-controller");
    const families = parse(registry.render());
    assert.deepEqual([...families.keys()], [
      "controller_runtime_active_workers",
      "controller_runtime_max_concurrent_reconciles",
      "controller_runtime_reconcile_errors_total",
      "controller_runtime_reconcile_panics_total",
      "controller_runtime_reconcile_timeouts_total",
      "controller_runtime_reconcile_total",
      "controller_runtime_terminal_reconcile_errors_total",
      "leader_election_master_status",
      "workqueue_adds_total",
      "workqueue_depth",
      "workqueue_longest_running_processor_seconds",
      "workqueue_queue_duration_seconds",
      "workqueue_retries_total",
      "workqueue_unfinished_work_seconds",
      "workqueue_work_duration_seconds",
    ]);
    const f = (name: string) => families.get(name)!;
    assert.deepEqual(f("controller_runtime_reconcile_total").samples, [
      'controller_runtime_reconcile_total{controller="widgets",result="error"} 0',
      'controller_runtime_reconcile_total{controller="widgets",result="requeue"} 0',
      'controller_runtime_reconcile_total{controller="widgets",result="requeue_after"} 0',
      'controller_runtime_reconcile_total{controller="widgets",result="success"} 0',
    ]);
    assert.equal(
      f("controller_runtime_reconcile_total").help,
      "Total number of reconciliations per controller",
    );
    assert.equal(f("controller_runtime_reconcile_total").type, "counter");
    assert.equal(
      f("controller_runtime_reconcile_errors_total").help,
      "Total number of reconciliation errors per controller",
    );
    assert.equal(
      f("controller_runtime_active_workers").help,
      "Number of currently used workers per controller",
    );
    assert.equal(f("controller_runtime_active_workers").type, "gauge");
    assert.deepEqual(f("workqueue_depth").samples, [
      'workqueue_depth{controller="widgets",name="widgets",priority=""} 0',
    ]);
    assert.equal(f("workqueue_depth").help, "Current depth of workqueue by workqueue and priority");
    assert.equal(f("workqueue_adds_total").help, "Total number of adds handled by workqueue");
    assert.equal(
      f("workqueue_queue_duration_seconds").help,
      "How long in seconds an item stays in workqueue before being requested",
    );
    assert.equal(
      f("workqueue_work_duration_seconds").help,
      "How long in seconds processing an item from workqueue takes.",
    );
    assert.match(
      f("workqueue_retries_total").help,
      /^Total number of items added to the workqueue/,
    );
    assert.deepEqual(f("leader_election_master_status").samples, [
      'leader_election_master_status{name="widget-controller"} 0',
    ]);
    // The queue histograms: ExponentialBuckets(10e-9, 10, 12), as Go prints them.
    const les = f("workqueue_queue_duration_seconds").samples
      .map((s) => s.match(/le="([^"]+)"/)?.[1])
      .filter((le) => le !== undefined);
    assert.deepEqual(les, [
      "1e-08",
      "1e-07",
      "1e-06",
      "9.999999999999999e-06",
      "9.999999999999999e-05",
      "0.001",
      "0.01",
      "0.1",
      "1",
      "10",
      "100",
      "1000",
      "+Inf",
    ]);
    assert.equal(f("workqueue_queue_duration_seconds").type, "histogram");
    // The reconcile-time histogram appears with the first reconcile, as in controller-runtime.
    assert.equal(families.has("controller_runtime_reconcile_time_seconds"), false);
  });

  test("a controller's reconciles, queue and workers show up as controller-runtime counts them", async () => {
    const clock = new ManualClock(0);
    const registry = controllerRuntimeMetrics({ clock });
    let failed = false;
    const controller = new Controller({
      name: "widgets",
      informers: [informerOf("a", "b", "c")],
      clock,
      workers: 2,
      metrics: registry.controller("widgets"),
      onError: () => {},
      reconcile: async (key, ctx) => {
        await sleep(key === "default/c" ? 30_000 : 1_500, { clock, signal: ctx.signal });
        if (key === "default/b" && !failed) {
          failed = true;
          throw new Error("once");
        }
        if (key === "default/a") return { requeueAfterMs: 600_000 };
      },
    });
    controller.start();
    // At 1.5 s a and b are done (b failed); c starts, b's retry 5 ms later: both run at 2 s.
    await clock.advance(2_000);
    const mid = parse(registry.render());
    assert.deepEqual(mid.get("controller_runtime_active_workers")!.samples, [
      'controller_runtime_active_workers{controller="widgets"} 2',
    ]);
    assert.deepEqual(mid.get("workqueue_longest_running_processor_seconds")!.samples, [
      'workqueue_longest_running_processor_seconds{controller="widgets",name="widgets"} 0.5',
    ]);
    await clock.advance(30_000);
    const text = registry.render();
    const families = parse(text);
    const sample = (name: string): string[] => families.get(name)!.samples;
    assert.deepEqual(sample("controller_runtime_reconcile_total"), [
      'controller_runtime_reconcile_total{controller="widgets",result="error"} 1',
      'controller_runtime_reconcile_total{controller="widgets",result="requeue"} 0',
      'controller_runtime_reconcile_total{controller="widgets",result="requeue_after"} 1',
      'controller_runtime_reconcile_total{controller="widgets",result="success"} 2',
    ]);
    assert.deepEqual(sample("controller_runtime_reconcile_errors_total"), [
      'controller_runtime_reconcile_errors_total{controller="widgets"} 1',
    ]);
    assert.deepEqual(sample("controller_runtime_max_concurrent_reconciles"), [
      'controller_runtime_max_concurrent_reconciles{controller="widgets"} 2',
    ]);
    assert.deepEqual(sample("workqueue_adds_total"), [
      'workqueue_adds_total{controller="widgets",name="widgets"} 4',
    ]);
    assert.deepEqual(sample("workqueue_retries_total"), [
      'workqueue_retries_total{controller="widgets",name="widgets"} 2',
    ]);
    assert.deepEqual(sample("workqueue_depth"), [
      'workqueue_depth{controller="widgets",name="widgets",priority=""} 0',
    ]);
    assert.deepEqual(sample("workqueue_unfinished_work_seconds"), [
      'workqueue_unfinished_work_seconds{controller="widgets",name="widgets"} 0',
    ]);
    // Reconcile times: 1.5 s three times, 30 s once.
    const time = sample("controller_runtime_reconcile_time_seconds");
    assert.ok(
      time.includes(
        'controller_runtime_reconcile_time_seconds_bucket{controller="widgets",le="1.5"} 3',
      ),
    );
    assert.ok(
      time.includes(
        'controller_runtime_reconcile_time_seconds_bucket{controller="widgets",le="25"} 3',
      ),
    );
    assert.ok(
      time.includes(
        'controller_runtime_reconcile_time_seconds_bucket{controller="widgets",le="30"} 4',
      ),
    );
    assert.ok(
      time.includes(
        'controller_runtime_reconcile_time_seconds_bucket{controller="widgets",le="+Inf"} 4',
      ),
    );
    assert.ok(
      time.includes('controller_runtime_reconcile_time_seconds_sum{controller="widgets"} 34.5'),
    );
    assert.ok(
      time.includes('controller_runtime_reconcile_time_seconds_count{controller="widgets"} 4'),
    );
    assert.equal(time.filter((l) => l.includes("_bucket")).length, 41, "40 buckets and +Inf");
    // Queue latency: c waited 1.5 s for a worker; a, b and b's retry none.
    const latency = sample("workqueue_queue_duration_seconds");
    assert.ok(
      latency.includes(
        'workqueue_queue_duration_seconds_bucket{controller="widgets",name="widgets",le="0.001"} 3',
      ),
    );
    assert.ok(
      latency.includes(
        'workqueue_queue_duration_seconds_bucket{controller="widgets",name="widgets",le="1"} 3',
      ),
    );
    assert.ok(
      latency.includes(
        'workqueue_queue_duration_seconds_bucket{controller="widgets",name="widgets",le="10"} 4',
      ),
    );
    assert.ok(
      latency.includes(
        'workqueue_queue_duration_seconds_sum{controller="widgets",name="widgets"} 1.5',
      ),
    );
    assert.ok(
      latency.includes(
        'workqueue_queue_duration_seconds_count{controller="widgets",name="widgets"} 4',
      ),
    );
    await controller.stop();
  });

  test("the leader gauge follows the hooks; the handler serves the text format", async () => {
    const registry = controllerRuntimeMetrics();
    const hooks = registry.leaderElection("ctl");
    assert.equal(registry.leaderElection("ctl"), hooks, "one series per lease");
    hooks.onStartedLeading();
    assert.match(registry.render(), /^leader_election_master_status\{name="ctl"\} 1$/m);
    hooks.onStoppedLeading();
    assert.match(registry.render(), /^leader_election_master_status\{name="ctl"\} 0$/m);
    const response = registry.handler(new Request("http://x/metrics"));
    assert.equal(response.headers.get("content-type"), "text/plain; version=0.0.4; charset=utf-8");
    assert.match(await response.text(), /leader_election_master_status/);
    assert.equal(registry.handler(new Request("http://x/metrics", { method: "POST" })).status, 405);
    assert.throws(() => registry.controller(""), /name/);
  });

  test("a standalone queue's hooks", async () => {
    const clock = new ManualClock(0);
    const registry = controllerRuntimeMetrics({ clock });
    const queue = new RateLimitingQueue<string>({
      clock,
      name: "jobs",
      metrics: registry.workqueue("jobs"),
    });
    queue.add("a");
    queue.add("a");
    queue.add("b");
    assert.match(
      registry.render(),
      /^workqueue_depth\{controller="jobs",name="jobs",priority=""\} 2$/m,
    );
    await queue.get();
    await clock.advance(4_000);
    assert.match(
      registry.render(),
      /^workqueue_unfinished_work_seconds\{controller="jobs",name="jobs"\} 4$/m,
    );
    await queue.stop();
  });

  test("numbers are written as Go's strconv 'g' writes them", () => {
    const cases: [number, string][] = [
      [0, "0"],
      [1, "1"],
      [0.005, "0.005"],
      [0.0001, "0.0001"],
      [0.00001, "1e-05"],
      [123456, "123456"],
      [1e6, "1e+06"],
      [1234567, "1.234567e+06"],
      [34.5, "34.5"],
      [NaN, "NaN"],
      [Infinity, "+Inf"],
      [-Infinity, "-Inf"],
    ];
    for (const [value, text] of cases) assert.equal(formatValue(value), text, String(value));
  });
});
