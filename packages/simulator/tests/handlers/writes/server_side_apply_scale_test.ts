// Server-side apply and managed fields take time near-linear in the fields involved: applying
// thousands of fields over an object whose other manager owns thousands more costs a small
// multiple of a plain replace of the same object, in work counted and in time measured in this
// run (a ratio, never a wall-clock bound).
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { configmaps } from "../../../../../src/client/resource.ts";
import type { KubeObject } from "../../../../../src/client/types.ts";
import { SimulatedCluster } from "../../../src/cluster/simulated_cluster.ts";
import { applyConfiguration } from "../../../src/handlers/writes/server_side_apply.ts";
import {
  formatManagedFields,
  parseManagedFields,
} from "../../../src/handlers/writes/managed_fields.ts";
import { updateTracker } from "../../../src/handlers/writes/write_params.ts";
import { metered, WorkMeter } from "../../../src/handlers/writes/work_meter.ts";

const FIELDS = 8_000;
const PATH = "/api/v1/namespaces/default/configmaps/big";

function data(prefix: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (let i = 0; i < FIELDS; i++) out[`${prefix}-${i}`] = `value-${i}`;
  return out;
}

function config(prefix: string): Record<string, unknown> {
  return {
    apiVersion: "v1",
    kind: "ConfigMap",
    metadata: { name: "big", namespace: "default" },
    data: data(prefix),
  };
}

async function send(
  c: SimulatedCluster,
  method: string,
  path: string,
  body: unknown,
  contentType: string,
): Promise<number> {
  const res = await c.fetch(
    new Request(`http://sim${path}`, {
      method,
      headers: { "Content-Type": contentType },
      body: JSON.stringify(body),
    }),
  );
  await res.body?.cancel();
  return res.status;
}

/** The object after manager "a" applied its fields and "b" wrote its own by an update. */
async function setup(): Promise<{ c: SimulatedCluster; stored: KubeObject }> {
  const c = new SimulatedCluster();
  assert.equal(
    await send(c, "PATCH", `${PATH}?fieldManager=a`, config("a"), "application/apply-patch+yaml"),
    201,
  );
  return { c, stored: c.get(configmaps, { namespace: "default", name: "big" })! };
}

describe("server-side apply at scale", () => {
  test(`applying ${FIELDS} fields over ${FIELDS} of another manager costs about what a replace does (time)`, async () => {
    const { c, stored } = await setup();
    const replaceBody = {
      ...stored,
      data: { ...(stored.data as Record<string, string>), ...data("b") },
    };
    const times = { apply: Infinity, replace: Infinity };
    for (let round = 0; round < 3; round++) {
      let t0 = performance.now();
      assert.equal(
        await send(c, "PUT", `${PATH}?fieldManager=b&dryRun=All`, replaceBody, "application/json"),
        200,
      );
      times.replace = Math.min(times.replace, performance.now() - t0);
      t0 = performance.now();
      assert.equal(
        await send(
          c,
          "PATCH",
          `${PATH}?fieldManager=b&dryRun=All`,
          config("b"),
          "application/apply-patch+yaml",
        ),
        200,
      );
      times.apply = Math.min(times.apply, performance.now() - t0);
    }
    const ratio = times.apply / times.replace;
    console.log(
      `apply ${times.apply.toFixed(1)} ms, replace ${times.replace.toFixed(1)} ms, ratio ${
        ratio.toFixed(2)
      }`,
    );
    assert.ok(ratio < 10, `apply took ${ratio.toFixed(1)}x a replace`);
    c.close();
  });

  test("the same in work units: the apply's work is a small multiple of the replace's", async () => {
    const { c, stored } = await setup();
    const writer = (operation: "Apply" | "Update") => ({
      manager: "b",
      operation,
      subresource: undefined,
      apiVersion: "v1",
      time: "2026-01-01T00:00:00Z",
    });
    const replaced = {
      ...stored,
      data: { ...(stored.data as Record<string, string>), ...data("b") },
    } as KubeObject;
    const replace = new WorkMeter();
    metered(replace, () => updateTracker(writer("Update"), "all")(stored, replaced));
    const apply = new WorkMeter();
    const result = metered(apply, () => {
      const r = applyConfiguration({
        live: stored as unknown as Record<string, unknown>,
        config: config("b"),
        entries: parseManagedFields(stored.metadata.managedFields),
        writer: writer("Apply"),
        force: false,
        scope: "all",
      });
      return formatManagedFields(r.entries);
    });
    assert.deepEqual(result.map((e) => e.manager), ["a", "b"]);
    console.log(`work units: apply ${apply.units}, replace ${replace.units}`);
    assert.ok(replace.units > FIELDS, `replace: ${replace.units}`);
    assert.ok(apply.units > FIELDS, `apply: ${apply.units}`);
    assert.ok(
      apply.units < 4 * replace.units,
      `apply ${apply.units} units, replace ${replace.units} units`,
    );
    c.close();
  });
});
