// The command's core with an in-memory host: where the context goes (--kubeconfig, KUBECONFIG,
// ~/.kube/config), merging into a kubeconfig that has other contexts and taking the context out
// again at stop, the fixture sets and manifests it starts with, and how it fails.
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { configmaps, pods } from "../../../../src/client/mod.ts";
import { parseYaml } from "../../../../src/internal/mod.ts";
import { ManualClock } from "../../../../src/testing/mod.ts";
import { parseCommandArgs } from "../../src/command/command_options.ts";
import { runCommand, startSimulator } from "../../src/command/run_command.ts";
import { memoryHost } from "./_memory_host.ts";

const options = (...args: string[]) => {
  const parsed = parseCommandArgs(args);
  assert.notEqual(parsed, "help");
  return parsed as Exclude<typeof parsed, "help">;
};

const THEIRS = `apiVersion: v1
kind: Config
current-context: prod
clusters:
- name: prod
  cluster:
    server: https://prod.example:6443
contexts:
- name: prod
  context: {cluster: prod, user: admin}
users:
- name: admin
  user: {token: secret}
`;

describe("startSimulator", () => {
  test("creates --kubeconfig with the context, its CA beside it; stop deletes both", async () => {
    const host = memoryHost();
    const sim = await startSimulator(options("--kubeconfig", "/tmp/k/config"), host);
    assert.equal(sim.created, true);
    assert.equal(sim.caFile, "/tmp/k/kinformer-sim-ca.crt");
    assert.match(host.files.get(sim.caFile)!, /^-----BEGIN CERTIFICATE-----/);
    const config = parseYaml(host.files.get("/tmp/k/config")!) as Record<string, never>;
    assert.equal(config["current-context"], "kinformer-sim");
    assert.deepEqual(config["clusters"], [{
      name: "kinformer-sim",
      cluster: { server: sim.url, "certificate-authority-data": btoa(host.files.get(sim.caFile)!) },
    }]);
    assert.deepEqual(sim.status(), { objects: sim.cluster.objectCount, watches: 0, requests: 0 });
    await sim.stop();
    assert.deepEqual([...host.files.keys()], []);
    assert.equal(host.serving.size, 0);
    assert.equal(sim.cluster.closed, true);
  });

  test("merges into the first file of KUBECONFIG and gives the previous context back at stop", async () => {
    const host = memoryHost({ "/a/config": THEIRS });
    host.environment["KUBECONFIG"] = "/a/config:/b/config";
    const sim = await startSimulator(options("--context", "sim"), host);
    assert.equal(sim.kubeconfig, "/a/config");
    assert.equal(sim.created, false);
    const merged = parseYaml(host.files.get("/a/config")!) as Record<string, { name: string }[]>;
    assert.equal(merged["current-context"] as unknown, "sim");
    assert.deepEqual(merged["contexts"]!.map((c) => c.name), ["prod", "sim"]);
    assert.deepEqual(merged["users"]!.map((c) => c.name), ["admin", "sim"]);
    await sim.stop();
    assert.deepEqual(parseYaml(host.files.get("/a/config")!), parseYaml(THEIRS));
    assert.equal(host.files.has("/a/sim-ca.crt"), false);
  });

  test("without --kubeconfig or KUBECONFIG it is ~/.kube/config", async () => {
    const host = memoryHost();
    const sim = await startSimulator(options(), host);
    assert.equal(sim.kubeconfig, "/home/me/.kube/config");
    await sim.stop();
  });

  test("starts with the demo set the guides assume, or nothing", async () => {
    const host = memoryHost();
    const demo = await startSimulator(options("--kubeconfig", "/k"), host);
    assert.deepEqual(demo.cluster.list(pods).map((p) => p.metadata.name), [
      "api-1",
      "web-1",
      "web-2",
    ]);
    assert.deepEqual(demo.cluster.get(configmaps, { name: "settings" })?.data, { mode: "demo" });
    await demo.stop();
    const none = await startSimulator(options("--kubeconfig", "/k", "--fixtures", "none"), host);
    assert.deepEqual(none.cluster.list(pods), []);
    await none.stop();
  });

  test("applies --manifests: YAML documents and JSON lists, namespaces first", async () => {
    const host = memoryHost({
      "/m/b.json": JSON.stringify({
        apiVersion: "v1",
        kind: "List",
        items: [{
          apiVersion: "v1",
          kind: "ConfigMap",
          metadata: { name: "c", namespace: "shop" },
        }],
      }),
      "/m/a.yaml": "apiVersion: v1\nkind: Pod\nmetadata:\n  name: cart\n  namespace: shop\n" +
        "spec:\n  containers: [{name: c, image: x}]\n---\n" +
        "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: shop\n",
      "/m/notes.txt": "not a manifest",
    });
    const sim = await startSimulator(options("--kubeconfig", "/k", "--manifests", "/m"), host);
    assert.ok(sim.cluster.get(pods, { namespace: "shop", name: "cart" }));
    assert.ok(sim.cluster.get(configmaps, { namespace: "shop", name: "c" }));
    await sim.stop();
  });
});

describe("runCommand", () => {
  test("--help prints the usage and exits 0", async () => {
    const host = memoryHost();
    assert.equal(await runCommand(["--help"], host, AbortSignal.abort()), 0);
    assert.match(host.stdout.join(""), /^Usage: kinformer-sim/);
  });

  test("wrong arguments exit 2 with the reason", async () => {
    const host = memoryHost();
    assert.equal(await runCommand(["--port", "99999"], host, AbortSignal.abort()), 2);
    assert.match(host.stderr.join(""), /--port must be an integer from 0 to 65535, got "99999"/);
    assert.equal(await runCommand(["--fixtures", "prod"], host, AbortSignal.abort()), 2);
    assert.match(host.stderr.join(""), /no set "prod" \(demo, none\)/);
  });

  test("a manifest of a kind never served exits 1 after its retries and leaves nothing behind", async () => {
    const host = memoryHost({
      "/k": THEIRS,
      "/m/x.yaml": "apiVersion: example.com/v1\nkind: Gadget\nmetadata: {name: g}\n",
    });
    const clock = new ManualClock();
    host.clock = clock;
    let code: number | undefined;
    const exit = runCommand(["--kubeconfig", "/k", "--manifests", "/m"], host, AbortSignal.abort())
      .then((c) => (code = c));
    let waited = 0;
    for (; code === undefined; waited += 100) await clock.advance(100);
    await exit;
    assert.equal(code, 1);
    assert.ok(waited >= 1_900, `retried for a CRD being established (${waited} ms)`);
    assert.match(
      host.stderr.join(""),
      /Gadget g: the cluster serves no kind Gadget in example\.com\/v1/,
    );
    assert.equal(host.files.get("/k"), THEIRS);
    assert.equal(host.serving.size, 0);
  });

  test("a status line: updated in place each second on a terminal, a line each --status-every otherwise", async () => {
    for (const isTerminal of [true, false]) {
      const host = memoryHost({ "/k": THEIRS });
      const clock = new ManualClock();
      host.clock = clock;
      host.isTerminal = isTerminal;
      const { promise: started, resolve: serving } = Promise.withResolvers<void>();
      const out = host.out;
      host.out = (text) => {
        out(text);
        if (text.includes("serving")) serving();
      };
      const stop = new AbortController();
      const exit = runCommand(["--kubeconfig", "/k", "--status-every", "5"], host, stop.signal);
      await started;
      const printed = host.stdout.length;
      await clock.advance(1_000);
      const line = "9 objects · 0 watches · 0.0 requests/s"; // the demo set and what a cluster starts with
      assert.deepEqual(host.stdout.slice(printed), isTerminal ? [`\r\x1b[2K${line}`] : []);
      await clock.advance(4_000);
      assert.equal(host.stdout.at(-1), isTerminal ? `\r\x1b[2K${line}` : `${line}\n`);
      assert.equal(host.stdout.length - printed, isTerminal ? 5 : 1);
      stop.abort();
      assert.equal(await exit, 0);
      assert.equal(clock.pendingTimers, 0, "no timer left behind");
    }
  });

  test("runs until stopped, then takes its context out and says so", async () => {
    const host = memoryHost({ "/k": THEIRS });
    const stop = new AbortController();
    const { promise: started, resolve: serving } = Promise.withResolvers<void>();
    const out = host.out;
    host.out = (text) => {
      out(text);
      if (text.includes("serving")) serving();
    };
    const exit = runCommand(["--kubeconfig", "/k", "--context", "dev"], host, stop.signal);
    await started;
    assert.match(host.stdout.join(""), /kinformer-sim serving https:\/\/127\.0\.0\.1:\d+\n/);
    assert.match(host.files.get("/k")!, /current-context: "dev"/);
    stop.abort();
    assert.equal(await exit, 0);
    assert.deepEqual(parseYaml(host.files.get("/k")!), parseYaml(THEIRS));
    assert.match(host.stdout.join(""), /kinformer-sim stopped; context dev taken out of \/k\n$/);
    assert.doesNotMatch(host.stdout.join("") + host.stderr.join(""), /secret|Bearer/);
  });
});
