/**
 * Strategic merge patch (`application/strategic-merge-patch+json`) for the simulated cluster's
 * built-in kinds, with the semantics of `k8s.io/apimachinery`'s `strategicpatch` as
 * kube-apiserver runs it: lists with a merge strategy merge (objects by their merge key,
 * primitives as a set, new items first, then the server's in their order), other lists are
 * replaced; `$patch` (`replace`, `delete`; `merge` is refused as by the API server),
 * `$setElementOrder/<list>`, `$deleteFromPrimitiveList/<list>` and `$retainKeys`; `null` removes
 * a field. Errors carry the API server's words and codes (400, 422, or 500 for those it does
 * not map).
 *
 * Patches are hostile input: keys are read and written as own data properties (a `__proto__`
 * key is data), and the work is linear in the sizes of the object and the patch (merge keys are
 * looked up in maps, not scanned).
 * @module
 */
import { isRecord } from "@kinformer/kinformer/internal";
import { getOwn, setOwn } from "../../core/own_properties.ts";
import {
  badArgType,
  badPatchType,
  badRequest,
  goFormat,
  goType,
  internal,
  noMergeKey,
  unprocessable,
} from "./_strategic_merge_errors.ts";
import {
  checkOrder,
  identity,
  itemIdentity,
  normalizeOrder,
  positions,
  serverAfterMerge,
} from "./strategic_merge_order.ts";
import type { FieldStrategy, Schema } from "../../model/defaults/patch_strategies.ts";
import { spend } from "./work_meter.ts";
import { structuredCloneJson } from "../../store/object_store.ts";

type Json = unknown;
type JsonMap = Record<string, unknown>;

const PATCH = "$patch";
const RETAIN_KEYS = "$retainKeys";
const SET_ORDER = "$setElementOrder";
const DELETE_FROM = "$deleteFromPrimitiveList";

/** Removes every map holding `$patch`, recursively (Go's `removeDirectives`); false: drop it. */
function removeDirectives(value: Json): [Json, boolean] {
  spend();
  if (Array.isArray(value)) {
    const out: Json[] = [];
    for (const v of value) {
      const [kept, keep] = removeDirectives(v);
      if (keep) out.push(kept);
    }
    return [out, true];
  }
  if (isRecord(value)) {
    if (Object.hasOwn(value, PATCH)) return [undefined, false];
    for (const k of Object.keys(value)) {
      const [kept, keep] = removeDirectives(value[k]);
      if (keep) setOwn(value, k, kept);
      else delete value[k];
    }
  }
  return [value, true];
}

/** Drops `null` members of maps, recursively (Go's `discardNullValuesFromPatch`). */
function discardNulls(value: Json): void {
  spend();
  if (Array.isArray(value)) {
    for (const v of value) discardNulls(v);
  } else if (isRecord(value)) {
    for (const k of Object.keys(value)) {
      if (value[k] === null) delete value[k];
      else discardNulls(value[k]);
    }
  }
}

/** The list field a `$deleteFromPrimitiveList/<list>` or `$setElementOrder/<list>` key names. */
function directiveField(key: string, prefix: string, error: string): string {
  const slash = key.indexOf("/");
  if (slash < 0 || key.slice(0, slash) !== prefix) badRequest(error);
  return key.slice(slash + 1);
}

function fieldOf(schema: Schema | undefined, key: string): FieldStrategy {
  const f = schema === undefined ? undefined : getOwn(schema as JsonMap, key);
  return (f ?? {}) as FieldStrategy;
}

/** JSON kind of a value, as far as the merge tells values apart. */
function kindOf(value: Json): "map" | "list" | "scalar" {
  return Array.isArray(value) ? "list" : isRecord(value) ? "map" : "scalar";
}

/**
 * The element type of the lists (all must agree, no list of lists), as Go's `sliceElementType`:
 * undefined when both are empty.
 */
function elementKind(original: readonly Json[], patch: readonly Json[]): string {
  let type: string | undefined;
  for (const list of [original, patch]) {
    for (const v of list) {
      spend();
      const t = goType(v);
      if (type === undefined) {
        type = t;
        if (t === "[]interface {}") unprocessable(); // lists of lists are not supported
      } else if (t !== type) {
        internal(`list element types are not identical: ${goFormat([original, patch])}`);
      }
    }
  }
  if (type === undefined || type === "<nil>") {
    internal("no elements in any of the given slices");
  }
  return type;
}

/** Merges `patch` into `original` (both owned by the caller; `original` is changed). */
function mergeMap(
  original: JsonMap | undefined,
  patch: JsonMap,
  schema: Schema | undefined,
): JsonMap {
  spend();
  if (Object.hasOwn(patch, PATCH)) {
    const directive = patch[PATCH];
    if (directive === "replace") {
      delete patch[PATCH];
      return patch;
    }
    if (directive === "delete") return {};
    badPatchType(directive, patch);
  }
  const out = original ?? {};
  retainKeys(out, patch);
  setElementOrders(out, patch, schema);
  for (const k of Object.keys(patch)) {
    spend();
    let key = k;
    let deleteList = false;
    if (k.startsWith(DELETE_FROM)) {
      key = directiveField(k, DELETE_FROM, "invalid patch format of primitive list");
      deleteList = true;
    }
    const value = patch[k];
    if (value === null) {
      delete out[key];
      continue;
    }
    const current = getOwn(out, key);
    if (!Object.hasOwn(out, key) || kindOf(current) !== kindOf(value)) {
      if (deleteList) continue;
      discardNulls(value);
      const [kept, keep] = removeDirectives(value);
      if (keep) setOwn(out, key, kept);
      else delete out[key];
      continue;
    }
    const field = fieldOf(schema, key);
    if (isRecord(value)) {
      setOwn(out, key, field.replace ? value : mergeMap(current as JsonMap, value, field.fields));
    } else if (Array.isArray(value)) {
      setOwn(out, key, mergeList(current as Json[], value, field, deleteList));
    } else {
      setOwn(out, key, value);
    }
  }
  return out;
}

/** `$retainKeys`: only the listed keys of `original` stay; the patch may set only those. */
function retainKeys(original: JsonMap, patch: JsonMap): void {
  if (!Object.hasOwn(patch, RETAIN_KEYS)) return;
  const list = patch[RETAIN_KEYS];
  delete patch[RETAIN_KEYS];
  if (!Array.isArray(list)) badRequest("invalid patch format of retainKeys");
  const keep = new Set(list.map(identity));
  for (const [k, v] of Object.entries(patch)) {
    spend();
    if (v === null || k.startsWith(DELETE_FROM) || k.startsWith(SET_ORDER)) continue;
    if (!keep.has(identity(k))) badRequest("invalid patch format of retainKeys");
  }
  for (const k of Object.keys(original)) {
    spend();
    if (!keep.has(identity(k))) delete original[k];
  }
}

/**
 * `$setElementOrder/<list>`: merges the list (if patched) and puts its items in the given order,
 * the server's other items among them where they were.
 */
function setElementOrders(original: JsonMap, patch: JsonMap, schema: Schema | undefined): void {
  for (const k of Object.keys(patch)) {
    if (!k.startsWith(SET_ORDER)) continue;
    const order = patch[k];
    delete patch[k];
    if (!Array.isArray(order)) badArgType("[]interface {}", order);
    const key = directiveField(k, SET_ORDER, "invalid patch format of setElementOrder list");
    const field = fieldOf(schema, key);
    const mergeKey = field.mergeKey ?? "";
    const hasOriginal = Object.hasOwn(original, key);
    const hasPatch = Object.hasOwn(patch, key);
    const originalList = hasOriginal ? original[key] : [];
    const patchList = hasPatch ? patch[key] : [];
    if (!Array.isArray(originalList)) badArgType("[]interface {}", originalList);
    if (!Array.isArray(patchList)) badArgType("[]interface {}", patchList);
    checkOrder(patchList, order, mergeKey);
    let merged: Json[];
    if (!hasOriginal && !hasPatch) continue;
    if (hasOriginal && hasPatch) merged = mergeList(originalList, patchList, field, false);
    else if (hasPatch) merged = removeDirectives(patchList)[0] as Json[];
    else merged = originalList;
    elementKind(originalList, patchList);
    const inOrder = positions(order, mergeKey);
    const listed: Json[] = [];
    const others: Json[] = [];
    for (const item of merged) {
      spend();
      if (mergeKey !== "" && (!isRecord(item) || !Object.hasOwn(item, mergeKey))) {
        if (!isRecord(item)) badArgType("map[string]interface {}", item);
        noMergeKey(item, mergeKey);
      }
      (inOrder.has(itemIdentity(item, mergeKey)) ? listed : others).push(item);
    }
    const server = hasOriginal && hasPatch && mergeKey !== "" && field.merge
      ? serverAfterMerge(originalList, patchList, mergeKey)
      : originalList;
    setOwn(original, key, normalizeOrder(listed, others, order, server, mergeKey));
    delete patch[key];
  }
}

/** Merges a list field as its strategy says (a delete list always merges). */
function mergeList(
  original: Json[],
  patch: Json[],
  field: FieldStrategy,
  deleteList: boolean,
): Json[] {
  if (!field.merge && !deleteList) return patch;
  const mergeKey = field.mergeKey ?? "";
  if (original.length === 0 && patch.length === 0) return original;
  const type = elementKind(original, patch);
  let merged: Json[];
  let server = original;
  let patchItems = patch;
  if (type !== "map[string]interface {}") {
    if (deleteList) {
      const drop = new Set(patch.map(identity));
      return original.filter((v) => (spend(), !drop.has(identity(v))));
    }
    merged = [];
    const seen = new Set<string>();
    for (const v of [...original, ...patch]) {
      spend();
      const id = identity(v);
      if (!seen.has(id)) {
        seen.add(id);
        merged.push(v);
      }
    }
  } else {
    if (mergeKey === "") {
      internal(`cannot merge lists without merge key for ${field.itemType ?? "map"}`);
    }
    [server, patchItems] = applySpecialItems(original, patch, mergeKey);
    merged = mergeItems(server, patchItems, mergeKey, field.fields);
  }
  const inPatch = positions(patchItems, mergeKey);
  const listed: Json[] = [];
  const others: Json[] = [];
  for (const item of merged) {
    spend();
    if (mergeKey !== "" && !(isRecord(item) && Object.hasOwn(item, mergeKey))) {
      noMergeKey(item, mergeKey);
    }
    (inPatch.has(itemIdentity(item, mergeKey)) ? listed : others).push(item);
  }
  return normalizeOrder(listed, others, patchItems, server, mergeKey);
}

/**
 * The list items holding `$patch`: `delete` removes the original's items with that merge key,
 * `replace` makes the patch's other items the whole list. Returns the original and the patch
 * without them.
 */
function applySpecialItems(original: Json[], patch: Json[], mergeKey: string): [Json[], Json[]] {
  const plain: Json[] = [];
  const deleted = new Set<string>();
  let replace = false;
  for (const v of patch) {
    spend();
    const item = v as JsonMap;
    if (!Object.hasOwn(item, PATCH)) {
      plain.push(v);
      continue;
    }
    switch (item[PATCH]) {
      case "delete":
        if (!Object.hasOwn(item, mergeKey)) noMergeKey(item, mergeKey);
        deleted.add(identity(item[mergeKey]));
        break;
      case "replace":
        replace = true;
        break;
      case "merge":
        internal("merging lists cannot yet be specified in the patch");
        break;
      default:
        badPatchType(item[PATCH], item);
    }
  }
  if (replace) return [plain, []];
  if (deleted.size === 0) return [original, plain];
  const kept = original.filter((v) => {
    spend();
    return !(isRecord(v) && Object.hasOwn(v, mergeKey) && deleted.has(identity(v[mergeKey])));
  });
  return [kept, plain];
}

/** Merges each patch item into the original item with its merge key, or appends it. */
function mergeItems(
  original: Json[],
  patch: Json[],
  mergeKey: string,
  schema: Schema | undefined,
): Json[] {
  const out = [...original];
  const at = new Map<string, number>();
  out.forEach((item, i) => {
    spend();
    if (!isRecord(item) || !Object.hasOwn(item, mergeKey)) return;
    const id = identity(item[mergeKey]);
    if (!at.has(id)) at.set(id, i);
  });
  for (const v of patch) {
    spend();
    const item = v as JsonMap;
    if (!Object.hasOwn(item, mergeKey)) noMergeKey(item, mergeKey);
    const id = identity(item[mergeKey]);
    const i = at.get(id);
    if (i === undefined) {
      at.set(id, out.length);
      out.push(item);
    } else {
      out[i] = mergeMap(out[i] as JsonMap, item, schema);
    }
  }
  return out;
}

/**
 * Applies a strategic merge patch to `target` (not changed) with `schema`'s merge strategies.
 * Throws the API server's `KubeApiError`s for a patch it would refuse.
 */
export function strategicMergePatch(target: Json, patch: Json, schema: Schema): Json {
  if (patch !== null && !isRecord(patch)) {
    const kind = Array.isArray(patch)
      ? "array"
      : typeof patch === "boolean"
      ? "bool"
      : typeof patch;
    badRequest(`json: cannot unmarshal ${kind} into Go value of type map[string]interface {}`);
  }
  const original = structuredCloneJson(target);
  spend(2);
  return mergeMap(isRecord(original) ? original : {}, structuredCloneJson(patch ?? {}), schema);
}
