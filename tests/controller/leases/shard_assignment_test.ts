import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { assignShards, shardOf } from "../../../src/controller/mod.ts";

function loads(owners: readonly string[], members: readonly string[]): number[] {
  return members.map((m) => owners.filter((o) => o === m).length);
}

function pods(n: number, prefix = "pod"): string[] {
  return Array.from({ length: n }, (_, i) => `${prefix}-${i}`);
}

describe("shardOf", () => {
  test("stable, in range, and spread evenly", () => {
    const counts = new Array<number>(16).fill(0);
    for (let i = 0; i < 16_000; i++) {
      const s = shardOf(`ns-${i % 37}/obj-${i}`, 16);
      assert.ok(Number.isInteger(s) && s >= 0 && s < 16);
      counts[s]!++;
    }
    for (const c of counts) assert.ok(c > 800 && c < 1200, `shard load ${c} of 1000 expected`);
    assert.equal(shardOf("default/web", 16), shardOf("default/web", 16));
    assert.equal(shardOf("anything", 1), 0);
  });

  test("bad input is refused", () => {
    assert.throws(() => shardOf("k", 0), RangeError);
    assert.throws(() => shardOf("k", 1.5), RangeError);
    assert.throws(() => shardOf(1 as unknown as string, 4), TypeError);
  });
});

describe("assignShards", () => {
  test("fair: every shard owned, loads differ by at most one", () => {
    for (const shards of [1, 2, 7, 16, 64, 100]) {
      for (let m = 1; m <= 9; m++) {
        const members = pods(m, `r${shards}`);
        const owners = assignShards(members, shards);
        assert.equal(owners.length, shards);
        assert.ok(owners.every((o) => members.includes(o)));
        const l = loads(owners, members);
        assert.ok(Math.max(...l) - Math.min(...l) <= 1, `${shards}/${m}: ${l}`);
      }
    }
  });

  test("depends on the set of members only", () => {
    const members = ["c", "a", "b", "d"];
    const owners = assignShards(members, 32);
    assert.deepEqual(assignShards([...members].reverse(), 32), owners);
    assert.deepEqual(assignShards([...members, "a", "c"], 32), owners);
    assert.deepEqual(assignShards([], 8), []);
  });

  test("a joining member takes about a fair share; others mostly keep theirs", () => {
    for (const shards of [16, 64]) {
      let ratio = 0;
      let trials = 0;
      for (let m = 1; m <= 6; m++) {
        for (let t = 0; t < 10; t++) {
          const members = pods(m, `t${t}`);
          const before = assignShards(members, shards);
          const after = assignShards([...members, `new-${t}`], shards);
          const moved = before.filter((o, i) => o !== after[i]).length;
          const share = Math.ceil(shards / (m + 1));
          assert.ok(after.filter((o) => o === `new-${t}`).length >= Math.floor(shards / (m + 1)));
          ratio += moved / share;
          trials++;
        }
      }
      // Moving exactly the newcomer's share is the minimum; bounded loads cascade a little.
      assert.ok(ratio / trials <= 1.5, `mean movement ${(ratio / trials).toFixed(2)}x the share`);
    }
  });

  test("a leaving member's shards are spread over the rest", () => {
    const members = pods(4);
    const before = assignShards(members, 16);
    const after = assignShards(members.slice(1), 16);
    for (let s = 0; s < 16; s++) {
      if (before[s] === "pod-0") assert.notEqual(after[s], "pod-0");
    }
    const l = loads(after, members.slice(1));
    assert.ok(Math.max(...l) - Math.min(...l) <= 1);
  });

  test("bad input is refused", () => {
    assert.throws(() => assignShards(["a"], 0), RangeError);
    assert.throws(() => assignShards(["a", 1 as unknown as string], 4), TypeError);
  });
});
