/**
 * Field ownership for the simulated cluster (`metadata.managedFields`): field paths and sets,
 * the `FieldsV1` encoding, and how a non-apply write (`Update`) moves ownership.
 *
 * Simplification: without OpenAPI schemas every list is atomic (a list is one field, as for a
 * CRD without list annotations) and only leaf fields are recorded: scalars, lists, `null` and
 * empty maps, as `f:<name>` keys whose value is `{}`. Real servers also record `.` for maps
 * set as a whole and `k:{...}` keys for items of keyed lists.
 * @module
 */
import { isRecord } from "../../util/values.ts";
import { getOwn, setOwn } from "../store/own_properties.ts";
import { HANDLED_META } from "../store/object_store.ts";

/** A field path: the keys from the object's root to one field. */
export type FieldPath = readonly string[];

/** Which part of an object a write covers. */
export type Scope =
  /** Everything (resources without a status subresource). */
  | "all"
  /** Everything but `status` (the main resource of one with a status subresource). */
  | "main"
  /** Only `status` (the status subresource). */
  | "status";

/** Marks a field that is not there (`undefined` is not JSON, but be explicit). */
export const ABSENT: unique symbol = Symbol("absent");

/** Fields never recorded as owned: identity and server-owned metadata. */
const SERVER_METADATA: ReadonlySet<string> = new Set([
  ...HANDLED_META,
  "managedFields",
  "selfLink",
]);

/** A set of field paths. */
export class FieldSet {
  readonly #paths = new Map<string, FieldPath>();

  constructor(paths: Iterable<FieldPath> = []) {
    for (const p of paths) this.add(p);
  }

  /** Number of paths. */
  get size(): number {
    return this.#paths.size;
  }

  add(path: FieldPath): void {
    this.#paths.set(JSON.stringify(path), path);
  }

  delete(path: FieldPath): void {
    this.#paths.delete(JSON.stringify(path));
  }

  has(path: FieldPath): boolean {
    return this.#paths.has(JSON.stringify(path));
  }

  [Symbol.iterator](): IterableIterator<FieldPath> {
    return this.#paths.values();
  }

  /** A copy without the paths `drop` returns true for. */
  without(drop: (path: FieldPath) => boolean): FieldSet {
    return new FieldSet([...this].filter((p) => !drop(p)));
  }
}

/** Whether one path is the other or lies inside it. */
export function related(a: FieldPath, b: FieldPath): boolean {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) if (a[i] !== b[i]) return false;
  return true;
}

/** The value at `path` (own properties only), or {@linkcode ABSENT}. */
export function valueAt(object: unknown, path: FieldPath): unknown {
  let node = object;
  for (const key of path) {
    if (!isRecord(node) || !Object.hasOwn(node, key)) return ABSENT;
    node = node[key];
  }
  return node;
}

/** Structural equality of two JSON values (object key order does not matter). */
export function sameJson(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (Array.isArray(a)) {
    return Array.isArray(b) && a.length === b.length && a.every((v, i) => sameJson(v, b[i]));
  }
  if (isRecord(a) && isRecord(b)) {
    const keys = Object.keys(a);
    if (keys.length !== Object.keys(b).length) return false;
    return keys.every((k) => Object.hasOwn(b, k) && sameJson(a[k], b[k]));
  }
  return false;
}

/** Whether a top-level field belongs to `scope`. */
function inScope(key: string, scope: Scope): boolean {
  if (key === "apiVersion" || key === "kind") return false;
  if (scope === "status") return key === "status";
  if (scope === "main") return key !== "status";
  return true;
}

/**
 * The leaf fields of `object` in `scope`: scalars, `null`, lists (atomic) and empty maps;
 * identity and server-owned metadata are left out.
 */
export function leafPaths(object: unknown, scope: Scope): FieldSet {
  const set = new FieldSet();
  const walk = (node: unknown, path: string[]): void => {
    if (isRecord(node) && Object.keys(node).length > 0) {
      for (const key of Object.keys(node)) {
        if (path.length === 0 && !inScope(key, scope)) continue;
        if (path.length === 1 && path[0] === "metadata" && SERVER_METADATA.has(key)) continue;
        walk(node[key], [...path, key]);
      }
    } else if (path.length > 0 && !(path.length === 1 && path[0] === "metadata")) {
      set.add(path);
    }
  };
  walk(object, []);
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
  const root: Record<string, unknown> = {};
  for (const path of set) {
    let node = root;
    for (const key of path) {
      const f = `f:${key}`;
      let child = getOwn(node, f);
      if (!isRecord(child)) {
        child = {};
        setOwn(node, f, child);
      }
      node = child as Record<string, unknown>;
    }
  }
  return root;
}

/**
 * The set a `FieldsV1` value describes. A field holding `k:`, `v:` or `i:` keys (items of a
 * keyed list, from a real server) or `.` counts as owned whole.
 */
function fromFieldsV1(fields: unknown): FieldSet {
  const set = new FieldSet();
  const walk = (node: unknown, path: string[]): void => {
    const keys = isRecord(node) ? Object.keys(node) : [];
    const named = keys.filter((k) => k.startsWith("f:"));
    if (path.length > 0 && (named.length === 0 || named.length < keys.length)) set.add(path);
    for (const k of named) walk((node as Record<string, unknown>)[k], [...path, k.slice(2)]);
  };
  walk(fields, []);
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

/** `metadata.managedFields` for `entries`, in the real server's key order; empty ones dropped. */
export function formatManagedFields(entries: readonly ManagedEntry[]): Record<string, unknown>[] {
  return entries.filter((e) => e.fields.size > 0).map((e) => {
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
  const changed = new FieldSet();
  for (const p of leafPaths(after, scope)) {
    if (!sameJson(valueAt(before, p), valueAt(after, p))) changed.add(p);
  }
  const out: ManagedEntry[] = [];
  let mine: ManagedEntry | undefined;
  for (const e of entries) {
    const isMine = sameOwner(e, writer);
    const fields = e.fields.without((p) =>
      valueAt(after, p) === ABSENT ||
      (!isMine && !sameJson(valueAt(before, p), valueAt(after, p)))
    );
    const kept = { ...e, fields };
    if (isMine) mine = kept;
    out.push(kept);
  }
  if (changed.size === 0) return out;
  if (mine === undefined) {
    mine = { ...writer, fields: new FieldSet() };
    out.push(mine);
  }
  mine.fields = new FieldSet([...mine.fields, ...changed]);
  mine.time = writer.time;
  mine.apiVersion = writer.apiVersion;
  return out;
}
