/**
 * The cache mutation detector: cached objects are shared with every listener and are not
 * frozen (for speed), so a handler that changes one corrupts everyone's view. This opt-in
 * check finds it, names the key and the path that changed, and reports it.
 * @module
 */
import type { KubeObjectLike } from "../client/types.ts";
import type { Clock, TimerHandle } from "../util/clock.ts";
import type { WritableStore } from "./store_writer.ts";
import type { ErrorKind } from "../util/error_kind.ts";
import { isRecord } from "../util/values.ts";

/**
 * A cached object was changed in place by someone holding it (a handler, a lister user): the
 * cache, and every listener sharing the object, no longer shows what the server sent.
 *
 * @example
 * ```ts
 * import { MutationError } from "@kinformer/kinformer/cache";
 * import assert from "node:assert/strict";
 * const error = new MutationError("default/web", "spec.replicas");
 * assert.match(error.message, /default\/web.*spec\.replicas/);
 * ```
 */
export class MutationError extends Error {
  /** The error class name. */
  override name = "MutationError";
  /** Always `"mutation"`. */
  readonly kind: ErrorKind = "mutation";
  /** The cache key of the object. */
  readonly key: string;
  /** The first path found to differ, e.g. `metadata.labels.app` or `spec.containers[0]`. */
  readonly path: string;
  /** Builds the error for `key` and the `path` that changed. */
  constructor(key: string, path: string) {
    // A path into a deeply nested object can be long: the message shows its two ends.
    const shown = path.length <= 200
      ? path || "(the object itself)"
      : `${path.slice(0, 120)}...${path.slice(-60)} (${path.length} characters)`;
    super(
      `cached object ${key} was mutated at ${shown}: objects from the ` +
        `cache are shared and read-only; copy one before changing it (structuredClone)`,
    );
    this.key = key;
    this.path = path;
  }
}

/**
 * Keeps a JSON fingerprint of every cached object and compares it with the object when the
 * cache replaces or drops it, and every `intervalMs` for all of them. Nothing here throws,
 * whatever the object (nested any depth, a cycle, a BigInt): the cache and the listeners never
 * lose an event to the detector. Internal: turned on by the informer's `detectMutations`
 * option.
 */
export class MutationDetector<T extends KubeObjectLike> {
  readonly #clock: Clock;
  readonly #intervalMs: number;
  readonly #report: (error: MutationError) => void;
  readonly #prints = new Map<string, { object: T; json: string }>();
  #timer: TimerHandle | undefined;

  /** Reports each mutation found to `report`; checks everything every `intervalMs` once started. */
  constructor(clock: Clock, intervalMs: number, report: (error: MutationError) => void) {
    this.#clock = clock;
    this.#intervalMs = intervalMs;
    this.#report = report;
  }

  /** The cache now holds `object` under `key`. */
  track(key: string, object: T): void {
    this.#prints.set(key, { object, json: fingerprint(object) });
  }

  /** The cache is about to replace or drop what it holds under `key`: check it first. */
  release(key: string): void {
    const print = this.#prints.get(key);
    if (print === undefined) return;
    this.#prints.delete(key);
    this.#check(key, print);
  }

  /** Checks every tracked object now; a mutation found is reported once. */
  checkAll(): void {
    for (const [key, print] of this.#prints) print.json = this.#check(key, print);
  }

  /** Starts the periodic check. */
  start(): void {
    if (this.#timer !== undefined || this.#intervalMs <= 0) return;
    const tick = (): void => {
      this.#timer = this.#clock.setTimeout(tick, this.#intervalMs);
      this.checkAll();
    };
    this.#timer = this.#clock.setTimeout(tick, this.#intervalMs);
  }

  /** Stops the periodic check. */
  stop(): void {
    if (this.#timer !== undefined) this.#clock.clearTimeout(this.#timer);
    this.#timer = undefined;
  }

  /** Reports a mutation of `print.object`; returns its fingerprint now. */
  #check(key: string, print: { object: T; json: string }): string {
    const now = fingerprint(print.object); // "" once unserializable (a cycle, a BigInt)
    if (now === print.json) return now;
    const was: unknown = print.json === "" ? undefined : JSON.parse(print.json);
    this.#report(new MutationError(key, firstDifference(was, print.object)));
    return now;
  }
}

/**
 * `store` with `detector` told of every object it starts or stops holding: what the informer
 * writes into when `detectMutations` is on. Internal.
 */
export function trackedStore<T extends KubeObjectLike>(
  store: WritableStore<T>,
  detector: MutationDetector<T>,
): WritableStore<T> {
  return {
    get: (key) => store.get(key),
    listKeys: () => store.listKeys(),
    set: (object, key) => {
      store.set(object, key); // an index function that throws leaves everything as it was
      detector.release(key);
      detector.track(key, object);
    },
    delete: (key) => {
      store.delete(key);
      detector.release(key);
    },
  };
}

/**
 * `JSON.stringify(value)`, or `""` for a value JSON cannot hold (a cycle, a BigInt). The
 * runtime's own `JSON.stringify` recurses and gives up on deeply nested objects (a
 * `RangeError` at about 5,000 levels on Node 24); those are written by {@linkcode jsonText}
 * instead, which gives the same text at any depth.
 */
export function fingerprint(value: unknown): string {
  try {
    return JSON.stringify(value) ?? "";
  } catch (error) {
    if (!(error instanceof RangeError)) return "";
    try {
      return jsonText(value) ?? "";
    } catch {
      return "";
    }
  }
}

/** Marks a value {@linkcode jsonText} writes as an array or object, not as text. */
const CONTAINER = Symbol("container");

/** One array or object being written by {@linkcode jsonText}. */
interface Frame {
  readonly value: object;
  /** The object's keys; `undefined` for an array. */
  readonly keys: string[] | undefined;
  /** The next index or key to write. */
  next: number;
  /** Something was written inside (a comma goes before the next member). */
  wrote: boolean;
}

/**
 * The text `JSON.stringify(value)` gives (no replacer, no indentation), built with an explicit
 * stack instead of recursion, so any depth works. Throws a `TypeError` for a cycle or a BigInt,
 * as `JSON.stringify` does. Internal.
 */
export function jsonText(value: unknown): string | undefined {
  const out: string[] = [];
  const stack: Frame[] = [];
  const open = new Set<object>();
  const enter = (container: object): void => {
    if (open.has(container)) throw new TypeError("cannot write a cycle as JSON");
    open.add(container);
    const array = Array.isArray(container);
    out.push(array ? "[" : "{");
    stack.push({
      value: container,
      keys: array ? undefined : Object.keys(container),
      next: 0,
      wrote: false,
    });
  };
  const root = jsonReady(value, "");
  const text = scalarText(root);
  if (text !== CONTAINER) return text;
  enter(root as object);
  while (stack.length > 0) {
    const frame = stack[stack.length - 1]!;
    const keys = frame.keys;
    if (keys === undefined) {
      const items = frame.value as unknown[];
      if (frame.next >= items.length) {
        out.push("]");
        open.delete(frame.value);
        stack.pop();
        continue;
      }
      const index = frame.next++;
      if (index > 0) out.push(",");
      const item = jsonReady(items[index], String(index));
      const itemText = scalarText(item);
      if (itemText === CONTAINER) enter(item as object);
      else out.push(itemText ?? "null");
      continue;
    }
    if (frame.next >= keys.length) {
      out.push("}");
      open.delete(frame.value);
      stack.pop();
      continue;
    }
    const key = keys[frame.next++]!;
    const member = jsonReady((frame.value as Record<string, unknown>)[key], key);
    const memberText = scalarText(member);
    if (memberText === undefined) continue; // undefined, a function, a symbol: left out
    if (frame.wrote) out.push(",");
    frame.wrote = true;
    out.push(JSON.stringify(key), ":");
    if (memberText === CONTAINER) enter(member as object);
    else out.push(memberText);
  }
  return out.join("");
}

/** `value` as JSON sees it: after its `toJSON`, boxed primitives unboxed. */
function jsonReady(value: unknown, key: string): unknown {
  if ((typeof value === "object" && value !== null) || typeof value === "bigint") {
    const toJSON = (value as { toJSON?: unknown }).toJSON;
    if (typeof toJSON === "function") value = toJSON.call(value, key);
  }
  if (typeof value === "object" && value !== null) {
    if (value instanceof Number) return Number(value);
    if (value instanceof String) return String(value);
    if (value instanceof Boolean) return value.valueOf();
  }
  return value;
}

/** The JSON text of a scalar, {@linkcode CONTAINER} for an array or object, else undefined. */
function scalarText(value: unknown): string | undefined | typeof CONTAINER {
  switch (typeof value) {
    case "string":
      return JSON.stringify(value);
    case "number":
      return Number.isFinite(value) ? String(value) : "null";
    case "boolean":
      return value ? "true" : "false";
    case "bigint":
      throw new TypeError("cannot write a BigInt as JSON");
    case "object":
      return value === null ? "null" : CONTAINER;
    default:
      return undefined;
  }
}

/** Stands for a member one side lacks (it differs from anything). */
const ABSENT = Symbol("absent");

/**
 * The first path at which `now` differs from `was` (JSON values), `""` for the root (or when
 * they hold the same entries in another order). Depth first, in key order, with an explicit
 * stack: any depth works.
 */
export function firstDifference(was: unknown, now: unknown): string {
  const stack: [unknown, unknown, string][] = [[was, now, ""]];
  while (stack.length > 0) {
    const [a, b, path] = stack.pop()!;
    if (Object.is(a, b)) continue;
    if (Array.isArray(a) && Array.isArray(b)) {
      for (let i = Math.max(a.length, b.length) - 1; i >= 0; i--) {
        stack.push([i < a.length ? a[i] : ABSENT, i < b.length ? b[i] : ABSENT, `${path}[${i}]`]);
      }
      continue;
    }
    if (isRecord(a) && isRecord(b)) {
      const keys = [...new Set([...Object.keys(a), ...Object.keys(b)])];
      for (let i = keys.length - 1; i >= 0; i--) {
        const k = keys[i]!;
        stack.push([
          Object.hasOwn(a, k) ? a[k] : ABSENT,
          Object.hasOwn(b, k) ? b[k] : ABSENT,
          path === "" ? k : `${path}.${k}`,
        ]);
      }
      continue;
    }
    return path;
  }
  return "";
}
