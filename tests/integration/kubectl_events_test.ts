// Events on the simulated cluster, as a controller writes them (events.k8s.io/v1) and as kubectl
// reads them: `kubectl get events` (core/v1, the server's Table) and `kubectl events` see the
// same Events, because, as on kube-apiserver, both APIs are one stored resource.
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { coreEvents } from "../../src/client/resource.ts";
import type { KubeObject } from "../../src/client/types.ts";
import { formatMicroTime } from "../../src/util/micro_time.ts";
import { kubectlVersion, setupKubectl, tableRows } from "./_kubectl.ts";

const version = await kubectlVersion();
const available = version !== undefined;
console.log(`kubectl_events_test: ${available ? `kubectl ${version}` : "skipped, no kubectl"}`);

/** An events.k8s.io/v1 Event as a controller's recorder writes it. */
function recorded(name: string, eventTime: number, note: string): Record<string, unknown> {
  return {
    apiVersion: "events.k8s.io/v1",
    kind: "Event",
    metadata: { name, namespace: "default" },
    eventTime: formatMicroTime(eventTime),
    reportingController: "example.com/web-controller",
    reportingInstance: "web-controller-7d9f",
    action: "Scaling",
    reason: "ScaledUp",
    type: "Normal",
    regarding: { apiVersion: "apps/v1", kind: "Deployment", namespace: "default", name: "web" },
    note,
  };
}

describe("kubectl reads the Events controllers write", {
  skip: !available && "kubectl not found",
}, () => {
  test("an events.k8s.io/v1 Event is listed by kubectl get events (server Table) and kubectl events", async () => {
    const { c, clock, kubectl, close } = await setupKubectl();
    try {
      c.create(coreEvents, {
        metadata: { name: "legacy.1", namespace: "default" },
        involvedObject: {
          kind: "Pod",
          namespace: "default",
          name: "web-1",
          fieldPath: "spec.containers{app}",
        },
        reason: "BackOff",
        message: "Back-off restarting failed container",
        type: "Warning",
        source: { component: "kubelet", host: "node-a" },
        firstTimestamp: new Date(clock.now()).toISOString().slice(0, 19) + "Z",
        lastTimestamp: new Date(clock.now()).toISOString().slice(0, 19) + "Z",
        count: 4,
      } as KubeObject);
      await clock.advance(60_000);
      const response = await c.fetch(
        new Request("http://sim.test/apis/events.k8s.io/v1/namespaces/default/events", {
          method: "POST",
          headers: { "Content-Type": "application/json" },
          body: JSON.stringify(recorded("web.1", clock.now(), "Scaled up replica set web-5d to 3")),
        }),
      );
      assert.equal(response.status, 201, await response.clone().text());
      await clock.advance(30_000);

      const table = tableRows((await kubectl(["get", "events"])).stdout);
      assert.deepEqual(table, [
        ["LAST SEEN", "TYPE", "REASON", "OBJECT", "MESSAGE"],
        ["90s", "Warning", "BackOff", "pod/web-1", "Back-off restarting failed container"],
        ["30s", "Normal", "ScaledUp", "deployment/web", "Scaled up replica set web-5d to 3"],
      ]);
      const wide = tableRows((await kubectl(["get", "events", "-o", "wide"])).stdout);
      assert.deepEqual(wide[0], [
        "LAST SEEN",
        "TYPE",
        "REASON",
        "OBJECT",
        "SUBOBJECT",
        "SOURCE",
        "MESSAGE",
        "FIRST SEEN",
        "COUNT",
        "NAME",
      ]);
      assert.deepEqual(wide[1], [
        "90s",
        "Warning",
        "BackOff",
        "pod/web-1",
        "spec.containers{app}",
        "kubelet, node-a",
        "Back-off restarting failed container",
        "90s",
        "4",
        "legacy.1",
      ]);
      assert.deepEqual(wide[2], [
        "30s",
        "Normal",
        "ScaledUp",
        "deployment/web",
        "example.com/web-controller, web-controller-7d9f",
        "Scaled up replica set web-5d to 3",
        "30s",
        "1",
        "web.1",
      ]);

      // kubectl events lists core/v1 Events and prints them itself (ages on its own clock).
      const events = tableRows((await kubectl(["events"])).stdout);
      assert.deepEqual(events[0], ["LAST SEEN", "TYPE", "REASON", "OBJECT", "MESSAGE"]);
      assert.deepEqual(events.slice(1).map((r) => r.slice(1)), [
        ["Warning", "BackOff", "Pod/web-1", "Back-off restarting failed container"],
        ["Normal", "ScaledUp", "Deployment/web", "Scaled up replica set web-5d to 3"],
      ]);
      const forWeb = tableRows((await kubectl(["events", "--for", "deployment/web"])).stdout);
      assert.deepEqual(forWeb.slice(1).map((r) => r[2]), ["ScaledUp"]);
      const selected = c.requests.findLast((r) => r.resource === "events" && r.verb === "list");
      assert.match(selected?.query.fieldSelector ?? "", /involvedObject\.name=web/);

      // Read back through events.k8s.io/v1: the controller's form.
      const json = JSON.parse(
        (await kubectl(["get", "events.v1.events.k8s.io", "web.1", "-o", "json"])).stdout,
      ) as Record<string, unknown>;
      assert.equal(json.apiVersion, "events.k8s.io/v1");
      assert.equal(json.note, "Scaled up replica set web-5d to 3");
      assert.deepEqual(json.regarding, {
        apiVersion: "apps/v1",
        kind: "Deployment",
        namespace: "default",
        name: "web",
      });
      assert.equal(json.reportingController, "example.com/web-controller");
    } finally {
      await close();
    }
  });

  test("kubectl get events -w sees an Event written through events.k8s.io/v1 (one storage)", async () => {
    const { c, clock, start, close } = await setupKubectl();
    try {
      const proc = start(["get", "events", "-w"]);
      for (let i = 0; i < 2000 && c.openWatches === 0; i++) await clock.flush(1);
      assert.equal(c.openWatches, 1, "kubectl opened a watch");
      const response = await c.fetch(
        new Request("http://sim.test/apis/events.k8s.io/v1/namespaces/default/events", {
          method: "POST",
          headers: { "Content-Type": "application/json" },
          body: JSON.stringify(recorded("web.2", clock.now(), "Synced")),
        }),
      );
      assert.equal(response.status, 201, await response.clone().text());
      for (let i = 0; i < 4000 && tableRows(proc.stdout()).length < 2; i++) await clock.flush(1);
      const run = await proc.kill();
      assert.deepEqual(tableRows(run.stdout), [
        ["LAST SEEN", "TYPE", "REASON", "OBJECT", "MESSAGE"],
        ["0s", "Normal", "ScaledUp", "deployment/web", "Synced"],
      ], run.stderr);
    } finally {
      await close();
    }
  });
});
