// The simulated cluster compresses as kube-apiserver does: gzip when the request allows it and
// the answer reaches 128 KiB; smaller answers and watch streams as they are.
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { pods } from "../../../../src/client/mod.ts";
import { SimulatedCluster } from "../../src/cluster/simulated_cluster.ts";
import { acceptsGzip, GZIP_THRESHOLD_BYTES } from "../../src/server/gzip.ts";

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

  test("small answers, watches and refusals of gzip go as they are", async () => {
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
