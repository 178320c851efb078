// The simulated cluster compresses as kube-apiserver 1.37 does: gzip when the request allows it
// and the answer reaches 128 KiB; a streaming list (WatchListCompression) always, one gzip member
// per flush (per event); smaller answers and ordinary watch streams as they are.
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { pods } from "../../../../src/client/mod.ts";
import { SimulatedCluster } from "../../src/cluster/simulated_cluster.ts";
import { acceptsGzip, GZIP_THRESHOLD_BYTES } from "../../src/server/gzip.ts";
import { gzipMembers } from "../../../../tests/_gzip_members.ts";

const WATCH_LIST = "/api/v1/pods?watch=1&sendInitialEvents=true&resourceVersionMatch=NotOlderThan" +
  "&allowWatchBookmarks=true";

/** The body's bytes until `until` holds for the members read so far. */
async function readMembers(response: Response, until: (members: string[]) => boolean) {
  const reader = response.body!.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    chunks.push(value);
    size += value.byteLength;
    const whole = new Uint8Array(size);
    let at = 0;
    for (const chunk of chunks) {
      whole.set(chunk, at);
      at += chunk.byteLength;
    }
    const members = gzipMembers(whole);
    if (until(members)) {
      await reader.cancel();
      return members;
    }
  }
  return gzipMembers(new Uint8Array(0));
}

const get = (cluster: SimulatedCluster, path: string, acceptEncoding?: string) =>
  cluster.fetch(
    new Request(`http://sim${path}`, {
      headers: acceptEncoding === undefined ? {} : { "accept-encoding": acceptEncoding },
    }),
  );

async function gunzip(response: Response): Promise<string> {
  const plain = response.body!.pipeThrough(
    new DecompressionStream("gzip") as unknown as TransformStream<Uint8Array, Uint8Array>,
  );
  return await new Response(plain).text();
}

describe("the simulated cluster's gzip", () => {
  test("a LIST over 128 KiB is gzipped when asked, and decodes to the same JSON", async () => {
    using cluster = new SimulatedCluster();
    cluster.seed(pods, 1000);
    const plain = await get(cluster, "/api/v1/pods");
    assert.equal(plain.headers.get("content-encoding"), null);
    const text = await plain.text();
    assert.ok(new TextEncoder().encode(text).byteLength > GZIP_THRESHOLD_BYTES);

    const zipped = await get(cluster, "/api/v1/pods", "gzip, deflate, br");
    assert.equal(zipped.headers.get("content-encoding"), "gzip");
    assert.equal(zipped.headers.get("content-length"), null);
    const decoded = await gunzip(zipped);
    const strip = (json: string) => {
      const list = JSON.parse(json) as { items: unknown[] };
      return list.items.length;
    };
    assert.equal(strip(decoded), 1000);
    assert.equal(decoded.length, text.length);
  });

  test("small answers, ordinary watches and refusals of gzip go as they are", async () => {
    using cluster = new SimulatedCluster();
    cluster.seed(pods, 3);
    const small = await get(cluster, "/api/v1/pods", "gzip");
    assert.equal(small.headers.get("content-encoding"), null);
    assert.equal((JSON.parse(await small.text()) as { items: unknown[] }).items.length, 3);

    cluster.seed(pods, 1000);
    const refused = await get(cluster, "/api/v1/pods", "gzip;q=0, identity");
    assert.equal(refused.headers.get("content-encoding"), null);
    await refused.body?.cancel();

    const watch = await get(cluster, "/api/v1/pods?watch=1&resourceVersion=0", "gzip");
    assert.equal(watch.headers.get("content-encoding"), null);
    await watch.body?.cancel();
  });

  test("a streaming list asked with gzip comes as one gzip member per event, live events too (1.37)", async () => {
    using cluster = new SimulatedCluster();
    cluster.seed(pods, 3);
    const response = await get(cluster, WATCH_LIST, "gzip");
    assert.equal(response.headers.get("content-encoding"), "gzip");
    assert.equal(response.headers.get("content-length"), null);
    assert.match(response.headers.get("vary") ?? "", /Accept-Encoding/);
    let live = false;
    const members = await readMembers(response, (members) => {
      if (!live && members.some((m) => m.includes("initial-events-end"))) {
        live = true;
        cluster.seed(pods, 1); // one live ADDED after the initial list
      }
      return members.length === 5;
    });
    // Each member is one whole event line: 3 ADDED, the end bookmark, then the live ADDED.
    assert.deepEqual(
      members.map((m) => (JSON.parse(m) as { type: string }).type),
      ["ADDED", "ADDED", "ADDED", "BOOKMARK", "ADDED"],
    );
    for (const member of members) {
      assert.ok(member.endsWith("\n") && !member.slice(0, -1).includes("\n"));
    }
  });

  test("streaming lists stay uncompressed without gzip asked, or with watchListCompression: false", async () => {
    using on = new SimulatedCluster();
    const identity = await get(on, WATCH_LIST, "identity");
    assert.equal(identity.headers.get("content-encoding"), null);
    await identity.body?.cancel();
    const none = await get(on, WATCH_LIST);
    assert.equal(none.headers.get("content-encoding"), null);
    await none.body?.cancel();

    using off = new SimulatedCluster({ watchListCompression: false });
    const plain = await get(off, WATCH_LIST, "gzip");
    assert.equal(plain.headers.get("content-encoding"), null);
    await plain.body?.cancel();
    assert.throws(
      () => new SimulatedCluster({ watchListCompression: "yes" as never }),
      /options\.watchListCompression/,
    );
  });

  test("acceptsGzip reads Accept-Encoding as RFC 9110 does", () => {
    assert.equal(acceptsGzip(null), false);
    assert.equal(acceptsGzip("identity"), false);
    assert.equal(acceptsGzip("gzip"), true);
    assert.equal(acceptsGzip("br, GZIP;q=0.5"), true);
    assert.equal(acceptsGzip("gzip;q=0"), false);
    assert.equal(acceptsGzip("*"), true);
    assert.equal(acceptsGzip("x-gzip"), true);
  });
});
