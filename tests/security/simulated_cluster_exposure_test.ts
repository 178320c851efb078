// The simulated cluster stays on this machine and keeps no secret it is sent (SECURITY.md "The
// simulated cluster is a test tool"): its serve adapters listen on 127.0.0.1 unless given a
// hostname, so the machine's other addresses refuse connections; its request log and the
// `logRequests` lines hold the method, path, query and what was asked, never a header or a body.
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import net from "node:net";
import { networkInterfaces } from "node:os";
import { configmaps, KubeClient } from "../../src/client/mod.ts";
import type { RecordedRequest } from "../../src/testing/mod.ts";
import { SimulatedCluster } from "../../src/testing/mod.ts";
import { adapters } from "../_serve.ts";

/** Whether a TCP connection to `host:port` is accepted. */
function accepts(host: string, port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect({ host, port });
    socket.once("connect", () => {
      socket.destroy();
      resolve(true);
    });
    socket.once("error", () => resolve(false));
  });
}

/** This machine's addresses other than loopback. */
function otherAddresses(): string[] {
  return Object.values(networkInterfaces()).flat()
    .filter((a) => a !== undefined && !a.internal && a.family === "IPv4")
    .map((a) => a!.address);
}

describe("the serve adapters stay on loopback", () => {
  test("without a hostname they listen on 127.0.0.1 only", async () => {
    for (const adapter of await adapters()) {
      const cluster = new SimulatedCluster();
      const server = await adapter.serve(cluster.fetch);
      try {
        const url = new URL(server.url);
        assert.equal(url.hostname, "127.0.0.1", adapter.name);
        assert.equal((await fetch(`${server.url}/version`)).status, 200);
        const port = Number(url.port);
        for (const address of otherAddresses()) {
          assert.equal(await accepts(address, port), false, `${adapter.name} on ${address}`);
        }
      } finally {
        cluster.close();
        await server.close();
      }
    }
  });
});

describe("the request log keeps no secret", () => {
  test("neither cluster.requests nor logRequests holds a header or a body", async () => {
    const logged: RecordedRequest[] = [];
    const printed: string[] = [];
    const secretToken = "sim-secret-token-1f2e3d";
    const secretData = "sim-secret-data-4c5b6a";
    const print = console.log;
    console.log = (...args: unknown[]) => void printed.push(args.map(String).join(" "));
    try {
      for (const logRequests of [(r: RecordedRequest) => void logged.push(r), true]) {
        const cluster = new SimulatedCluster({ token: secretToken, logRequests });
        const client = new KubeClient({
          server: "http://sim",
          token: secretToken,
          headers: { "x-extra": secretData },
          fetch: cluster.fetch,
        });
        await client.create(configmaps, {
          metadata: { namespace: "default", name: "c" },
          data: { password: secretData },
        });
        await client.list(configmaps, { namespace: "default" });
        const all = JSON.stringify([cluster.requests, logged, printed]);
        assert.ok(cluster.requests.length >= 2);
        for (const secret of [secretToken, secretData]) {
          assert.equal(all.includes(secret), false, `the log holds ${secret}`);
        }
        cluster.close();
      }
    } finally {
      console.log = print;
    }
    assert.ok(logged.length >= 2 && printed.length >= 2);
  });
});

describe("a watch nobody reads is bounded", () => {
  test("past maxWatchBufferBytes queued for it, the server ends the watch", async () => {
    const cluster = new SimulatedCluster({ maxWatchBufferBytes: 10_000 });
    const response = await cluster.fetch(
      new Request("http://sim/api/v1/namespaces/default/configmaps?watch=1&resourceVersion=1"),
    );
    assert.equal(response.status, 200);
    for (let i = 0; i < 50; i++) {
      cluster.create(configmaps, {
        metadata: { namespace: "default", name: `c${i}` },
        data: { blob: "x".repeat(1_000) },
      });
    }
    // Read now: what was queued before the close, then the end (not all 50 events).
    const text = await response.text();
    const events = text.split("\n").filter((line) => line !== "").length;
    assert.ok(events > 0 && events < 50, `${events} events`);
    assert.ok(text.length <= 10_000 + 2_000, "no more than the limit and the line that passed it");
    cluster.close();
  });
});
