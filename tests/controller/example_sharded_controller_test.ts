// The sharded example (examples/sharded_controller.ts): 3 replicas of the pod-index controller
// against the simulated cluster on a ManualClock, and the deployment manifests of
// examples/deploy/ checked against what the replicas actually ask of the API server.
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import YAML from "yaml";
import { type Replica, startReplica } from "../../examples/sharded_controller.ts";
import { INDEX_NAME } from "../../examples/controller.ts";
import { KubeClient } from "../../src/client/kube_client.ts";
import { configmaps, pods } from "../../src/client/resource.ts";
import { ManualClock } from "../../src/testing/manual_clock.ts";
import { SimulatedCluster } from "@kinformer/simulator";
import { seededRandom } from "../../src/testing/seeded_random.ts";
import { Link } from "../_lease_faults.ts";
import { ROOT } from "../_runtime_process.ts";

const LEASE_NAMESPACE = "pod-index";
const NAMESPACES = Array.from({ length: 24 }, (_, i) => `team-${i}`);

interface Running {
  replica: Replica;
  link: Link;
  stop: AbortController;
}

class Deployment {
  readonly clock = new ManualClock();
  readonly cluster = new SimulatedCluster({
    clock: this.clock,
    seed: 3,
    autoCreateNamespaces: true,
  });
  readonly replicas = new Map<string, Running>();
  #serial = 0;

  readonly mode: "sharded" | "leader";
  constructor(mode: "sharded" | "leader") {
    this.mode = mode;
    for (const [i, ns] of NAMESPACES.entries()) {
      this.cluster.create(pods, { metadata: { namespace: ns, name: `app-${i}` } });
    }
  }

  start(identity: string): Running {
    const link = new Link(this.cluster.fetch, this.clock);
    const stop = new AbortController();
    const replica = startReplica({
      client: new KubeClient({ server: "http://sim.test", fetch: link.fetch }),
      signal: stop.signal,
      identity,
      leaseNamespace: LEASE_NAMESPACE,
      mode: this.mode,
      clock: this.clock,
      random: seededRandom(++this.#serial),
    });
    const running = { replica, link, stop };
    this.replicas.set(identity, running);
    return running;
  }

  crash(identity: string): void {
    const r = this.replicas.get(identity)!;
    r.link.mode = { kind: "drop" };
    r.stop.abort();
    void r.replica.done.catch(() => {});
  }

  async run(ms: number): Promise<void> {
    for (let t = 0; t < ms; t += 500) await this.clock.advance(500);
  }

  /** Namespaces whose pod-index does not list exactly their pods. */
  wrong(): string[] {
    const out: string[] = [];
    for (const ns of NAMESPACES) {
      const names = this.cluster.list(pods, { namespace: ns }).map((p) => p.metadata.name!).sort();
      const cm = this.cluster.get(configmaps, { namespace: ns, name: INDEX_NAME }) as
        | { data?: Record<string, string> }
        | undefined;
      const ok = names.length === 0 ? cm === undefined : cm?.data?.pods === names.join(",");
      if (!ok) out.push(`${ns}: pods ${names.join(",")} index ${cm?.data?.pods}`);
    }
    return out;
  }

  async close(): Promise<void> {
    for (const r of this.replicas.values()) {
      r.link.mode = { kind: "ok" };
      r.stop.abort();
    }
    await this.clock.advance(0);
    await Promise.all([...this.replicas.values()].map((r) => r.replica.done));
    this.cluster.close();
    await this.clock.flush();
    assert.equal(this.clock.pendingTimers, 0, "timers left behind");
  }
}

/** Every (API group, resource, verb) the replicas asked for, and where the Leases were. */
function requestsOf(cluster: SimulatedCluster): Set<string> {
  const groups: Record<string, string> = { leases: "coordination.k8s.io" };
  const used = new Set<string>();
  for (const r of cluster.requests) {
    if (r.resource === undefined) continue;
    if (r.resource === "leases") assert.equal(r.namespace, LEASE_NAMESPACE, "Leases stay home");
    used.add(`${groups[r.resource] ?? ""}/${r.resource}/${r.verb}`);
  }
  return used;
}

interface Manifest {
  kind: string;
  metadata: { name: string; namespace?: string };
  [field: string]: unknown;
}

async function manifests(): Promise<Manifest[]> {
  const text = await readFile(join(ROOT, "examples", "deploy", "pod-index.yaml"), "utf8");
  const docs = YAML.parseAllDocuments(text);
  for (const d of docs) assert.deepEqual(d.errors, [], "the YAML parses");
  return docs.map((d) => d.toJS() as Manifest);
}

/** The (group, resource, verb) triples the manifests grant the ServiceAccount. */
function granted(docs: Manifest[]): { namespaced: Set<string>; cluster: Set<string> } {
  const out = { namespaced: new Set<string>(), cluster: new Set<string>() };
  const roles = new Map(
    docs.filter((d) => /Role$/.test(d.kind)).map((d) => [
      `${d.kind}/${d.metadata.name}`,
      d,
    ]),
  );
  for (const binding of docs.filter((d) => /RoleBinding$/.test(d.kind))) {
    const subjects = binding.subjects as { kind: string; name: string; namespace: string }[];
    if (!subjects.some((s) => s.kind === "ServiceAccount" && s.name === "pod-index")) continue;
    const ref = binding.roleRef as { kind: string; name: string };
    const role = roles.get(`${ref.kind}/${ref.name}`);
    assert.ok(role, `${binding.metadata.name} refers to a role in the file`);
    const into = binding.kind === "ClusterRoleBinding" ? out.cluster : out.namespaced;
    if (binding.kind === "RoleBinding") {
      assert.equal(binding.metadata.namespace, LEASE_NAMESPACE);
    }
    for (
      const rule of role.rules as { apiGroups: string[]; resources: string[]; verbs: string[] }[]
    ) {
      for (const g of rule.apiGroups) {
        for (const r of rule.resources) for (const v of rule.verbs) into.add(`${g}/${r}/${v}`);
      }
    }
  }
  return out;
}

describe("examples/sharded_controller.ts", () => {
  test("3 sharded replicas keep every pod-index right through churn, a crash and a new replica", async () => {
    const d = new Deployment("sharded");
    for (const id of ["pod-a", "pod-b", "pod-c"]) d.start(id);
    await d.run(10_000);
    const churn = d.cluster.startChurn({
      resource: pods,
      namespaces: NAMESPACES,
      ratePerSecond: 6,
      mix: { create: 3, update: 1, delete: 2, recreate: 1, labelFlip: 0 },
    });
    await d.run(20_000);
    d.crash("pod-b");
    await d.run(20_000);
    d.start("pod-d");
    await d.run(20_000);
    churn.stop();
    await d.run(20_000);
    assert.deepEqual(d.wrong(), []);
    const live = ["pod-a", "pod-c", "pod-d"].map((id) => d.replicas.get(id)!.replica);
    const owned = live.map((r) => r.coordinator!.ownedShards().length);
    assert.deepEqual(owned.toSorted(), [5, 5, 6], "a fair split among the live replicas");
    for (const r of live) assert.ok(r.stats.reconciles > 0, "every replica did some of the work");
    await d.close();
  });

  test("leader mode: only the leader reconciles; a standby takes over after a crash", async () => {
    const d = new Deployment("leader");
    for (const id of ["pod-a", "pod-b", "pod-c"]) d.start(id);
    await d.run(10_000);
    const working = () =>
      [...d.replicas].filter(([, r]) => r.replica.stats.reconciles > 0).map(([id]) => id);
    assert.equal(working().length, 1);
    assert.deepEqual(d.wrong(), []);
    const leader = working()[0]!;
    d.crash(leader);
    d.cluster.create(pods, { metadata: { namespace: "team-1", name: "after-crash" } });
    await d.run(20_000);
    assert.equal(working().length, 2, "one standby took over");
    assert.deepEqual(d.wrong(), []);
    await d.close();
  });

  test("the manifests parse: namespace, ServiceAccount, RBAC, a Deployment with 3 replicas", async () => {
    const docs = await manifests();
    assert.deepEqual(docs.map((d) => d.kind), [
      "Namespace",
      "ServiceAccount",
      "Role",
      "RoleBinding",
      "ClusterRole",
      "ClusterRoleBinding",
      "Deployment",
    ]);
    const deployment = docs.find((d) => d.kind === "Deployment")! as Manifest & {
      spec: {
        replicas: number;
        template: {
          spec: {
            serviceAccountName: string;
            containers: {
              args: string[];
              env: { name: string; valueFrom?: { fieldRef: { fieldPath: string } } }[];
            }[];
          };
        };
      };
    };
    assert.equal(deployment.spec.replicas, 3);
    assert.equal(deployment.metadata.namespace, LEASE_NAMESPACE);
    const pod = deployment.spec.template.spec;
    assert.equal(pod.serviceAccountName, "pod-index");
    const env = new Map(
      pod.containers[0]!.env.map((e) => [e.name, e.valueFrom?.fieldRef.fieldPath]),
    );
    assert.equal(env.get("POD_NAME"), "metadata.name");
    assert.equal(env.get("POD_NAMESPACE"), "metadata.namespace");
    assert.deepEqual(pod.containers[0]!.args, ["--in-cluster", "--mode", "sharded"]);
    const { namespaced } = granted(docs);
    for (const verb of ["get", "create", "update"]) {
      assert.ok(namespaced.has(`coordination.k8s.io/leases/${verb}`), `leases ${verb}`);
    }
  });

  test("RBAC grants exactly what the replicas ask for, in both modes", async () => {
    const used = new Set<string>();
    for (const mode of ["sharded", "leader"] as const) {
      const d = new Deployment(mode);
      for (const id of ["pod-a", "pod-b", "pod-c"]) d.start(id);
      await d.run(8_000);
      // churn makes the controller create, update and delete ConfigMaps
      d.cluster.churn(60, { resource: pods, namespaces: NAMESPACES.slice(0, 3) });
      for (const p of d.cluster.list(pods, { namespace: "team-5" })) {
        d.cluster.delete(pods, { namespace: "team-5", name: p.metadata.name! });
      }
      await d.run(8_000);
      d.crash("pod-b");
      await d.run(40_000); // a departed member's Lease is deleted (sharded)
      await d.close();
      for (const u of requestsOf(d.cluster)) used.add(u);
    }
    const { namespaced, cluster } = granted(await manifests());
    const leases = [...used].filter((u) => u.startsWith("coordination.k8s.io/"));
    const others = [...used].filter((u) => !u.startsWith("coordination.k8s.io/"));
    for (const u of leases) assert.ok(namespaced.has(u), `granted in the namespace: ${u}`);
    for (const u of others) assert.ok(cluster.has(u), `granted cluster-wide: ${u}`);
    assert.deepEqual([...namespaced].sort(), leases.sort(), "no Lease verb more than needed");
    assert.deepEqual([...cluster].sort(), others.sort(), "no verb more than needed");
  });
});
