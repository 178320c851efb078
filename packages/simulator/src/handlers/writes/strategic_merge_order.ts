/**
 * The order of a list a strategic merge patch merged, as kube-apiserver's `strategicpatch`
 * leaves it: the patch's items in the patch's (or `$setElementOrder`'s) order, the server's
 * other items among them where they were. Items are told apart by their merge key's value (by
 * themselves for lists of primitives), looked up in maps: linear time.
 * @module
 */
import { isRecord } from "@kinformer/kinformer/internal";
import { badArgType, goFormat, internal, noMergeKey } from "./_strategic_merge_errors.ts";
import { spend } from "./work_meter.ts";

type Json = unknown;
type JsonMap = Record<string, unknown>;

const PATCH = "$patch";
const SET_ORDER = "$setElementOrder";

/** A map key for a merge key's value, equal where Go's `==` on the values is. */
export function identity(value: Json): string {
  if (value === null || value === undefined) return "n";
  if (typeof value === "object") return `o${JSON.stringify(value)}`;
  return `${typeof value}:${String(value)}`;
}

/** The merge key value of an item (objects) or the item itself (primitives). */
export function itemIdentity(item: Json, mergeKey: string): string {
  return identity(mergeKey === "" ? item : (item as JsonMap)[mergeKey]);
}

/** Position of each item in `list` by identity (the first one wins, as Go's scan finds it). */
export function positions(list: readonly Json[], mergeKey: string): Map<string, number> {
  const at = new Map<string, number>();
  list.forEach((item, i) => {
    spend();
    const id = itemIdentity(item, mergeKey);
    if (!at.has(id)) at.set(id, i);
  });
  return at;
}

/**
 * The server's list as the API server's `$setElementOrder` handling sees it after merging: Go
 * deletes `$patch: delete` items in place and appends new items into the freed slots, and the
 * order is then taken from that array as it was left (compacted items, then appended ones,
 * then the values the compaction left behind). Orders of real patches depend on it.
 */
export function serverAfterMerge(
  original: readonly Json[],
  patch: readonly Json[],
  mergeKey: string,
): Json[] {
  const doomed = new Set<string>();
  for (const p of patch) {
    spend();
    if (isRecord(p) && p[PATCH] === "delete" && Object.hasOwn(p, mergeKey)) {
      doomed.add(identity(p[mergeKey]));
    }
    if (isRecord(p) && p[PATCH] === "replace") return [...original];
  }
  if (doomed.size === 0) return [...original];
  const idOf = (v: Json): string | undefined =>
    isRecord(v) && Object.hasOwn(v, mergeKey) ? identity(v[mergeKey]) : undefined;
  // Deletion order: directive by directive (patch order), each removing every match in turn.
  const byKey = new Map<string, number[]>();
  original.forEach((v, i) => {
    spend();
    const id = idOf(v);
    if (id !== undefined && doomed.has(id)) byKey.set(id, [...(byKey.get(id) ?? []), i]);
  });
  const order: number[] = [];
  const done = new Set<string>();
  for (const p of patch) {
    if (!(isRecord(p) && p[PATCH] === "delete" && Object.hasOwn(p, mergeKey))) continue;
    const id = identity(p[mergeKey]);
    if (done.has(id)) continue;
    done.add(id);
    order.push(...(byKey.get(id) ?? []));
  }
  const removed = new Set<number>();
  const view = [...original];
  let last = original.length - 1; // the last item not deleted yet
  for (let k = 0; k < order.length; k++) {
    spend();
    while (removed.has(last)) last--;
    // Deletion k frees slot L-1-k, which keeps the slice's last item of that moment.
    view[original.length - 1 - k] = original[last];
    removed.add(order[k]!);
  }
  const kept = original.filter((_, i) => !removed.has(i));
  const known = new Set(kept.map((v) => idOf(v)));
  let slot = kept.length;
  for (const p of patch) {
    spend();
    if (!isRecord(p) || Object.hasOwn(p, PATCH) || !Object.hasOwn(p, mergeKey)) continue;
    const id = identity(p[mergeKey]);
    if (known.has(id)) continue;
    known.add(id);
    if (slot < original.length) view[slot] = p;
    slot++;
  }
  kept.forEach((v, i) => (view[i] = v));
  return view;
}

/** The patch list's items (but deletions) must appear in `$setElementOrder` in the same order. */
export function checkOrder(
  patchList: readonly Json[],
  order: readonly Json[],
  mergeKey: string,
): void {
  if (order.length === 0 || patchList.length === 0) return;
  const items = mergeKey === ""
    ? patchList
    : patchList.filter((p) => !(isRecord(p) && p[PATCH] === "delete"));
  let i = 0;
  let j = 0;
  while (i < items.length && j < order.length) {
    spend();
    const item = items[i];
    if (isRecord(item) && Object.hasOwn(item, PATCH)) {
      i++;
      continue;
    }
    if (mergeKey !== "") {
      if (!isRecord(item) || !Object.hasOwn(item, mergeKey)) noMergeKey(item, mergeKey);
      const o = order[j];
      if (!isRecord(o) || !Object.hasOwn(o, mergeKey)) noMergeKey(o, mergeKey);
    }
    if (itemIdentity(item, mergeKey) === itemIdentity(order[j], mergeKey)) i++;
    j++;
  }
  if (i < items.length) {
    internal(
      `The order in patch list:\n${goFormat(patchList)}\n doesn't match ${SET_ORDER} list:\n${
        goFormat(order)
      }\n`,
    );
  }
}

/**
 * The final order of a merged list (Go's `normalizeElementOrder`): the patch's items in the
 * patch's order, the server-only items in the server's order, each server-only item placed
 * before the first patch item that comes after it on the server.
 */
export function normalizeOrder(
  listed: Json[],
  others: Json[],
  listedOrder: readonly Json[],
  serverOrder: readonly Json[],
  mergeKey: string,
): Json[] {
  if (mergeKey !== "") {
    for (const list of [listed, listedOrder, others, serverOrder]) {
      for (const item of list) {
        spend();
        if (!isRecord(item)) badArgType("map[string]interface {}", item);
        if (!Object.hasOwn(item, mergeKey)) noMergeKey(item, mergeKey);
      }
    }
  }
  const byPatch = positions(listedOrder, mergeKey);
  const byServer = positions(serverOrder, mergeKey);
  const sortBy = (items: Json[], index: Map<string, number>): Json[] => {
    spend(items.length);
    const deletes = items.filter((x) => isRecord(x) && x[PATCH] === "delete");
    const rest = items.filter((x) => !(isRecord(x) && x[PATCH] === "delete"));
    rest.sort((a, b) =>
      (index.get(itemIdentity(a, mergeKey)) ?? -1) - (index.get(itemIdentity(b, mergeKey)) ?? -1)
    );
    return [...rest, ...deletes];
  };
  const right = sortBy(listed, byPatch);
  const left = sortBy(others, byServer);
  const out: Json[] = [];
  let i = 0;
  let j = 0;
  while (i < left.length || j < right.length) {
    spend();
    if (i >= left.length) out.push(right[j++]);
    else if (j >= right.length) out.push(left[i++]);
    else {
      const l = byServer.get(itemIdentity(left[i], mergeKey));
      const r = byServer.get(itemIdentity(right[j], mergeKey));
      if (l !== undefined && r !== undefined && l < r) out.push(left[i++]);
      else out.push(right[j++]);
    }
  }
  return out;
}
