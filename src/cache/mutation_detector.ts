/**
 * The cache mutation detector: cached objects are shared with every listener and are not
 * frozen (for speed), so a handler that changes one corrupts everyone's view. This opt-in
 * check finds it, names the key and the path that changed, and reports it.
 * @module
 */
import type { KubeObjectLike } from "../client/types.ts";
import type { Clock, TimerHandle } from "../util/clock.ts";
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
    super(
      `cached object ${key} was mutated at ${path || "(the object itself)"}: objects from the ` +
        `cache are shared and read-only; copy one before changing it (structuredClone)`,
    );
    this.key = key;
    this.path = path;
  }
}

/**
 * Keeps a JSON fingerprint of every cached object and compares it with the object when the
 * cache replaces or drops it, and every `intervalMs` for all of them. Internal: turned on by
 * the informer's `detectMutations` option.
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
    this.#prints.set(key, { object, json: JSON.stringify(object) });
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
    let now: string;
    try {
      now = JSON.stringify(print.object);
    } catch {
      now = ""; // made unserializable (a cycle, a BigInt): certainly mutated
    }
    if (now === print.json) return now;
    const was: unknown = print.json === "" ? undefined : JSON.parse(print.json);
    this.#report(new MutationError(key, firstDifference(was, print.object)));
    return now;
  }
}

/** The first path at which `now` differs from `was` (JSON values), `""` for the root. */
export function firstDifference(was: unknown, now: unknown, path = ""): string {
  if (Object.is(was, now)) return "";
  if (Array.isArray(was) && Array.isArray(now)) {
    const n = Math.max(was.length, now.length);
    for (let i = 0; i < n; i++) {
      const p = firstDifference(was[i], now[i], `${path}[${i}]`);
      if (p !== "" || !sameJson(was[i], now[i])) return p || `${path}[${i}]`;
    }
    return path;
  }
  if (isRecord(was) && isRecord(now)) {
    const keys = new Set([...Object.keys(was), ...Object.keys(now)]);
    for (const k of keys) {
      const child = path === "" ? k : `${path}.${k}`;
      if (!Object.hasOwn(was, k) || !Object.hasOwn(now, k)) return child;
      if (!sameJson(was[k], now[k])) return firstDifference(was[k], now[k], child) || child;
    }
    return path; // same entries in another order
  }
  return path;
}

function sameJson(a: unknown, b: unknown): boolean {
  if (Object.is(a, b)) return true;
  try {
    return JSON.stringify(a) === JSON.stringify(b);
  } catch {
    return false;
  }
}
