// Compressed streaming lists (kube-apiserver 1.37, WatchListCompression): a streaming list asked
// with gzip comes as many concatenated gzip members (one per flush). Each transport, against the
// simulated cluster served over HTTP on this runtime, reads it whole or asks for identity.
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { KubeClient, pods } from "../../src/client/mod.ts";
import { createInformer } from "../../src/cache/informer.ts";
import { createNodeFetch } from "../../src/adapters/node/fetch.ts";
import { createConfigLoader } from "../../src/config/mod.ts";
import { SimulatedCluster } from "@kinformer/simulator";
import { runtime, serveHandler } from "../_serve.ts";
import { runtimeHost, tempDir } from "../fixtures/kubeconfig/helpers.ts";
import { writeFile } from "node:fs/promises";
import { join } from "node:path";

const WATCH_LIST = "/api/v1/pods?watch=1&sendInitialEvents=true&resourceVersionMatch=NotOlderThan" +
  "&allowWatchBookmarks=true";

/** What a served cluster was asked and answered, per request. */
interface Seen {
  url: string;
  acceptEncoding: string | null;
  contentEncoding: string | null;
}

/** A simulated cluster with `count` pods, served on 127.0.0.1, recording encodings. */
async function served(count: number) {
  const cluster = new SimulatedCluster();
  cluster.seed(pods, count);
  const seen: Seen[] = [];
  const server = await serveHandler(async (request) => {
    const response = await cluster.fetch(request);
    seen.push({
      url: request.url,
      acceptEncoding: request.headers.get("accept-encoding"),
      contentEncoding: response.headers.get("content-encoding"),
    });
    return response;
  });
  return {
    cluster,
    seen,
    url: server.url,
    [Symbol.asyncDispose]: async () => {
      cluster.close();
      await server.close();
    },
  };
}

/** Reads a watch body's event lines until the initial-events-end bookmark or the body's end. */
async function readWatchList(response: Response) {
  const reader = response.body!.getReader();
  const decoder = new TextDecoder();
  let text = "";
  let ended = false;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) {
      ended = true;
      break;
    }
    text += decoder.decode(value, { stream: true });
    if (text.includes('"k8s.io/initial-events-end":"true"')) break;
  }
  await reader.cancel().catch(() => {});
  const lines = text.split("\n").filter((line) => line !== "");
  return { lines, ended, complete: text.includes("initial-events-end") };
}

/**
 * Syncs an informer with a streaming list through `client`, then adds one pod and waits for its
 * live event (a gzip member of its own, after the initial list's); the requests it made.
 */
async function syncStreaming(client: KubeClient, cluster: SimulatedCluster) {
  const informer = createInformer(client, { resource: pods, initialList: "stream" });
  informer.start();
  try {
    await informer.waitForSync({ signal: AbortSignal.timeout(20_000) });
    const size = informer.store.size;
    cluster.seed(pods, 1);
    for (let i = 0; i < 2000 && informer.store.size === size; i++) {
      await new Promise((resolve) => setTimeout(resolve, 5)); // the network is real: bounded poll
    }
    assert.equal(informer.store.size, size + 1, "the live event arrived");
    return { size, verbs: cluster.requests.map((r) => r.verb) };
  } finally {
    await informer.stop();
  }
}

describe(`compressed streaming lists (kube-apiserver 1.37) on ${runtime}`, () => {
  test("this runtime's fetch, asked for gzip, reads every member (Node, Bun) or only the first (Deno)", async () => {
    await using sim = await served(20);
    const response = await fetch(`${sim.url}${WATCH_LIST}`, {
      headers: { "accept-encoding": "gzip" },
    });
    assert.equal(response.headers.get("content-encoding"), "gzip");
    const read = await readWatchList(response);
    if (runtime === "deno") {
      // Deno 2.9: the first member (one event), then a clean end of the body.
      assert.equal(read.lines.length, 1);
      assert.equal(read.ended, true);
      assert.equal(read.complete, false);
    } else {
      assert.equal(read.lines.length, 21);
      assert.equal(read.complete, true);
    }
  });

  test("KubeClient asks for identity on an HTTP streaming list: the runtime's fetch reads it whole, no LIST", async () => {
    await using sim = await served(20);
    const client = new KubeClient({ server: sim.url });
    assert.deepEqual(await syncStreaming(client, sim.cluster), { size: 20, verbs: ["watch"] });
    const watchList = sim.seen.find((s) => s.url.includes("sendInitialEvents=true"))!;
    assert.equal(watchList.acceptEncoding, "identity");
    assert.equal(watchList.contentEncoding, null);
  });

  test("ordinary requests keep asking for gzip: only the streaming list says identity", async () => {
    await using sim = await served(2);
    const client = new KubeClient({ server: sim.url });
    const list = await client.list(pods);
    const watch = await client.watch(pods, { resourceVersion: list.metadata.resourceVersion });
    await watch.body?.cancel();
    assert.equal(sim.seen.length, 2);
    for (const s of sim.seen) assert.notEqual(s.acceptEncoding, "identity", s.url);
  });

  test("an accept-encoding of the client's headers is sent as given; watchListCompression must be a boolean", async () => {
    await using sim = await served(5);
    const client = new KubeClient({ server: sim.url, headers: { "accept-encoding": "gzip" } });
    const response = await client.watch(pods, {
      sendInitialEvents: true,
      resourceVersionMatch: "NotOlderThan",
      allowWatchBookmarks: true,
    });
    await response.body?.cancel();
    assert.equal(sim.seen.at(-1)!.acceptEncoding, "gzip");
    assert.throws(
      () => new KubeClient({ server: sim.url, watchListCompression: "yes" as never }),
      /options\.watchListCompression/,
    );
  });

  test("the Node transport (node:zlib) reads every member: with watchListCompression the list comes gzipped and whole", async () => {
    await using sim = await served(20);
    const transport = createNodeFetch({});
    try {
      const client = new KubeClient({
        server: sim.url,
        fetch: transport.fetch,
        watchListCompression: true,
      });
      assert.deepEqual(await syncStreaming(client, sim.cluster), { size: 20, verbs: ["watch"] });
      const watchList = sim.seen.find((s) => s.url.includes("sendInitialEvents=true"))!;
      assert.equal(watchList.acceptEncoding, "gzip");
      assert.equal(watchList.contentEncoding, "gzip");
    } finally {
      transport.close();
    }
  });

  test("with watchListCompression the runtime's own fetch is trusted with gzip (Node and Bun read it whole)", async (t) => {
    if (runtime === "deno") {
      t.diagnostic("Deno's fetch reads the first member only: its loader leaves identity on");
      return;
    }
    await using sim = await served(20);
    const client = new KubeClient({ server: sim.url, watchListCompression: true });
    assert.deepEqual(await syncStreaming(client, sim.cluster), { size: 20, verbs: ["watch"] });
    const watchList = sim.seen.find((s) => s.url.includes("sendInitialEvents=true"))!;
    assert.equal(watchList.contentEncoding, "gzip");
  });

  test("the loaders of Node and Bun trust their fetch with gzip; Deno's leaves identity", async () => {
    await using sim = await served(20);
    const { dir, cleanup } = await tempDir();
    const path = join(dir, "config");
    await writeFile(
      path,
      JSON.stringify({
        clusters: [{ name: "c", cluster: { server: sim.url } }],
        users: [{ name: "u", user: {} }],
        contexts: [{ name: "c", context: { cluster: "c", user: "u" } }],
        "current-context": "c",
      }),
    );
    const options = await createConfigLoader(await runtimeHost()).loadKubeconfig({ path });
    try {
      assert.equal(options.watchListCompression === true, runtime !== "deno");
      const client = new KubeClient(options);
      assert.deepEqual(await syncStreaming(client, sim.cluster), { size: 20, verbs: ["watch"] });
    } finally {
      options.close();
      await cleanup();
    }
  });

  test("a streaming list over a WebSocket is never compressed and streams whole", async () => {
    await using sim = await served(20);
    const client = new KubeClient({ server: sim.url, watchTransport: "websocket" });
    assert.deepEqual(await syncStreaming(client, sim.cluster), { size: 20, verbs: ["watch"] });
    assert.equal(sim.cluster.requests[0]!.webSocket, true);
  });
});
