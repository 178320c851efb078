// Every write path of the simulated cluster does work linear in the sizes of the object and the
// request: random sequences of JSON patches (hostile ones included), merge patches, strategic
// merge patches, replaces and server-side applies never spend more than a fixed multiple of
// those sizes, counted in work units (not time).
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import fc from "fast-check";
import { KubeApiError } from "../../../../../src/client/errors.ts";
import { SERVED_RESOURCES } from "../../../src/model/registry/served_resources.ts";
import { jsonPatch } from "../../../src/handlers/writes/json_patch.ts";
import { mergePatch } from "../../../src/handlers/writes/merge_patch.ts";
import { strategicMergePatch } from "../../../src/handlers/writes/strategic_merge_patch.ts";
import { schemaOf } from "../../../src/model/defaults/patch_strategies.ts";
import { applyConfiguration } from "../../../src/handlers/writes/server_side_apply.ts";
import {
  formatManagedFields,
  parseManagedFields,
} from "../../../src/handlers/writes/managed_fields.ts";
import { updateTracker } from "../../../src/handlers/writes/write_params.ts";
import { metered, WorkMeter } from "../../../src/handlers/writes/work_meter.ts";
import type { KubeObject } from "../../../../../src/client/types.ts";

/** Work allowed per byte of object, request and result, and the constant allowance. */
const PER_BYTE = 32;
const BASE = 2_000;
const MAX_COPY = 1 << 20;

const POD = schemaOf(SERVED_RESOURCES.find((r) => r.desc.kind === "Pod")!);

type Obj = Record<string, unknown>;

const key = fc.constantFrom("a", "b", "c", "name", "value", "image", "env", "list");
const scalar = fc.oneof(fc.string({ maxLength: 4 }), fc.integer({ min: 0, max: 9 }), fc.boolean());
const json: fc.Arbitrary<unknown> = fc.letrec((tie) => ({
  value: fc.oneof(
    { depthSize: "small" },
    scalar,
    fc.array(tie("value"), { maxLength: 4 }),
    fc.dictionary(key, tie("value"), { maxKeys: 4 }),
  ),
})).value;

/** A pod-shaped object: lists that merge by key, lists that do not, maps. */
const podLike = fc.record({
  metadata: fc.record({
    name: fc.constant("p"),
    labels: fc.dictionary(key, fc.string({ maxLength: 3 }), { maxKeys: 4 }),
    finalizers: fc.uniqueArray(fc.constantFrom("x", "y", "z", "w"), { maxLength: 4 }),
  }),
  spec: fc.record({
    containers: fc.uniqueArray(
      fc.record({
        name: fc.constantFrom("a", "b", "c", "d"),
        image: fc.string({ maxLength: 3 }),
        env: fc.uniqueArray(
          fc.record({ name: fc.constantFrom("A", "B", "C"), value: fc.string({ maxLength: 2 }) }),
          {
            selector: (e) => e.name,
            maxLength: 3,
          },
        ),
      }),
      { selector: (c) => c.name, maxLength: 4 },
    ),
    list: fc.array(fc.integer({ min: 0, max: 9 }), { maxLength: 40 }),
    extra: json,
  }),
});

const pointer = fc.array(
  fc.oneof(key, fc.constantFrom("0", "1", "-", "containers", "spec", "metadata")),
  {
    maxLength: 4,
  },
).map((t) => (t.length === 0 ? "" : "/" + t.join("/")));

const jsonPatchOp = fc.oneof(
  fc.record({ op: fc.constantFrom("add", "replace", "test"), path: pointer, value: json }),
  fc.record({ op: fc.constant("remove"), path: pointer }),
  fc.record({ op: fc.constantFrom("move", "copy"), from: pointer, path: pointer }),
  // Hostile: copy the whole document into itself; insert at the head of a long list.
  fc.constant({ op: "copy", from: "", path: "/spec/extra" }),
  fc.constant({ op: "add", path: "/spec/list/0", value: 1 }),
  fc.constant({ op: "test", path: "", value: {} }),
);

/** Any write a client may send, relative to nothing in particular: often invalid, which is fine. */
const write = fc.oneof(
  fc.record({ kind: fc.constant("json"), body: fc.array(jsonPatchOp, { maxLength: 60 }) }),
  fc.record({
    kind: fc.constant("merge"),
    body: fc.dictionary(key, fc.oneof(json, fc.constant(null)), { maxKeys: 4 }),
  }),
  fc.record({
    kind: fc.constant("strategic"),
    body: fc.oneof(podLike.map((p) => p as unknown), json),
  }),
  fc.record({ kind: fc.constant("replace"), body: podLike }),
  fc.record({
    kind: fc.constant("apply"),
    body: podLike,
    manager: fc.constantFrom("m1", "m2", "m3"),
    force: fc.boolean(),
  }),
);

type Write = { kind: string; body: unknown; manager?: string; force?: boolean };

/** Runs one write on `current`; the next object (unchanged when the write is refused). */
function run(current: Obj, w: Write): Obj {
  switch (w.kind) {
    case "json":
      return jsonPatch(current, w.body, { maxCopyBytes: MAX_COPY }) as Obj;
    case "merge":
      return mergePatch(current, w.body) as Obj;
    case "strategic":
      return strategicMergePatch(current, w.body, POD) as Obj;
    case "replace": {
      const after = { ...(w.body as Obj) } as KubeObject;
      const writer = {
        manager: "r",
        operation: "Update" as const,
        subresource: undefined,
        apiVersion: "v1",
        time: "t",
      };
      const managed = updateTracker(writer, "all")(current as KubeObject, after);
      return { ...after, metadata: { ...after.metadata, managedFields: managed } };
    }
    default: {
      const writer = {
        manager: w.manager!,
        operation: "Apply" as const,
        subresource: undefined,
        apiVersion: "v1",
        time: "t",
      };
      const result = applyConfiguration({
        live: current,
        config: w.body as Obj,
        entries: parseManagedFields((current.metadata as Obj | undefined)?.managedFields),
        writer,
        force: w.force!,
        scope: "all",
      });
      const object = result.object;
      (object.metadata as Obj).managedFields = formatManagedFields(result.entries);
      return object;
    }
  }
}

describe("the work of a write is linear in the sizes of the object and the request", () => {
  test("property: random sequences of patches, replaces and applies stay within the budget", () => {
    fc.assert(
      fc.property(podLike, fc.array(write, { minLength: 1, maxLength: 12 }), (start, writes) => {
        let current = structuredClone(start) as Obj;
        for (const w of writes) {
          const meter = new WorkMeter();
          const before = JSON.stringify(current).length;
          const request = JSON.stringify(w.body ?? null).length;
          let next = current;
          try {
            next = metered(meter, () => run(current, w as Write));
          } catch (error) {
            if (!(error instanceof KubeApiError)) throw error;
          }
          const after = JSON.stringify(next ?? null).length;
          const budget = PER_BYTE * (before + request + after) + BASE;
          assert.ok(
            meter.units <= budget,
            `${w.kind}: ${meter.units} units > ${budget} (object ${before} B, request ${request} B, result ${after} B)`,
          );
          // The store keeps only objects with metadata (anything else is a 400 there).
          const meta = (next as Obj | null)?.metadata;
          if (typeof meta === "object" && meta !== null && !Array.isArray(meta)) current = next;
        }
      }),
      { numRuns: 150 },
    );
  });

  test("the hostile JSON patches of the issue cost little before they are refused", () => {
    // 24 doublings of the document (about 900 bytes) and 10,000 inserts at the head of a list.
    const doc = {
      metadata: { name: "a" },
      data: { x: "x".repeat(16) },
      list: Array(100_000).fill(0),
    };
    const doubling = Array.from(
      { length: 24 },
      (_, i) => ({ op: "copy", from: "/data", path: `/data/c${i}` }),
    );
    const storm = Array.from({ length: 10_000 }, () => ({ op: "add", path: "/list/0", value: 1 }));
    for (const ops of [doubling, storm]) {
      const meter = new WorkMeter();
      assert.throws(
        () => metered(meter, () => jsonPatch(doc, ops, { maxCopyBytes: 3 * 1024 * 1024 })),
        (e: unknown) => e instanceof KubeApiError && e.code === 422,
      );
      const size = JSON.stringify(doc).length + JSON.stringify(ops).length + 3 * 1024 * 1024;
      assert.ok(meter.units <= PER_BYTE * size, `${meter.units} units for ${size} bytes`);
    }
  });
});
