// Providers: where a fleet's clusters come from, and how they join and leave.
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { secrets } from "../../src/client/builtin_resources.ts";
import { KubeClient } from "../../src/client/kube_client.ts";
import { pods } from "../../src/client/resource.ts";
import type { KubeObject } from "../../src/client/types.ts";
import { parseKubeconfig } from "../../src/config/kubeconfig.ts";
import type { ConfigHost } from "../../src/config/config_loader_options.ts";
import { compositeProvider, staticClusters } from "../../src/fleet/cluster_provider.ts";
import { Fleet } from "../../src/fleet/fleet.ts";
import { kubeconfigConnector, kubeconfigContexts } from "../../src/fleet/kubeconfig_contexts.ts";
import { kubeconfigSecrets } from "../../src/fleet/kubeconfig_secrets.ts";
import { captureConsole } from "../_console.ts";
import { clientOf, ManualClock, server } from "./_fleet_env.ts";
import type { SimulatedCluster } from "@kinformer/simulator";

/** A kubeconfig for a server at `url`, with a token that must never show in errors. */
function kubeconfigText(url: string, token = "s3cret-token"): string {
  return JSON.stringify({
    clusters: [{ name: "c", cluster: { server: url } }],
    users: [{ name: "u", user: { token } }],
    contexts: [{ name: "c", context: { cluster: "c", user: "u" } }],
    "current-context": "c",
  });
}

/** A config host with no files and no environment. */
const bareHost: ConfigHost = {
  runtime: "test",
  readFile: (path) => Promise.reject(Object.assign(new Error(`no ${path}`), { code: "ENOENT" })),
  isNotFound: (error) => (error as { code?: string }).code === "ENOENT",
  env: () => undefined,
  pathListSeparator: ":",
};

/** Routes requests to simulated clusters by host name. */
function router(servers: Record<string, SimulatedCluster>) {
  return (request: Request): Promise<Response> => {
    const s = servers[new URL(request.url).hostname];
    return s === undefined ? Promise.reject(new TypeError("no route")) : s.fetch(request);
  };
}

describe("static and composite providers", () => {
  test("a static provider engages its clusters until its signal aborts", async () => {
    const clock = new ManualClock();
    const a = server(clock, 2);
    await using fleet = new Fleet<KubeObject>({ resource: pods, clock });
    const ac = new AbortController();
    await staticClusters({ a: clientOf("a", a.fetch) }).run(fleet, { signal: ac.signal });
    await fleet.waitForSync();
    assert.equal(fleet.store.size, 2);
    ac.abort();
    assert.deepEqual(fleet.clusters(), []);
    assert.equal(fleet.store.size, 0);
    a.close();
  });

  test("a composite prefixes each provider's names, and feeds several fleets", async () => {
    const clock = new ManualClock();
    const a = server(clock, 1);
    await using first = new Fleet<KubeObject>({ resource: pods, clock });
    await using second = new Fleet<KubeObject>({ resource: pods, clock });
    const ac = new AbortController();
    await compositeProvider({
      eu: staticClusters({ x: clientOf("a", a.fetch) }),
      us: staticClusters({ x: clientOf("a", a.fetch), y: clientOf("a", a.fetch) }),
    }).run([first, second], { signal: ac.signal });
    assert.deepEqual(first.clusters(), ["eu/x", "us/x", "us/y"]);
    assert.deepEqual(second.clusters(), ["eu/x", "us/x", "us/y"]);
    ac.abort();
    assert.deepEqual(first.clusters(), []);
    a.close();
  });

  test("a fleet's clusters option keeps out the clusters it does not cover", async () => {
    const clock = new ManualClock();
    const a = server(clock, 1);
    await using fleet = new Fleet<KubeObject>({
      resource: pods,
      clock,
      clusters: (name) => name.startsWith("prod"),
    });
    const ac = new AbortController();
    await staticClusters({ "prod-1": clientOf("a", a.fetch), "dev-1": clientOf("a", a.fetch) })
      .run(fleet, { signal: ac.signal });
    assert.deepEqual(fleet.clusters(), ["prod-1"]);
    ac.abort();
    a.close();
  });
});

describe("kubeconfig contexts", () => {
  const kubeconfig = parseKubeconfig(JSON.stringify({
    clusters: [{ name: "a", cluster: { server: "http://a.test" } }, {
      name: "b",
      cluster: { server: "http://b.test" },
    }],
    contexts: [
      { name: "prod-a", context: { cluster: "a" } },
      { name: "prod-b", context: { cluster: "b" } },
      { name: "dev-a", context: { cluster: "a" } },
    ],
  }));

  test("every context, a list of names, or a test chooses the clusters", async () => {
    const clock = new ManualClock();
    const servers = { "a.test": server(clock, 2), "b.test": server(clock, 3) };
    const fetch = router(servers);
    const connect = kubeconfigConnector(bareHost, { fetch });
    const loaded = new Map(kubeconfig.contexts.map((c) => [c.name, c.cluster]));
    const viaContext = (context: string) =>
      connect(kubeconfigText(`http://${loaded.get(context)}.test`), new AbortController().signal);
    for (
      const [contexts, expected] of [
        [undefined, ["prod-a", "prod-b", "dev-a"]],
        [["dev-a"], ["dev-a"]],
        [(c: { name: string }) => c.name.startsWith("prod"), ["prod-a", "prod-b"]],
      ] as const
    ) {
      await using fleet = new Fleet<KubeObject>({ resource: pods, clock });
      const ac = new AbortController();
      await kubeconfigContexts({ kubeconfig, contexts, connect: viaContext })
        .run(fleet, { signal: ac.signal });
      assert.deepEqual(fleet.clusters(), expected);
      await fleet.waitForSync();
      assert.equal(fleet.store.size, expected.reduce((n, c) => n + (c.endsWith("b") ? 3 : 2), 0));
      ac.abort();
    }
    for (const s of Object.values(servers)) s.close();
  });

  test("a connector that fails leaves its cluster unreachable and is retried on the backoff", async () => {
    const clock = new ManualClock();
    const a = server(clock, 2);
    let attempts = 0;
    const printed = captureConsole();
    await using fleet = new Fleet<KubeObject>({
      resource: pods,
      clock,
      connectBackoff: { initialMs: 1_000, jitter: "none" },
    });
    const ac = new AbortController();
    await kubeconfigContexts({
      kubeconfig,
      contexts: ["prod-a"],
      connect: () =>
        ++attempts < 3
          ? Promise.reject(new Error("exec plugin failed"))
          : Promise.resolve({ server: "http://a.test", fetch: a.fetch }),
    }).run(fleet, { signal: ac.signal });
    await clock.flush();
    assert.equal(fleet.state("prod-a"), "unreachable");
    assert.equal(attempts, 1);
    await clock.advance(1_000);
    assert.equal(attempts, 2, "retried after the first backoff step");
    await clock.advance(2_000);
    await fleet.waitForSync();
    assert.equal(fleet.state("prod-a"), "synced");
    printed.restore();
    // By default: the first failure at once, the second within the minute not, then recovery.
    assert.deepEqual(printed.lines, [
      "error fleet pods (cluster prod-a): credentials error: exec plugin failed; " +
      "building the client again with backoff (next in 1 s)",
      "warn fleet pods: healthy again after 2 errors",
    ]);
    ac.abort();
    a.close();
  });
});

describe("kubeconfig Secrets in a hub cluster", () => {
  function capiSecret(cluster: string, url: string, namespace = "fleet") {
    return {
      metadata: {
        namespace,
        name: `${cluster}-kubeconfig`,
        labels: { "cluster.x-k8s.io/cluster-name": cluster },
      },
      type: "cluster.x-k8s.io/secret",
      data: { value: btoa(kubeconfigText(url)) },
    };
  }

  test("cluster-api Secrets: clusters join, change and leave with their Secrets", async () => {
    const clock = new ManualClock();
    const hub = server(clock, 0, { resources: [secrets] });
    const w1 = server(clock, 2, { seed: 1 });
    const w2 = server(clock, 3, { seed: 2 });
    const fetch = router({ "w1.test": w1, "w2.test": w2 });
    hub.create(secrets, capiSecret("one", "http://w1.test"));
    // Not a kubeconfig Secret of Cluster API's layout: ignored.
    hub.create(secrets, { metadata: { namespace: "fleet", name: "other" }, data: {} });
    await using fleet = new Fleet<KubeObject>({ resource: pods, clock });
    const ac = new AbortController();
    const errors: string[] = [];
    await kubeconfigSecrets({
      client: clientOf("hub", hub.fetch),
      clock,
      connect: kubeconfigConnector(bareHost, { fetch }),
      onError: (error, { key, kind, phase, cluster }) =>
        errors.push(`${key} (${cluster}) ${kind} during ${phase}: ${String(error)}`),
    }).run(fleet, { signal: ac.signal });
    assert.deepEqual(fleet.clusters(), ["fleet/one"]);
    await fleet.waitForSync();
    assert.equal(fleet.store.size, 2);

    hub.create(secrets, capiSecret("two", "http://w2.test"));
    await clock.flush();
    await fleet.waitForSync({ clusters: ["fleet/two"] });
    assert.equal(fleet.store.size, 5);

    // The Secret now points elsewhere: the cluster is engaged again with the new kubeconfig.
    hub.update(secrets, capiSecret("one", "http://w2.test"));
    await clock.flush();
    await fleet.waitForSync();
    assert.equal(fleet.store.byIndex("cluster", "fleet/one").length, 3);

    hub.delete(secrets, { namespace: "fleet", name: "two-kubeconfig" });
    await clock.flush();
    assert.deepEqual(fleet.clusters(), ["fleet/one"]);
    assert.equal(fleet.state("fleet/two"), "removed");

    // A Secret whose kubeconfig is not UTF-8: reported by name, never by contents.
    hub.create(secrets, {
      ...capiSecret("bad", "http://w1.test"),
      data: { value: btoa("s3cret-token \xff\xfe") },
    });
    await clock.flush();
    assert.equal(errors.length, 1);
    assert.match(
      errors[0]!,
      /^fleet\/bad-kubeconfig \(fleet\/bad\) config during credentials: TypeError: .*not base64/,
    );
    assert.doesNotMatch(errors[0]!, /s3cret/);
    ac.abort();
    await clock.flush();
    assert.deepEqual(fleet.clusters(), []);
    for (const s of [hub, w1, w2]) s.close();
  });

  test("multicluster-runtime Secrets: labelled, the kubeconfig under `kubeconfig`, named as the Secret", async () => {
    const clock = new ManualClock();
    const hub = server(clock, 0, { resources: [secrets] });
    const w1 = server(clock, 2);
    hub.create(secrets, {
      metadata: {
        namespace: "mcr-system",
        name: "cluster1",
        labels: { "sigs.k8s.io/multicluster-runtime-kubeconfig": "true" },
      },
      data: { kubeconfig: btoa(kubeconfigText("http://w1.test")) },
    });
    hub.create(secrets, {
      metadata: { namespace: "mcr-system", name: "unlabelled" },
      data: { kubeconfig: btoa(kubeconfigText("http://w1.test")) },
    });
    await using fleet = new Fleet<KubeObject>({ resource: pods, clock });
    const ac = new AbortController();
    await kubeconfigSecrets({
      client: clientOf("hub", hub.fetch),
      namespace: "mcr-system",
      layout: "multicluster-runtime",
      clock,
      connect: kubeconfigConnector(bareHost, { fetch: router({ "w1.test": w1 }) }),
    }).run(fleet, { signal: ac.signal });
    assert.deepEqual(fleet.clusters(), ["cluster1"]);
    await fleet.waitForSync();
    assert.equal(fleet.store.size, 2);
    ac.abort();
    hub.close();
    w1.close();
  });

  test("the connector reads the kubeconfig text, never a file", async () => {
    const connect = kubeconfigConnector(bareHost);
    const options = await connect(kubeconfigText("http://x.test"), new AbortController().signal);
    assert.equal(options.server, "http://x.test");
    const client = new KubeClient(options);
    assert.ok(client);
    options.close();
  });
});
