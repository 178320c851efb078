// runManager on this runtime's own HTTP server (Deno.serve, Bun.serve, node:http) and on
// node:http (which every runtime runs): the endpoints over real HTTP on loopback, a stop through
// the signal option, and a manager that fails by itself. Real termination signals are in
// tests/integration/manager_signals_test.ts.
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { type InformerLike, Manager } from "../../../src/controller/mod.ts";
import type { RunManagerOptions } from "../../../src/controller/manager/_run_manager.ts";
import { runtime } from "../../_serve.ts";
import { connect } from "node:net";

type RunManager = (manager: Manager, options?: RunManagerOptions) => Promise<void>;

async function adapters(): Promise<{ name: string; runManager: RunManager }[]> {
  const list: { name: string; runManager: RunManager }[] = [];
  if (runtime === "deno") {
    list.push({
      name: "manager_deno",
      runManager: (await import("../../../src/adapters/deno/manager.ts")).runManager,
    });
  }
  if (runtime === "bun") {
    list.push({
      name: "manager_bun",
      runManager: (await import("../../../src/adapters/bun/manager.ts")).runManager,
    });
  }
  list.push({
    name: "manager_node",
    runManager: (await import("../../../src/adapters/node/manager.ts")).runManager,
  });
  return list;
}

const informer: InformerLike<{ metadata: { namespace: string; name: string } }> = {
  addEventHandler(handler) {
    handler.onAdd?.({ metadata: { namespace: "default", name: "web" } }, true);
    return { hasSynced: () => true, remove: () => {} };
  },
};

/** Sends `raw` (a whole HTTP/1.1 request) to 127.0.0.1:`port`; resolves with the raw answer. */
function rawRequest(port: number, raw: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, "127.0.0.1");
    let text = "";
    socket.setEncoding("utf8");
    socket.on("data", (chunk: string) => (text += chunk));
    socket.on("end", () => resolve(text));
    socket.on("close", () => resolve(text));
    socket.on("error", reject);
    socket.write(raw);
  });
}

/** Starts runManager; resolves with the port once it listens. */
function run(
  runManager: RunManager,
  manager: Manager,
  signal: AbortSignal,
): { port: Promise<number>; done: Promise<void> } {
  let listening!: (port: number) => void;
  const port = new Promise<number>((resolve) => (listening = resolve));
  const done = runManager(manager, {
    hostname: "127.0.0.1",
    port: 0,
    signals: [],
    signal,
    onListen: ({ port }) => listening(port),
  });
  return { port, done };
}

for (const adapter of await adapters()) {
  describe(`runManager (${adapter.name} on ${runtime})`, () => {
    test("serves /healthz, /readyz and /metrics; the signal stops the manager and the server", async () => {
      const manager = new Manager();
      let reconciled = 0;
      manager.addController({
        name: "web",
        informers: [informer],
        reconcile: () => void reconciled++,
      });
      const stop = new AbortController();
      const { port, done } = run(adapter.runManager, manager, stop.signal);
      const base = `http://127.0.0.1:${await port}`;
      await manager.waitForSync();
      const health = await fetch(`${base}/healthz`);
      assert.equal(health.status, 200);
      assert.equal(await health.text(), "ok");
      const ready = await fetch(`${base}/readyz?verbose`);
      assert.equal(ready.status, 200);
      assert.match(await ready.text(), /\[\+\]informers-synced-web ok/);
      const metrics = await fetch(`${base}/metrics`);
      assert.equal(metrics.headers.get("content-type"), "text/plain; version=0.0.4; charset=utf-8");
      assert.match(
        await metrics.text(),
        /^workqueue_adds_total\{controller="web",name="web"\} 1$/m,
      );
      const head = await fetch(`${base}/metrics`, { method: "HEAD" });
      assert.equal(head.status, 200);
      await head.body?.cancel();
      const post = await fetch(`${base}/healthz`, { method: "POST", body: "x" });
      assert.equal(post.status, 405);
      await post.body?.cancel();
      stop.abort();
      await done;
      assert.equal(manager.health().state, "stopped");
      assert.equal(reconciled, 1);
      await assert.rejects(fetch(`${base}/healthz`), "the server is closed");
    });

    test("routes by the request path alone: a Host header cannot turn /metrics into /healthz", async () => {
      const manager = new Manager();
      manager.addController({ name: "web", informers: [informer], reconcile: () => {} });
      const stop = new AbortController();
      const { port, done } = run(adapter.runManager, manager, stop.signal);
      const listening = await port;
      await manager.waitForSync();
      try {
        for (const host of ["x/healthz?", "x/readyz#", "x/healthz/ping?a="]) {
          const answer = await rawRequest(
            listening,
            `GET /metrics HTTP/1.1\r\nHost: ${host}\r\nConnection: close\r\n\r\n`,
          );
          const status = Number(/^HTTP\/1\.[01] (\d{3})/.exec(answer)?.[1]);
          // The runtime may refuse a malformed Host (400); it must never answer as /healthz.
          if (status === 400) continue;
          assert.equal(status, 200, `Host: ${host}`);
          assert.match(answer, /^workqueue_adds_total\{controller="web"/m, `Host: ${host}`);
          assert.doesNotMatch(answer, /\r\n\r\n(?:[0-9a-f]+\r\n)?ok(?:\r\n|$)/, `Host: ${host}`);
        }
      } finally {
        stop.abort();
        await done;
      }
    });

    test("a manager that fails by itself makes runManager reject, after closing the server", async () => {
      const manager = new Manager({ onError: () => {} });
      manager.addController({
        name: "broken",
        informers: [informer],
        reconcile: () => {
          throw new Error("failed");
        },
        onError: () => {
          throw new Error("fatal: onError threw");
        },
      });
      const { port, done } = run(adapter.runManager, manager, new AbortController().signal);
      const base = `http://127.0.0.1:${await port}`;
      await assert.rejects(done, /fatal: onError threw/);
      await assert.rejects(fetch(`${base}/healthz`), "the server is closed");
    });

    test("options are checked before anything listens", async () => {
      const manager = new Manager();
      await assert.rejects(adapter.runManager(manager, { port: 70_000 }), {
        name: "RangeError",
        message: /port/,
      });
      await assert.rejects(adapter.runManager({} as never, { port: 0 }), /manager/);
    });
  });
}
