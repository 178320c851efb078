/**
 * The simulated cluster's namespace controller, after kube-controller-manager's: a namespace
 * being deleted (its `deletionTimestamp` set, `kubernetes` still in `spec.finalizers`) has its
 * contents deleted (in the background; contents with finalizers wait for them), its
 * `status.conditions` kept as the real controller words them (content remaining, finalizers
 * remaining, ...), and once it is empty it loses the `kubernetes` finalizer and goes.
 * @module
 */
import type { KubeObject } from "@kinformer/kinformer/client";
import { KubeApiError } from "@kinformer/kinformer/client";
import { isRecord } from "@kinformer/kinformer/internal";
import { finalizersOf } from "../../store/deletion.ts";
import {
  isNamespaceResource,
  NAMESPACE_FINALIZER,
  specFinalizers,
} from "../../store/namespace_lifecycle.ts";
import { rfc3339, type Store } from "../../store/object_store.ts";
import type { Version } from "../../store/object_version.ts";
import {
  namespaceRange,
  type ResourceState,
  type StoredEvent,
} from "../../store/resource_state.ts";
import type { ControllerWriter } from "./controller_writes.ts";
import type { ObjectRef } from "./owner_references.ts";
import type { Clock } from "@kinformer/kinformer/cache";

/** One `status.conditions` entry of a namespace. */
interface NamespaceCondition {
  type: string;
  status: "True" | "False";
  lastTransitionTime: string;
  reason: string;
  message: string;
}

/** The condition types the namespace controller keeps, in its order, with their "all is well". */
const CONDITIONS: ReadonlyArray<readonly [type: string, reason: string, message: string]> = [
  [
    "NamespaceDeletionDiscoveryFailure",
    "ResourcesDiscovered",
    "All resources successfully discovered",
  ],
  [
    "NamespaceDeletionGroupVersionParsingFailure",
    "ParsedGroupVersions",
    "All legacy kube types successfully parsed",
  ],
  [
    "NamespaceDeletionContentFailure",
    "ContentDeleted",
    "All content successfully deleted, may be waiting on finalization",
  ],
  ["NamespaceContentRemaining", "ContentRemoved", "All content successfully removed"],
  ["NamespaceFinalizersRemaining", "ContentRemoved", "All content successfully removed"],
];

/** Whether `v` is a namespace the controller has to empty. */
function terminating(v: Version): boolean {
  return v.item.metadata.deletionTimestamp !== undefined &&
    specFinalizers(v.item).includes(NAMESPACE_FINALIZER);
}

/** The namespace controller. */
export class NamespaceController {
  readonly #store: Store;
  readonly #writer: ControllerWriter;
  readonly #clock: Clock;
  readonly #enqueue: (ref: ObjectRef) => void;
  readonly #namespaces: ResourceState | undefined;

  constructor(
    store: Store,
    writer: ControllerWriter,
    clock: Clock,
    enqueue: (ref: ObjectRef) => void,
  ) {
    this.#store = store;
    this.#writer = writer;
    this.#clock = clock;
    this.#enqueue = enqueue;
    this.#namespaces = [...store.states].find((s) => isNamespaceResource(s.info));
  }

  /** Queues the namespace a change concerns: a namespace being deleted, or one's contents. */
  observe(state: ResourceState, event: StoredEvent): void {
    const namespaces = this.#namespaces;
    if (namespaces === undefined) return;
    if (state === namespaces) {
      if (event.type !== "DELETED" && terminating(event.version)) {
        this.#enqueue({ state, key: event.version.key });
      }
      return;
    }
    const ns = event.version.item.metadata.namespace;
    if (!state.info.desc.namespaced || ns === undefined) return;
    const owner = namespaces.objects.get(ns);
    if (owner !== undefined && terminating(owner)) this.#enqueue({ state: namespaces, key: ns });
  }

  /** Whether `ref` is a namespace this controller handles. */
  handles(ref: ObjectRef): boolean {
    return ref.state === this.#namespaces;
  }

  /** Deletes what is left in a terminating namespace, reports it, and finalizes when empty. */
  process(ref: ObjectRef): void {
    const state = ref.state;
    const ns = state.objects.get(ref.key);
    if (ns === undefined || !terminating(ns)) return;
    const name = ns.item.metadata.name!;
    const remaining = new Map<string, number>();
    const finalizers = new Map<string, number>();
    for (const content of this.#store.states) {
      if (!content.info.desc.namespaced) continue;
      for (const v of this.#contents(content, name)) {
        if (v.item.metadata.deletionTimestamp !== undefined) continue;
        try {
          this.#store.delete(content, name, v.item.metadata.name!, {
            preconditions: { uid: v.item.metadata.uid },
            propagationPolicy: "Background",
          });
        } catch (error) {
          if (!(error instanceof KubeApiError)) throw error;
        }
      }
      const left = this.#contents(content, name);
      if (left.length === 0) continue;
      const desc = content.info.desc;
      remaining.set(`${desc.resource}.${desc.group ?? ""}`, left.length);
      for (const v of left) {
        for (const f of new Set(finalizersOf(v.item))) {
          finalizers.set(f, (finalizers.get(f) ?? 0) + 1);
        }
      }
    }
    const current = state.objects.get(ref.key);
    if (current === undefined) return;
    this.#report(state, current, remaining, finalizers);
    if (remaining.size > 0) return; // the contents' changes queue this namespace again
    const after = state.objects.get(ref.key);
    if (after === undefined) return;
    this.#writer.update(state, after, (item) => {
      const spec = (item as Record<string, unknown>).spec as Record<string, unknown>;
      const kept = specFinalizers(item).filter((f) => f !== NAMESPACE_FINALIZER);
      if (kept.length > 0) spec.finalizers = kept;
      else delete spec.finalizers;
    });
  }

  /** The objects of `state` in `namespace`, in key order. */
  #contents(state: ResourceState, namespace: string): Version[] {
    const sorted = state.snapshotAt(this.#store.rv)!;
    const [from, to] = namespaceRange(sorted, namespace);
    return sorted.slice(from, to);
  }

  /** Writes the deletion conditions into the namespace's status when they changed. */
  #report(
    state: ResourceState,
    ns: Version,
    remaining: ReadonlyMap<string, number>,
    finalizers: ReadonlyMap<string, number>,
  ): void {
    const now = rfc3339(this.#clock.now());
    const status = (ns.item as Record<string, unknown>).status;
    const old = isRecord(status) && Array.isArray(status.conditions)
      ? status.conditions.filter(isRecord)
      : [];
    const wanted = new Map<string, Omit<NamespaceCondition, "lastTransitionTime">>();
    for (const [type, reason, message] of CONDITIONS) {
      wanted.set(type, { type, status: "False", reason, message });
    }
    if (remaining.size > 0) {
      const list = [...remaining].map(([r, n]) => `${r} has ${n} resource instances`).sort();
      wanted.set("NamespaceContentRemaining", {
        type: "NamespaceContentRemaining",
        status: "True",
        reason: "SomeResourcesRemain",
        message: `Some resources are remaining: ${list.join(", ")}`,
      });
    }
    if (finalizers.size > 0) {
      const list = [...finalizers].map(([f, n]) => `${f} in ${n} resource instances`).sort();
      wanted.set("NamespaceFinalizersRemaining", {
        type: "NamespaceFinalizersRemaining",
        status: "True",
        reason: "SomeFinalizerRemain",
        message: `Some finalizers are remaining: ${list.join(", ")}`,
      });
    }
    let changed = false;
    const conditions: Record<string, unknown>[] = old.map((c) => ({ ...c }));
    for (const c of wanted.values()) {
      const existing = conditions.find((o) => o.type === c.type);
      if (existing === undefined) {
        const { type, status, reason, message } = c;
        conditions.push({ type, status, lastTransitionTime: now, reason, message });
        changed = true;
      } else if (
        existing.status !== c.status || existing.reason !== c.reason ||
        existing.message !== c.message
      ) {
        if (existing.status !== c.status) existing.lastTransitionTime = now;
        Object.assign(existing, { status: c.status, reason: c.reason, message: c.message });
        changed = true;
      }
    }
    if (!changed) return;
    this.#writer.update(state, ns, (item: KubeObject) => {
      const obj = item as Record<string, unknown>;
      obj.status = { ...(isRecord(obj.status) ? obj.status : {}), conditions };
    }, "status");
  }
}
