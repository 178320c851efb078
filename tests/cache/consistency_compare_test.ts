// compareCacheWithList: the consistency check's decision, one rule per row.
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import type { KubeObject } from "../../src/client/types.ts";
import {
  type CacheComparison,
  compareCacheWithList,
  type ObjectVersion,
} from "../../src/cache/consistency_compare.ts";

/** `"uid@rv"` → an object version; `"@rv"` has no uid, `"uid@"` no resourceVersion. */
function v(text: string): ObjectVersion {
  const [uid, rv] = text.split("@");
  return { uid: uid || undefined, resourceVersion: rv || undefined };
}

function obj(key: string, text: string): KubeObject {
  const { uid, resourceVersion } = v(text);
  return {
    metadata: {
      namespace: "ns",
      name: key,
      ...(uid === undefined ? {} : { uid }),
      ...(resourceVersion === undefined ? {} : { resourceVersion }),
    },
  };
}

interface Row {
  name: string;
  listed: Record<string, string>;
  cache: Record<string, string>;
  /** Keys changed by the cache since the check began: key → RV of the change ("" = none). */
  changes?: Record<string, string>;
  rv?: string;
  serverBehind?: boolean;
  missing?: string[];
  extra?: string[];
  stale?: string[];
  compared: number;
  changedAfterList?: number;
}

const rows: Row[] = [
  {
    name: "identical: nothing drifts",
    listed: { a: "u1@5", b: "u2@7" },
    cache: { a: "u1@5", b: "u2@7" },
    compared: 2,
  },
  {
    name: "listed, not cached, not changed since: missing (a lost ADDED)",
    listed: { a: "u1@5" },
    cache: {},
    missing: ["ns/a"],
    compared: 1,
  },
  {
    name: "cached at or before L, not listed: extra (a lost DELETED)",
    listed: {},
    cache: { a: "u1@5", b: "u2@10" },
    extra: ["ns/a", "ns/b"],
    compared: 2,
  },
  {
    name: "an older resourceVersion in the cache: stale (a lost MODIFIED)",
    listed: { a: "u1@8" },
    cache: { a: "u1@5" },
    stale: ["ns/a"],
    compared: 1,
  },
  {
    name: "another uid at the same resourceVersion: stale (a corrupted event)",
    listed: { a: "u1@8" },
    cache: { a: "other@8" },
    stale: ["ns/a"],
    compared: 1,
  },
  {
    name: "a version the server never had, at or before L: stale",
    listed: { a: "u1@5" },
    cache: { a: "u1@9" },
    stale: ["ns/a"],
    compared: 1,
  },
  {
    name: "cached newer than L (changed after the list): not compared",
    listed: { a: "u1@5" },
    cache: { a: "u1@12" },
    changes: { a: "12" },
    changedAfterList: 1,
    compared: 0,
  },
  {
    name: "created after L: not compared, not extra",
    listed: {},
    cache: { a: "u1@11" },
    changes: { a: "11" },
    changedAfterList: 1,
    compared: 0,
  },
  {
    name: "re-created after L under another uid: not compared",
    listed: { a: "u1@5" },
    cache: { a: "u2@11" },
    changedAfterList: 1,
    compared: 0,
  },
  {
    name: "deleted by the cache after L: not compared, not missing",
    listed: { a: "u1@5" },
    cache: {},
    changes: { a: "11" },
    changedAfterList: 1,
    compared: 0,
  },
  {
    name: "deleted by the cache at or before L, still listed: missing (re-creation lost)",
    listed: { a: "u2@9" },
    cache: {},
    changes: { a: "8" },
    missing: ["ns/a"],
    compared: 1,
  },
  {
    name: "changed since the check began but at or before L: compared",
    listed: { a: "u1@9" },
    cache: { a: "u1@9" },
    changes: { a: "9" },
    compared: 1,
  },
  {
    name: "a deletion of unknown order since the check began: not compared",
    listed: { a: "u1@5" },
    cache: {},
    changes: { a: "" },
    changedAfterList: 1,
    compared: 0,
  },
  {
    name: "a cached resourceVersion that cannot be ordered, unchanged since: compared exactly",
    listed: { a: "u1@x5", b: "u2@x6" },
    cache: { a: "u1@x5", b: "u2@x4" },
    stale: ["ns/b"],
    compared: 2,
  },
  {
    name: "a cached resourceVersion that cannot be ordered, changed since: not compared",
    listed: { a: "u1@x5" },
    cache: { a: "u1@x7" },
    changes: { a: "x7" },
    changedAfterList: 1,
    compared: 0,
  },
  {
    name: "resource versions compare as integers, not as text",
    listed: { a: "u1@9" },
    cache: { a: "u1@10" },
    rv: "9",
    changedAfterList: 1,
    compared: 0,
  },
  {
    name: "server behind the cache (went back in time): unchanged keys compared exactly",
    listed: { a: "u1@3" },
    cache: { a: "u1@12", b: "u2@11", c: "u3@13" },
    changes: { c: "13" },
    rv: "4",
    serverBehind: true,
    stale: ["ns/a"],
    extra: ["ns/b"],
    changedAfterList: 1,
    compared: 2,
  },
];

describe("compareCacheWithList", () => {
  for (const row of rows) {
    test(row.name, () => {
      const listed = new Map(Object.entries(row.listed).map(([k, t]) => [`ns/${k}`, v(t)]));
      const cache = new Map(Object.entries(row.cache).map(([k, t]) => [`ns/${k}`, obj(k, t)]));
      const changes = new Map(
        Object.entries(row.changes ?? {}).map(([k, rv]) => [`ns/${k}`, rv || undefined]),
      );
      const r: CacheComparison = compareCacheWithList({
        listed,
        resourceVersion: row.rv ?? "10",
        cache,
        changes,
        serverBehind: row.serverBehind,
      });
      assert.deepEqual(r.missing.map((e) => e.key), row.missing ?? []);
      assert.deepEqual(r.extra.map((e) => e.key), row.extra ?? []);
      assert.deepEqual(r.stale.map((e) => e.key), row.stale ?? []);
      assert.equal(r.compared, row.compared);
      assert.equal(r.changedAfterList, row.changedAfterList ?? 0);
    });
  }

  test("entries carry what the server listed and what the cache holds, sorted by key", () => {
    const r = compareCacheWithList({
      listed: new Map([["ns/b", v("u2@8")], ["ns/a", v("u1@3")]]),
      resourceVersion: "10",
      cache: new Map([["ns/b", obj("b", "u2@4")], ["ns/c", obj("c", "u3@2")]]),
      changes: new Map(),
    });
    assert.deepEqual(r.missing, [{ key: "ns/a", server: v("u1@3") }]);
    assert.deepEqual(r.stale, [{ key: "ns/b", server: v("u2@8"), cache: v("u2@4") }]);
    assert.deepEqual(r.extra, [{ key: "ns/c", cache: v("u3@2") }]);
  });
});
