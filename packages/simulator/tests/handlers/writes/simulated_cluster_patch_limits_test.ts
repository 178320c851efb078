// JSON patches are bounded as kube-apiserver bounds them (CVE-2019-1002100): at most 10,000
// operations (413), the bytes `copy` accumulates at most the request-size limit (422), and the
// patched object within the limits of a request body; on top of that, the simulator bounds the
// work of one patch by the sizes of the object and the request (no operation storm can make it
// quadratic).
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { configmaps } from "../../../../../src/client/resource.ts";
import { SimulatedCluster } from "../../../src/cluster/simulated_cluster.ts";
import { jsonPatch } from "../../../src/handlers/writes/json_patch.ts";
import { metered, WorkMeter } from "../../../src/handlers/writes/work_meter.ts";
import { KubeApiError } from "../../../../../src/client/errors.ts";

async function patch(
  c: SimulatedCluster,
  ops: unknown,
  query = "",
): Promise<{ status: number; json: Record<string, unknown> }> {
  const res = await c.fetch(
    new Request(`http://sim/api/v1/namespaces/default/configmaps/a${query}`, {
      method: "PATCH",
      headers: { "Content-Type": "application/json-patch+json" },
      body: typeof ops === "string" ? ops : JSON.stringify(ops),
    }),
  );
  return { status: res.status, json: await res.json() as Record<string, unknown> };
}

function cluster(options: { maxRequestBodyBytes?: number } = {}): SimulatedCluster {
  const c = new SimulatedCluster(options);
  c.create(configmaps, { metadata: { name: "a", namespace: "default" }, data: { k: "v" } });
  return c;
}

/** The operations of the amplification attack: each copies the whole document into itself. */
function doubling(n: number): unknown[] {
  const ops: unknown[] = [{ op: "add", path: "/data/x", value: "x".repeat(16) }];
  for (let i = 0; i < n; i++) ops.push({ op: "copy", from: "/data", path: `/data/c${i}` });
  return ops;
}

describe("JSON patch limits", () => {
  test("more than 10,000 operations is 413, as kube-apiserver answers", async () => {
    const c = cluster();
    const op = { op: "test", path: "/metadata/name", value: "a" };
    assert.equal((await patch(c, Array(10_000).fill(op))).status, 200);
    const res = await patch(c, Array(10_001).fill(op));
    assert.equal(res.status, 413);
    assert.equal(res.json.reason, "RequestEntityTooLarge");
    assert.equal(
      res.json.message,
      "Request entity too large: The allowed maximum operations in a JSON patch is 10000, got 10001",
    );
    c.close();
  });

  test("copies that double the document are refused once they add more than the body limit (422)", async () => {
    const c = cluster();
    const rv = c.resourceVersion;
    for (const dryRun of ["?dryRun=All", ""]) {
      const res = await patch(c, doubling(24), dryRun);
      assert.equal(res.status, 422, JSON.stringify(res.json).slice(0, 300));
      assert.equal(res.json.reason, "Invalid");
      assert.match(
        String(res.json.message),
        /^Unable to complete the copy, the accumulated size increase of copy is \d+, exceeding the limit 3145728$/,
      );
    }
    assert.equal(c.resourceVersion, rv);
    // A few copies within the limit are fine.
    assert.equal((await patch(c, doubling(3))).status, 200);
    c.close();
  });

  test("the copy limit is the request-size limit (maxRequestBodyBytes)", async () => {
    const c = cluster({ maxRequestBodyBytes: 4096 });
    const big = "y".repeat(1500);
    const ops = [
      { op: "add", path: "/data/big", value: big },
      { op: "copy", from: "/data/big", path: "/data/c1" },
      { op: "copy", from: "/data/big", path: "/data/c2" },
      { op: "copy", from: "/data/big", path: "/data/c3" },
    ];
    const res = await patch(c, ops);
    assert.equal(res.status, 422);
    assert.match(String(res.json.message), /exceeding the limit 4096$/);
    c.close();
  });

  test("a patched object larger than the request-size limit is 413", async () => {
    const c = cluster({ maxRequestBodyBytes: 4096 });
    const ops = [
      { op: "add", path: "/data/big", value: "z".repeat(2000) },
      { op: "copy", from: "/data/big", path: "/data/c1" },
    ];
    const res = await patch(c, ops);
    assert.equal(res.status, 413);
    assert.equal(res.json.message, "Request entity too large: limit is 4096");
    // The same for a merge patch that grows the object past it.
    c.patch(configmaps, { namespace: "default", name: "a" }, { data: { big: "q".repeat(3000) } });
    const merge = await c.fetch(
      new Request("http://sim/api/v1/namespaces/default/configmaps/a", {
        method: "PATCH",
        headers: { "Content-Type": "application/merge-patch+json" },
        body: JSON.stringify({ data: { more: "r".repeat(3000) } }),
      }),
    );
    assert.equal(merge.status, 413);
    c.close();
  });

  test("an operation storm on a long list is refused before it turns quadratic", () => {
    // 200,000 list items (about 0.4 MB), then 10,000 inserts at the front of the list: each
    // shifts every item, 2 * 10^9 moves in all without a bound.
    const items = Array.from({ length: 200_000 }, () => 0);
    const meter = new WorkMeter();
    const ops = Array.from({ length: 10_000 }, () => ({ op: "add", path: "/list/0", value: 1 }));
    const target = { metadata: { name: "a" }, list: items };
    assert.throws(
      () => metered(meter, () => jsonPatch(target, ops, { maxCopyBytes: 3 * 1024 * 1024 })),
      (e: unknown) =>
        e instanceof KubeApiError && e.code === 422 &&
        /more work than the simulator allows/.test(e.message),
    );
    const size = JSON.stringify(target).length + JSON.stringify(ops).length;
    assert.ok(meter.units <= 20 * size, `${meter.units} units for ${size} bytes`);
  });

  test("the same request stays cheap when it is reasonable", () => {
    const target = { metadata: { name: "a" }, list: Array.from({ length: 1000 }, (_, i) => i) };
    const ops = Array.from({ length: 50 }, (_, i) => ({ op: "add", path: `/list/${i}`, value: i }));
    const meter = new WorkMeter();
    const out = metered(meter, () => jsonPatch(target, ops, { maxCopyBytes: 1 << 20 })) as {
      list: number[];
    };
    assert.equal(out.list.length, 1050);
    assert.ok(meter.units < 100_000, String(meter.units));
  });
});
