/**
 * Field ownership for the simulated cluster (`metadata.managedFields`): the leaf fields of an
 * object, the `FieldsV1` encoding, and how a non-apply write (`Update`) moves ownership. Every
 * walk here goes beside the object (or objects) it concerns, so its time is linear in their
 * sizes.
 *
 * Simplification: without OpenAPI schemas every list is atomic (a list is one field, as for a
 * CRD without list annotations) and only leaf fields are recorded: scalars, lists, `null` and
 * empty maps, as `f:<name>` keys whose value is `{}`. Real servers also record `.` for maps
 * set as a whole and `k:{...}` keys for items of keyed lists.
 * @module
 */
import { isRecord } from "@kinformer/kinformer/internal";
import { getOwn, setOwn } from "../../core/own_properties.ts";
import { HANDLED_META } from "../../store/object_store.ts";
import { ABSENT, addAll, childValue, FieldNode, FieldSet, sameJson } from "./field_set.ts";
import { spend } from "./work_meter.ts";

export { type FieldPath, FieldSet, sameJson } from "./field_set.ts";

/** Which part of an object a write covers. */
export type Scope =
  /** Everything (resources without a status subresource). */
  | "all"
  /** Everything but `status` (the main resource of one with a status subresource). */
  | "main"
  /** Only `status` (the status subresource). */
  | "status";

/** Fields never recorded as owned: identity and server-owned metadata. */
const SERVER_METADATA: ReadonlySet<string> = new Set([
  ...HANDLED_META,
  "managedFields",
  "selfLink",
]);

/** Whether a top-level field belongs to `scope`. */
function inScope(key: string, scope: Scope): boolean {
  if (key === "apiVersion" || key === "kind") return false;
  if (scope === "status") return key === "status";
  if (scope === "main") return key !== "status";
  return true;
}

/** Whether the field `key` at `depth` (0: top level) of a path starting with `top` is recorded. */
function recorded(key: string, depth: number, top: string | undefined, scope: Scope): boolean {
  if (depth === 0) return inScope(key, scope);
  return !(depth === 1 && top === "metadata" && SERVER_METADATA.has(key));
}

/**
 * The leaf fields of `value` below `node` (`depth` keys deep, under the top-level field
 * `top`), added to `node`; whether any was.
 */
function addLeaves(
  node: FieldNode,
  value: unknown,
  depth: number,
  top: string | undefined,
  scope: Scope,
  keep?: (before: unknown, after: unknown) => boolean,
  before: unknown = ABSENT,
): boolean {
  spend();
  if (isRecord(value) && Object.keys(value).length > 0) {
    let any = false;
    for (const key of Object.keys(value)) {
      if (!recorded(key, depth, depth === 0 ? key : top, scope)) continue;
      const child = node.children.get(key) ?? new FieldNode();
      const added = addLeaves(
        child,
        value[key],
        depth + 1,
        depth === 0 ? key : top,
        scope,
        keep,
        keep === undefined ? ABSENT : childValue(before, key),
      );
      if (added && !node.children.has(key)) node.children.set(key, child);
      any ||= added;
    }
    return any;
  }
  // A leaf: scalars, lists, null and empty maps; never the top or `metadata` itself.
  if (depth === 0 || (depth === 1 && top === "metadata")) return false;
  if (keep !== undefined && !keep(before, value)) return false;
  node.member = true;
  return true;
}

/**
 * The leaf fields of `object` in `scope`: scalars, `null`, lists (atomic) and empty maps;
 * identity and server-owned metadata are left out.
 */
export function leafPaths(object: unknown, scope: Scope): FieldSet {
  const set = new FieldSet();
  addLeaves(set.root, object, 0, undefined, scope);
  return set;
}

/** The leaf fields of `after` in `scope` whose value differs from `before`'s. */
function changedLeaves(before: unknown, after: unknown, scope: Scope): FieldSet {
  const set = new FieldSet();
  addLeaves(
    set.root,
    after,
    0,
    undefined,
    scope,
    (b, a) => b === ABSENT || !sameJson(b, a),
    before,
  );
  return set;
}

/** One `metadata.managedFields` entry, with its fields as a set. */
export interface ManagedEntry {
  manager: string;
  operation: string;
  apiVersion: string;
  time: string;
  subresource: string | undefined;
  fields: FieldSet;
}

/** Whether two entries are the same manager, operation and subresource. */
export function sameOwner(
  a: Pick<ManagedEntry, "manager" | "operation" | "subresource">,
  b: Pick<ManagedEntry, "manager" | "operation" | "subresource">,
): boolean {
  return a.manager === b.manager && a.operation === b.operation &&
    a.subresource === b.subresource;
}

/** `FieldsV1` of a set: nested `f:<key>` maps, `{}` at the leaves. */
function toFieldsV1(set: FieldSet): Record<string, unknown> {
  const walk = (node: FieldNode): Record<string, unknown> => {
    spend();
    const out: Record<string, unknown> = {};
    for (const [k, c] of node.children) setOwn(out, `f:${k}`, walk(c));
    return out;
  };
  return walk(set.root);
}

/**
 * The set a `FieldsV1` value describes. A field holding `k:`, `v:` or `i:` keys (items of a
 * keyed list, from a real server) or `.` counts as owned whole.
 */
function fromFieldsV1(fields: unknown): FieldSet {
  const walk = (value: unknown, node: FieldNode, depth: number): void => {
    spend();
    const keys = isRecord(value) ? Object.keys(value) : [];
    const named = keys.filter((k) => k.startsWith("f:"));
    if (depth > 0 && (named.length === 0 || named.length < keys.length)) node.member = true;
    for (const k of named) {
      walk(getOwn(value as Record<string, unknown>, k), node.child(k.slice(2)), depth + 1);
    }
  };
  const set = new FieldSet();
  walk(fields, set.root, 0);
  return set;
}

/** Reads `metadata.managedFields`; entries that are not objects are dropped. */
export function parseManagedFields(value: unknown): ManagedEntry[] {
  if (!Array.isArray(value)) return [];
  const entries: ManagedEntry[] = [];
  for (const e of value) {
    if (!isRecord(e)) continue;
    const text = (v: unknown): string => typeof v === "string" ? v : "";
    entries.push({
      manager: text(e.manager),
      operation: text(e.operation),
      apiVersion: text(e.apiVersion),
      time: text(e.time),
      subresource: typeof e.subresource === "string" && e.subresource !== ""
        ? e.subresource
        : undefined,
      fields: fromFieldsV1(e.fieldsV1),
    });
  }
  return entries;
}

/** Whether a set holds no path. */
function isEmpty(set: FieldSet): boolean {
  return !set.root.member && set.root.children.size === 0;
}

/** `metadata.managedFields` for `entries`, in the real server's key order; empty ones dropped. */
export function formatManagedFields(entries: readonly ManagedEntry[]): Record<string, unknown>[] {
  return entries.filter((e) => !isEmpty(e.fields)).map((e) => {
    const out: Record<string, unknown> = {
      manager: e.manager,
      operation: e.operation,
      apiVersion: e.apiVersion,
      time: e.time,
      fieldsType: "FieldsV1",
      fieldsV1: toFieldsV1(e.fields),
    };
    if (e.subresource !== undefined) out.subresource = e.subresource;
    return out;
  });
}

/** Who writes, and how. */
export interface Writer {
  manager: string;
  operation: "Apply" | "Update";
  subresource: string | undefined;
  apiVersion: string;
  /** RFC 3339 time of the write. */
  time: string;
}

/**
 * Ownership after a non-apply write (`Update`) that turned `before` into `after`: the writer
 * takes every field in `scope` whose value it changed (or added), away from any other owner;
 * fields that are gone are dropped from every entry. A write that changes nothing changes no
 * entry (not even a time), so it stays a no-op.
 */
export function trackUpdate(
  entries: readonly ManagedEntry[],
  before: unknown,
  after: unknown,
  writer: Writer,
  scope: Scope,
): ManagedEntry[] {
  const changed = changedLeaves(before, after, scope);
  const out: ManagedEntry[] = [];
  let mine: ManagedEntry | undefined;
  for (const e of entries) {
    const isMine = sameOwner(e, writer);
    // Walk the entry beside `after`, with `before`'s value at each path looked up as we go.
    const fields = filterPair(
      e.fields,
      before,
      after,
      (b, a) => a === ABSENT || (!isMine && !sameJson(b, a)),
    );
    const kept = { ...e, fields };
    if (isMine) mine = kept;
    out.push(kept);
  }
  if (isEmpty(changed)) return out;
  if (mine === undefined) {
    mine = { ...writer, fields: new FieldSet() };
    out.push(mine);
  }
  addAll(mine.fields.root, changed.root);
  mine.time = writer.time;
  mine.apiVersion = writer.apiVersion;
  return out;
}

/** {@linkcode filterBeside} over two objects at once: `drop(b, a)` gets both values. */
function filterPair(
  set: FieldSet,
  before: unknown,
  after: unknown,
  drop: (b: unknown, a: unknown) => boolean,
): FieldSet {
  const walk = (node: FieldNode, b: unknown, a: unknown): FieldNode | undefined => {
    spend();
    const out = new FieldNode();
    out.member = node.member && !drop(b, a);
    for (const [k, c] of node.children) {
      const kept = walk(c, childValue(b, k), childValue(a, k));
      if (kept !== undefined) out.children.set(k, kept);
    }
    return out.member || out.children.size > 0 ? out : undefined;
  };
  return new FieldSet(walk(set.root, before, after) ?? new FieldNode());
}
