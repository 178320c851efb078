/**
 * The churn driver of {@linkcode SimulatedCluster}: seeded random creates, updates, deletes,
 * re-creates (same name, new uid) and label flips (moving objects in and out of a selector),
 * either N at once or at a rate on the cluster's clock: the options and stats of
 * `SimulatedCluster.churn()` and `startChurn()`, and the engine behind them (seeded random steps
 * against the store, once or at a rate on a clock).
 * @module
 */
import type { AnyResourceDescriptor } from "@kinformer/kinformer/client";
import { KubeApiError } from "@kinformer/kinformer/client";
import type { KubeObject } from "@kinformer/kinformer/client";
import { onAbort } from "@kinformer/kinformer/internal";
import type { Clock, TimerHandle } from "@kinformer/kinformer/cache";
import { requireNumber } from "@kinformer/kinformer/internal";
import { fixtureFor } from "./_fixture_for_kind.ts";
import type { Rng } from "@kinformer/kinformer/internal";
import type { Store } from "../../store/object_store.ts";
import { keyOf } from "@kinformer/kinformer/internal";
import type { Version } from "../../store/object_version.ts";
import type { ResourceState } from "../../store/resource_state.ts";

/** Relative weights of the churn operations (non-negative; at least one positive). */
export interface ChurnMix {
  /** Create a new object. @default 1 */
  create?: number;
  /** Update an object (an annotation changes; spec and labels stay). @default 4 */
  update?: number;
  /** Delete an object. @default 1 */
  delete?: number;
  /** Delete an object and create it again under the same name (new uid). @default 0.5 */
  recreate?: number;
  /** Flip the `labelKey` label between `"true"` and `"false"`. @default 1 */
  labelFlip?: number;
}

/** Options of {@linkcode SimulatedCluster.churn}. */
export interface ChurnOptions {
  /** Resource to churn. */
  resource: AnyResourceDescriptor;
  /**
   * Namespaces objects are created in and picked from (ignored for cluster-scoped resources).
   * @default ["default"]
   */
  namespaces?: readonly string[];
  /**
   * Operation weights.
   * @default { create: 1, update: 4, delete: 1, recreate: 0.5, labelFlip: 1 }
   */
  mix?: ChurnMix;
  /**
   * Label flipped by `labelFlip` and set (to `"true"` or `"false"`) on created objects, so a
   * watch with `labelKey=true` sees objects enter and leave its selector.
   * @default "selected"
   */
  labelKey?: string;
  /**
   * Prefix of the names of created objects (`{prefix}-{n}`).
   * @default "churn"
   */
  namePrefix?: string;
}

/** Options of {@linkcode SimulatedCluster.startChurn}. */
export interface StartChurnOptions extends ChurnOptions {
  /** Operations per second on the cluster's clock (positive). */
  ratePerSecond: number;
  /**
   * Stops the churn when aborted.
   * @default undefined
   */
  signal?: AbortSignal;
}

/** How many operations of each kind ran. */
export interface ChurnStats {
  /** Total operations. */
  steps: number;
  /** Objects created. */
  create: number;
  /** Objects updated. */
  update: number;
  /** Objects deleted. */
  delete: number;
  /** Objects deleted and created again. */
  recreate: number;
  /** Label flips. */
  labelFlip: number;
}

/** A running churn started by {@linkcode SimulatedCluster.startChurn}. */
export interface ChurnHandle extends Disposable {
  /** Counts so far. */
  readonly stats: Readonly<ChurnStats>;
  /** Whether it still runs. */
  readonly running: boolean;
  /** Stops it (idempotent); its timer is cleared. */
  stop(): void;
}

const OPS = ["create", "update", "delete", "recreate", "labelFlip"] as const;
type Op = typeof OPS[number];

const DEFAULT_MIX: Required<ChurnMix> = {
  create: 1,
  update: 4,
  delete: 1,
  recreate: 0.5,
  labelFlip: 1,
};

/** Runs churn steps against the store (internal to the testing package). */
export class Churner {
  readonly stats: ChurnStats = {
    steps: 0,
    create: 0,
    update: 0,
    delete: 0,
    recreate: 0,
    labelFlip: 0,
  };
  readonly #store: Store;
  readonly #state: ResourceState;
  readonly #rng: Rng;
  readonly #namespaces: readonly (string | undefined)[];
  readonly #weights: number[];
  readonly #total: number;
  readonly #labelKey: string;
  readonly #prefix: string;
  readonly #fixture: (index: number, options?: { name?: string; namespace?: string }) => KubeObject;
  #keys: string[] = [];
  #index = new Map<string, number>();
  #counter = 0;

  constructor(store: Store, state: ResourceState, rng: Rng, options: ChurnOptions) {
    this.#store = store;
    this.#state = state;
    this.#rng = rng;
    const namespaces = options.namespaces ?? ["default"];
    if (!Array.isArray(namespaces) || namespaces.length === 0) {
      throw new TypeError("options.namespaces must be a non-empty array of namespace names");
    }
    this.#namespaces = state.info.desc.namespaced ? [...namespaces] : [undefined];
    const mix = { ...DEFAULT_MIX, ...options.mix };
    this.#weights = OPS.map((op) => requireNumber(mix[op], `options.mix.${op}`, { min: 0 }));
    this.#total = this.#weights.reduce((a, b) => a + b, 0);
    if (this.#total <= 0) throw new RangeError("options.mix needs at least one positive weight");
    this.#labelKey = options.labelKey ?? "selected";
    this.#prefix = options.namePrefix ?? "churn";
    this.#fixture = fixtureFor(state.info.desc.kind);
    const wanted = new Set(this.#namespaces);
    for (const v of state.objects.values()) {
      if (wanted.has(v.item.metadata.namespace)) this.#add(v.key);
    }
  }

  #add(key: string): void {
    if (this.#index.has(key)) return;
    this.#index.set(key, this.#keys.length);
    this.#keys.push(key);
  }

  #remove(key: string): void {
    const i = this.#index.get(key);
    if (i === undefined) return;
    const last = this.#keys.pop()!;
    if (i < this.#keys.length) {
      this.#keys[i] = last;
      this.#index.set(last, i);
    }
    this.#index.delete(key);
  }

  #pickOp(): Op {
    let r = this.#rng.next() * this.#total;
    for (let i = 0; i < OPS.length; i++) {
      r -= this.#weights[i]!;
      if (r < 0) return OPS[i]!;
    }
    return "create";
  }

  /** Picks a live object, dropping keys that someone else deleted meanwhile. */
  #pickObject(): Version | undefined {
    while (this.#keys.length > 0) {
      const key = this.#keys[this.#rng.int(this.#keys.length)]!;
      const v = this.#state.objects.get(key);
      if (v && v.item.metadata.deletionTimestamp === undefined) return v;
      this.#remove(key);
    }
    return undefined;
  }

  #create(name?: string, namespace?: string): void {
    const ns = namespace ?? this.#rng.pick(this.#namespaces);
    let n = name;
    if (n === undefined) {
      do {
        n = `${this.#prefix}-${this.#counter++}`;
      } while (this.#state.objects.has(keyOf(ns, n)));
    }
    const obj = this.#fixture(
      this.#counter,
      ns === undefined ? { name: n } : { name: n, namespace: ns },
    );
    const labels = { ...obj.metadata.labels };
    labels[this.#labelKey] = this.#rng.next() < 0.5 ? "true" : "false";
    obj.metadata.labels = labels;
    const v = this.#store.create(this.#state, obj, {
      writer: "control",
      adopt: true,
      trusted: true,
    });
    this.#add(v.key);
  }

  #rewrite(v: Version, change: (meta: Record<string, unknown>) => void): void {
    const meta: Record<string, unknown> = { ...v.item.metadata };
    change(meta);
    this.#store.update(this.#state, { ...v.item, metadata: meta }, {
      writer: "control",
      adopt: true,
      trusted: true,
    });
  }

  /** Runs one random operation. */
  step(): void {
    let op = this.#pickOp();
    const target = op === "create" ? undefined : this.#pickObject();
    if (target === undefined) op = "create";
    try {
      switch (op) {
        case "create":
          this.#create();
          break;
        case "update":
          this.#rewrite(target!, (meta) => {
            meta.annotations = {
              ...(meta.annotations as Record<string, string> | undefined),
              "kinformer.dev/churn-step": String(this.stats.steps),
            };
          });
          break;
        case "labelFlip":
          this.#rewrite(target!, (meta) => {
            const labels = { ...(meta.labels as Record<string, string> | undefined) };
            labels[this.#labelKey] = labels[this.#labelKey] === "true" ? "false" : "true";
            meta.labels = labels;
          });
          break;
        case "delete":
          this.#store.delete(
            this.#state,
            target!.item.metadata.namespace,
            target!.item.metadata.name!,
          );
          this.#remove(target!.key);
          break;
        case "recreate": {
          const { namespace, name } = target!.item.metadata;
          this.#store.delete(this.#state, namespace, name!);
          this.#remove(target!.key);
          if (!this.#state.objects.has(target!.key)) this.#create(name, namespace);
          break;
        }
      }
    } catch (error) {
      // A concurrent writer (the test itself) can make an operation conflict, and some objects
      // may not be deleted (the `default` namespace: 403); the object is then simply not
      // churned this step. Anything else is a real bug: rethrow.
      const code = error instanceof KubeApiError ? error.code : 0;
      if (code !== 409 && code !== 404 && code !== 403) {
        throw error;
      }
    }
    this.stats.steps++;
    this.stats[op]++;
  }
}

/** Runs `churner` at `ratePerSecond` on `clock` until stopped. */
export function startChurn(
  churner: Churner,
  clock: Clock,
  ratePerSecond: number,
  signal: AbortSignal | undefined,
  onStop: (handle: ChurnHandle) => void,
): ChurnHandle {
  const intervalMs = Math.max(10, 1000 / ratePerSecond);
  const start = clock.now();
  let done = 0;
  let timer: TimerHandle | undefined;
  let running = true;
  let stopListening = (): void => {};
  const tick = (): void => {
    timer = undefined;
    const due = Math.floor(((clock.now() - start) * ratePerSecond) / 1000);
    try {
      while (done < due && running) {
        churner.step();
        done++;
      }
    } catch (error) {
      handle.stop();
      throw error;
    }
    if (running) timer = clock.setTimeout(tick, intervalMs);
  };
  const handle: ChurnHandle = {
    get stats() {
      return churner.stats;
    },
    get running() {
      return running;
    },
    stop() {
      if (!running) return;
      running = false;
      if (timer !== undefined) clock.clearTimeout(timer);
      timer = undefined;
      stopListening();
      onStop(handle);
    },
    [Symbol.dispose]() {
      handle.stop();
    },
  };
  if (signal?.aborted) {
    running = false;
    return handle;
  }
  stopListening = onAbort(signal, () => handle.stop());
  timer = clock.setTimeout(tick, intervalMs);
  return handle;
}
