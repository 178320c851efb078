/**
 * Pure functions of sharding: which shard a key belongs to, and which member should own each
 * shard. Every replica computes the same answers from the same inputs, with no coordination.
 * @module
 */
import { type NumberRange, requireNumber } from "../../util/validate.ts";
import { hash32 } from "./_hash.ts";

/** The shard counts allowed (internal: for the coordinator's option check too). */
export const SHARD_COUNT: NumberRange = Object.freeze({ min: 1, max: 4096, integer: true });

function checkShardCount(shards: number): void {
  requireNumber(shards, "shards", SHARD_COUNT);
}

/**
 * The shard of `key` among `shards` shards: a stable hash of the key, so every replica (and
 * every runtime) puts a key in the same shard.
 *
 * @example
 * ```ts
 * import { shardOf } from "@kinformer/kinformer/controller";
 * import assert from "node:assert/strict";
 * const shard = shardOf("default/web-1", 16);
 * assert.ok(shard >= 0 && shard < 16);
 * assert.equal(shardOf("default/web-1", 16), shard);
 * ```
 */
export function shardOf(key: string, shards: number): number {
  if (typeof key !== "string") throw new TypeError(`key must be a string, got ${typeof key}`);
  checkShardCount(shards);
  return hash32(key) % shards;
}

/**
 * Which member should own each shard: consistent (rendezvous) hashing with bounded loads.
 * Every (member, shard) pair gets a score; pairs are taken best score first, and a shard goes
 * to the first member that wants it and is under its quota. Quotas make the split fair (loads
 * differ by at most one: `floor` or `ceil` of shards / members); the scores keep it stable (a
 * member joining or leaving moves few shards beyond its own share). The result depends only on
 * the set of members, not on their order. Returns the owner of each shard, or `[]` when there
 * are no members.
 *
 * @example
 * ```ts
 * import { assignShards } from "@kinformer/kinformer/controller";
 * import assert from "node:assert/strict";
 * const owners = assignShards(["b", "a", "c"], 16);
 * assert.equal(owners.length, 16);
 * const load = (m: string) => owners.filter((o) => o === m).length;
 * assert.deepEqual(["a", "b", "c"].map(load).sort(), [5, 5, 6]);
 * assert.deepEqual(assignShards(["c", "b", "a"], 16), owners); // order does not matter
 * ```
 */
export function assignShards(members: readonly string[], shards: number): string[] {
  checkShardCount(shards);
  if (!Array.isArray(members) || members.some((m) => typeof m !== "string")) {
    throw new TypeError("members must be an array of strings");
  }
  const unique = [...new Set(members)].sort();
  if (unique.length === 0) return [];
  const pairs: { score: number; shard: number; member: number }[] = [];
  for (let m = 0; m < unique.length; m++) {
    for (let s = 0; s < shards; s++) {
      pairs.push({ score: hash32(`${unique[m]}\u0000${s}`), shard: s, member: m });
    }
  }
  pairs.sort((x, y) => y.score - x.score || x.member - y.member || x.shard - y.shard);
  const quota = Math.floor(shards / unique.length);
  let extra = shards % unique.length; // members that may take quota + 1
  const load = new Array<number>(unique.length).fill(0);
  const owners = new Array<string | undefined>(shards).fill(undefined);
  let assigned = 0;
  for (const p of pairs) {
    if (assigned === shards) break;
    if (owners[p.shard] !== undefined) continue;
    const l = load[p.member]!;
    if (l < quota || (l === quota && extra > 0)) {
      if (l === quota) extra--;
      load[p.member] = l + 1;
      owners[p.shard] = unique[p.member];
      assigned++;
    }
  }
  return owners as string[];
}
