/**
 * Sets of field paths for managed fields, kept as a tree (one node per path prefix, marked
 * where a path of the set ends), so that the questions server-side apply asks (is this path,
 * or a path inside it or around it, in the set?) take time in the length of the path, and walks
 * of a set beside an object take time in their sizes: applying N fields over an object whose
 * other managers own M others is O(N + M), not O(N * M).
 * @module
 */
import { isRecord } from "@kinformer/kinformer/internal";
import { spend } from "./work_meter.ts";

/** A field path: the keys from the object's root to one field. */
export type FieldPath = readonly string[];

/** One node of a {@linkcode FieldSet}: its children by key; `member` where a path ends. */
export class FieldNode {
  /** The nodes one key further. */
  readonly children: Map<string, FieldNode> = new Map();
  /** Whether the path to this node is in the set. */
  member = false;

  /** The child at `key`, made when missing. */
  child(key: string): FieldNode {
    let c = this.children.get(key);
    if (c === undefined) this.children.set(key, c = new FieldNode());
    return c;
  }
}

/** A set of field paths. */
export class FieldSet {
  /** The node of the empty path. */
  readonly root: FieldNode;

  constructor(root: FieldNode = new FieldNode()) {
    this.root = root;
  }

  /** Number of paths (counted by a walk). */
  get size(): number {
    let n = 0;
    const walk = (node: FieldNode): void => {
      spend();
      if (node.member) n++;
      for (const c of node.children.values()) walk(c);
    };
    walk(this.root);
    return n;
  }

  /** Adds `path`. */
  add(path: FieldPath): void {
    let node = this.root;
    for (const key of path) node = node.child(key);
    node.member = true;
  }

  /** Whether `path` is in the set. */
  has(path: FieldPath): boolean {
    return this.node(path)?.member === true;
  }

  /** The node of `path`, if the set has it or a path inside it. */
  node(path: FieldPath): FieldNode | undefined {
    let node: FieldNode | undefined = this.root;
    for (const key of path) {
      spend();
      node = node.children.get(key);
      if (node === undefined) return undefined;
    }
    return node;
  }

  /** Every path, depth first, in insertion order. */
  *[Symbol.iterator](): IterableIterator<FieldPath> {
    const path: string[] = [];
    function* walk(node: FieldNode): Generator<FieldPath> {
      if (node.member) yield [...path];
      for (const [k, c] of node.children) {
        path.push(k);
        yield* walk(c);
        path.pop();
      }
    }
    yield* walk(this.root);
  }
}

/** Whether two sets hold the same paths. */
export function sameFields(a: FieldSet, b: FieldSet): boolean {
  const walk = (x: FieldNode, y: FieldNode): boolean => {
    spend();
    if (x.member !== y.member || x.children.size !== y.children.size) return false;
    for (const [k, c] of x.children) {
      const d = y.children.get(k);
      if (d === undefined || !walk(c, d)) return false;
    }
    return true;
  };
  return walk(a.root, b.root);
}

/** Adds every path of `from` to `into` (changes `into`). */
export function addAll(into: FieldNode, from: FieldNode): void {
  spend();
  if (from.member) into.member = true;
  for (const [k, c] of from.children) addAll(into.child(k), c);
}

/** The union of sets (a new set). */
export function union(sets: Iterable<FieldSet>): FieldSet {
  const out = new FieldSet();
  for (const s of sets) addAll(out.root, s.root);
  return out;
}

/**
 * Where a walk stands in a set beside another: the set's node at the same path (if any) and
 * whether the set has a path that is a strict prefix of it. A path is "related" to the set when
 * either holds: the set has it, a path inside it, or a path around it.
 */
export interface Beside {
  readonly node: FieldNode | undefined;
  readonly under: boolean;
}

/** The start of a walk beside `set`. */
export function besideRoot(set: FieldSet): Beside {
  return { node: set.root, under: false };
}

/** One key further. */
export function step(at: Beside, key: string): Beside {
  const node = at.node;
  if (node === undefined) return at;
  return { node: node.children.get(key), under: at.under || node.member };
}

/** Whether the path the walk stands at is related to the set (see {@linkcode Beside}). */
export function related(at: Beside): boolean {
  return at.under || at.node !== undefined;
}

/** Marks a value as absent (not a JSON value). */
export const ABSENT: unique symbol = Symbol("absent");

/** The member `key` of `value` (own properties of objects only), or {@linkcode ABSENT}. */
export function childValue(value: unknown, key: string): unknown {
  return isRecord(value) && Object.hasOwn(value, key) ? value[key] : ABSENT;
}

/** Structural equality of two JSON values (object key order does not matter), linear time. */
export function sameJson(a: unknown, b: unknown): boolean {
  spend();
  if (a === b) return true;
  if (Array.isArray(a)) {
    return Array.isArray(b) && a.length === b.length && a.every((v, i) => sameJson(v, b[i]));
  }
  if (isRecord(a) && isRecord(b) && !Array.isArray(b)) {
    const keys = Object.keys(a);
    const count = Object.keys(b).length;
    spend(keys.length + count);
    if (keys.length !== count) return false;
    return keys.every((k) => Object.hasOwn(b, k) && sameJson(a[k], b[k]));
  }
  return false;
}
