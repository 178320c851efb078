// examples/operator: two replicas of the StaticSite operator with leader election on the
// simulated cluster (a ManualClock), through creation, readiness, an update, a crash of the
// leader, and deletion; checked through the cluster's objects, Events, conditions, the
// finalizer and the replicas' /metrics.
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import {
  createOperator,
  FINALIZER,
  MANAGER,
  type Operator,
  REGISTRY,
  type StaticSite,
  staticSites,
} from "../../examples/operator/operator.ts";
import type { Condition } from "../../src/controller/mod.ts";
import { eventsV1 } from "../../src/client/mod.ts";
import { KubeClient } from "../../src/client/kube_client.ts";
import { configmaps, deployments, leases, namespaces } from "../../src/client/resource.ts";
import type { KubeObject } from "../../src/client/types.ts";
import { ManualClock } from "../../src/testing/manual_clock.ts";
import { seededRandom } from "../../src/testing/seeded_random.ts";
import { SimulatedCluster } from "@kinformer/simulator";
import { Link } from "../_lease_faults.ts";
import type { AuthorizationRule } from "../../src/testing/mod.ts";
import { parseYaml } from "../../src/config/yaml/parse_yaml.ts";
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";

/**
 * The operator's RBAC, read from its manifest (the Role in its namespace, the ClusterRole
 * everywhere): the simulated cluster answers 403 to anything it does not grant, as a cluster
 * would, so a verb missing from the manifest fails this test.
 */
function manifestRbac(): AuthorizationRule[] {
  const path = fileURLToPath(
    new URL("../../examples/operator/deploy/operator.yaml", import.meta.url),
  );
  const rules: AuthorizationRule[] = [];
  for (const doc of readFileSync(path, "utf8").split(/^---$/m)) {
    const o = parseYaml(doc) as {
      kind?: string;
      metadata?: { namespace?: string };
      rules?: { apiGroups: string[]; resources: string[]; verbs: string[] }[];
    } | null;
    if (o === null || (o.kind !== "Role" && o.kind !== "ClusterRole")) continue;
    for (const r of o.rules ?? []) {
      rules.push(
        o.kind === "Role"
          ? {
            verbs: r.verbs,
            apiGroups: r.apiGroups,
            resources: r.resources,
            namespaces: [o.metadata!.namespace!],
          }
          : { verbs: r.verbs, apiGroups: r.apiGroups, resources: r.resources },
      );
    }
  }
  assert.ok(rules.length > 5, "the manifest's rules were read");
  return rules;
}

const NS = "kinformer-system";
const SITE = { namespace: "default", name: "web" };

type ConfigMap = KubeObject & { data?: Record<string, string> };
type Deployment = KubeObject & {
  spec?: { replicas?: number };
  status?: { readyReplicas?: number };
};
type Event = KubeObject & {
  reason: string;
  action: string;
  type: string;
  note: string;
  regarding: { kind: string; name: string };
  reportingInstance: string;
};

interface Replica {
  id: string;
  operator: Operator;
  link: Link;
  errors: unknown[];
}

class World {
  readonly clock = new ManualClock(Date.UTC(2026, 6, 1));
  readonly cluster = new SimulatedCluster({
    clock: this.clock,
    resources: [staticSites],
    authorization: manifestRbac(),
  });

  constructor() {
    // The operator's own namespace exists before it is deployed, as on a cluster.
    this.cluster.create(namespaces, { metadata: { name: NS } });
  }

  replica(id: string): Replica {
    const link = new Link(this.cluster.fetch, this.clock);
    const client = new KubeClient({ server: "http://sim", fetch: link.fetch });
    const errors: unknown[] = [];
    const operator = createOperator({
      client,
      namespace: NS,
      identity: id,
      clock: this.clock,
      random: seededRandom(id.charCodeAt(0)),
      onError: (error) => void errors.push(error),
    });
    operator.manager.start();
    return { id, operator, link, errors };
  }

  site(): StaticSite | undefined {
    return this.cluster.get(staticSites, SITE);
  }
  ready(): Condition | undefined {
    return this.site()?.status?.conditions?.find((c) => c.type === "Ready");
  }
  deployment(): Deployment | undefined {
    return this.cluster.get<Deployment>(deployments, SITE);
  }
  /** The Deployment controller's part: report `n` ready replicas. */
  setReady(n: number): void {
    const d = this.deployment()!;
    this.cluster.update<Deployment>(deployments, { ...d, status: { readyReplicas: n } });
  }
  registry(): Record<string, string> | undefined {
    return this.cluster.get<ConfigMap>(configmaps, { namespace: NS, name: REGISTRY })?.data;
  }
  events(): Event[] {
    return this.cluster.list<Event>(eventsV1, { namespace: "default" });
  }
  holder(): string {
    const lease = this.cluster.get(leases, { namespace: NS, name: MANAGER }) as {
      spec?: { holderIdentity?: string };
    };
    return lease?.spec?.holderIdentity ?? "";
  }
}

async function scrape(r: Replica): Promise<string> {
  return await r.operator.manager.fetch(new Request("http://pod/metrics")).text();
}

describe("examples/operator", () => {
  test("creation, readiness, update, leader crash and deletion, on two replicas", async () => {
    const w = new World();
    const a = w.replica("operator-a");
    await w.clock.advance(1_000);
    const b = w.replica("operator-b");
    await w.clock.advance(3_000);
    assert.equal(w.holder(), "operator-a");
    for (const r of [a, b]) {
      const ready = r.operator.manager.fetch(new Request("http://pod/readyz"));
      assert.equal(ready.status, 200, `${r.id} is ready (the standby too)`);
    }

    // 1. Creation: finalizer, children, registry entry, status, events.
    w.cluster.create(staticSites, {
      metadata: SITE,
      spec: { message: "hello <world>", replicas: 2 },
    });
    await w.clock.advance(2_000);
    await a.operator.recorder.flush();
    assert.deepEqual(w.site()?.metadata.finalizers, [FINALIZER]);
    const content = w.cluster.get<ConfigMap>(configmaps, {
      namespace: "default",
      name: "web-content",
    });
    assert.match(content?.data?.["index.html"] ?? "", /<h1>hello &#60;world&#62;<\/h1>/);
    assert.equal(w.deployment()?.spec?.replicas, 2);
    for (const child of [content!, w.deployment()!]) {
      const owner = child.metadata.ownerReferences?.[0];
      assert.equal(owner?.kind, "StaticSite");
      assert.equal(owner?.uid, w.site()?.metadata.uid);
      assert.equal(owner?.controller, true);
    }
    assert.deepEqual(w.registry(), { "default.web": "http://web.default.svc.cluster.local" });
    let ready = w.ready();
    assert.equal(ready?.status, "False");
    assert.equal(ready?.reason, "Progressing");
    assert.equal(ready?.observedGeneration, 1);
    assert.equal(w.site()?.status?.observedGeneration, 1);
    const firstTransition = ready?.lastTransitionTime;
    assert.deepEqual(w.events().map((e) => e.reason).sort(), ["Provisioned", "Registered"]);
    assert.ok(
      w.events().every((e) => e.regarding.kind === "StaticSite" && e.regarding.name === "web"),
    );
    assert.ok(w.events().every((e) => e.reportingInstance === "operator-a"));

    // 2. The Deployment becomes ready: an owned object's change wakes the site.
    await w.clock.advance(5_000);
    w.setReady(2);
    await w.clock.advance(2_000);
    await a.operator.recorder.flush();
    ready = w.ready();
    assert.equal(ready?.status, "True");
    assert.equal(ready?.reason, "Available");
    assert.notEqual(ready?.lastTransitionTime, firstTransition);
    assert.ok(w.events().some((e) => e.reason === "Available"));

    // 3. An update of the spec: children follow, Ready goes back to False until scaled.
    const site = w.site()!;
    w.cluster.update(staticSites, { ...site, spec: { message: "bye", replicas: 3 } });
    await w.clock.advance(2_000);
    await a.operator.recorder.flush();
    assert.equal(w.deployment()?.spec?.replicas, 3);
    assert.match(
      w.cluster.get<ConfigMap>(configmaps, { namespace: "default", name: "web-content" })?.data
        ?.["index.html"] ?? "",
      /bye/,
    );
    assert.equal(w.ready()?.status, "False");
    assert.equal(w.ready()?.observedGeneration, 2);
    assert.ok(w.events().some((e) => e.reason === "Updated"));
    const metricsA = await scrape(a);
    assert.match(metricsA, /^leader_election_master_status\{name="static-site-operator"\} 1$/m);
    assert.match(
      metricsA,
      /^controller_runtime_reconcile_total\{controller="staticsite",result="success"\} [1-9]\d*$/m,
    );
    assert.match(
      metricsA,
      /^workqueue_adds_total\{controller="staticsite",name="staticsite"\} [1-9]/m,
    );
    assert.match(
      await scrape(b),
      /^leader_election_master_status\{name="static-site-operator"\} 0$/m,
    );
    assert.match(
      await scrape(b),
      /^controller_runtime_reconcile_total\{controller="staticsite",result="success"\} 0$/m,
    );

    // 4. The leader crashes (no graceful stop, its lease stays); meanwhile the Deployment
    //    scales up. The standby takes over after the lease expires and catches up.
    a.link.mode = { kind: "drop" };
    const crashed = a.operator.manager.stop(); // its requests fail: nothing is released
    await w.clock.advance(1_000);
    w.setReady(3);
    await w.clock.advance(20_000);
    await crashed;
    assert.equal(w.holder(), "operator-b");
    await b.operator.recorder.flush();
    assert.equal(w.ready()?.status, "True", "the new leader reconciled the change");
    assert.match(
      await scrape(b),
      /^leader_election_master_status\{name="static-site-operator"\} 1$/m,
    );
    assert.ok(
      w.events().some((e) => e.reason === "Available" && e.reportingInstance === "operator-b"),
    );

    // 5. Deletion: the finalizer holds the site until the registry entry is gone.
    w.cluster.delete(staticSites, SITE);
    await w.clock.advance(2_000);
    await b.operator.recorder.flush();
    assert.equal(w.site(), undefined, "the finalizer was removed and the site is gone");
    // The entry is gone; an emptied ConfigMap keeps no `data` map, as on kube-apiserver.
    assert.deepEqual(w.registry() ?? {}, {});
    assert.ok(w.events().some((e) => e.reason === "Deregistered"));
    // (The simulator has no garbage collector: on a cluster the ownerReferences delete the
    // ConfigMap and the Deployment now.)
    const metricsB = await scrape(b);
    assert.match(
      metricsB,
      /^controller_runtime_reconcile_errors_total\{controller="staticsite"\} 0$/m,
    );
    assert.deepEqual(b.errors, []);

    await b.operator.manager.stop();
    assert.equal(w.holder(), "", "a graceful stop releases the lease");
    w.cluster.close();
  });
});
