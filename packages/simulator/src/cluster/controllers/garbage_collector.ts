/**
 * The simulated cluster's garbage collector, after kube-controller-manager's: it deletes
 * objects whose owners are gone (an owner reference whose uid does not match the live owner
 * counts as gone), carries out Foreground deletions (the owner keeps its `foregroundDeletion`
 * finalizer until no dependent with `blockOwnerDeletion: true` is left) and Orphan deletions
 * (dependents lose their reference to the owner, then the owner its `orphan` finalizer).
 * Dependents' finalizers are honoured: such a dependent only gets a `deletionTimestamp`.
 *
 * Owners of kinds the cluster does not serve are never looked up (as the real collector cannot
 * map them either): their dependents stay.
 * @module
 */
import { KubeApiError } from "@kinformer/kinformer/client";
import type { KubeObject } from "@kinformer/kinformer/client";
import {
  finalizersOf,
  FOREGROUND_FINALIZER,
  ORPHAN_FINALIZER,
  type PropagationPolicy,
  withFinalizers,
} from "../../store/deletion.ts";
import type { Store } from "../../store/object_store.ts";
import type { Version } from "../../store/object_version.ts";
import type { ResourceState, StoredEvent } from "../../store/resource_state.ts";
import {
  DependentsIndex,
  KindResolver,
  type ObjectRef,
  type OwnerReference,
  ownerReferences,
} from "./owner_references.ts";
import type { ControllerWriter } from "./controller_writes.ts";

/** How the collector sees one owner reference of an object. */
type OwnerState = "solid" | "dangling" | "waiting";

/** Whether `v` is being deleted with `finalizer` still on it. */
function deletingWith(v: Version, finalizer: string): boolean {
  return v.item.metadata.deletionTimestamp !== undefined &&
    finalizersOf(v.item).includes(finalizer);
}

/** The garbage collector: told of every change, it queues what needs a look. */
export class GarbageCollector {
  readonly #store: Store;
  readonly #writer: ControllerWriter;
  readonly #resolver: KindResolver;
  readonly #index = new DependentsIndex();
  readonly #enqueue: (ref: ObjectRef) => void;

  constructor(store: Store, writer: ControllerWriter, enqueue: (ref: ObjectRef) => void) {
    this.#store = store;
    this.#writer = writer;
    this.#resolver = new KindResolver(() => store.states);
    this.#enqueue = enqueue;
  }

  /** The owner `ref` (of an object in `namespace`) names, if it exists with that uid. */
  #owner(ref: OwnerReference, namespace: string | undefined): Version | undefined {
    const state = this.#resolver.resolve(ref);
    if (state === undefined) return undefined;
    if (state.info.desc.namespaced && namespace === undefined) return undefined;
    const v = state.objects.get(state.info.desc.namespaced ? `${namespace}/${ref.name}` : ref.name);
    return v?.item.metadata.uid === ref.uid ? v : undefined;
  }

  #classify(ref: OwnerReference, namespace: string | undefined): OwnerState {
    if (this.#resolver.resolve(ref) === undefined) return "solid"; // cannot be looked up
    const owner = this.#owner(ref, namespace);
    if (owner === undefined) return "dangling";
    return deletingWith(owner, FOREGROUND_FINALIZER) ? "waiting" : "solid";
  }

  /** Takes note of a change: keeps the index current and queues what the change concerns. */
  observe(state: ResourceState, event: StoredEvent): void {
    const v = event.version;
    const item = v.item;
    const namespace = item.metadata.namespace;
    const refs = ownerReferences(item).filter((r) => this.#resolver.resolve(r) !== undefined);
    if (event.type === "DELETED") {
      this.#index.set(state, v.key, []);
      // Its dependents may now be dangling; owners waiting for it may be free to go.
      for (const dep of this.#index.dependentsOf(item.metadata.uid)) this.#enqueue(dep);
      for (const ref of refs) {
        const owner = this.#owner(ref, namespace);
        if (owner !== undefined && owner.item.metadata.deletionTimestamp !== undefined) {
          this.#enqueue({ state: this.#resolver.resolve(ref)!, key: owner.key });
        }
      }
      return;
    }
    this.#index.set(state, v.key, refs.map((r) => r.uid));
    if (deletingWith(v, ORPHAN_FINALIZER) || deletingWith(v, FOREGROUND_FINALIZER)) {
      this.#enqueue({ state, key: v.key });
      return;
    }
    const before = event.prev === undefined ? [] : ownerReferences(event.prev.item);
    if (event.type === "MODIFIED") this.#unblocked(before, refs, namespace);
    if (item.metadata.deletionTimestamp !== undefined) return;
    const changed = event.type === "ADDED" || JSON.stringify(before) !== JSON.stringify(refs);
    if (changed && refs.some((r) => this.#classify(r, namespace) !== "solid")) {
      this.#enqueue({ state, key: v.key });
    }
  }

  /** Queues the Foreground owners a dependent stopped blocking (reference removed or unblocked). */
  #unblocked(
    before: readonly OwnerReference[],
    after: readonly OwnerReference[],
    namespace: string | undefined,
  ): void {
    for (const ref of before) {
      if (!ref.blockOwnerDeletion) continue;
      if (after.some((r) => r.uid === ref.uid && r.blockOwnerDeletion)) continue;
      const owner = this.#owner(ref, namespace);
      if (owner !== undefined && deletingWith(owner, FOREGROUND_FINALIZER)) {
        this.#enqueue({ state: this.#resolver.resolve(ref)!, key: owner.key });
      }
    }
  }

  /** Looks at one object: collects it, or carries out its Orphan or Foreground deletion. */
  process(ref: ObjectRef): void {
    const v = ref.state.objects.get(ref.key);
    if (v === undefined) return;
    if (deletingWith(v, ORPHAN_FINALIZER)) return this.#orphanDependents(ref.state, v);
    if (deletingWith(v, FOREGROUND_FINALIZER)) return this.#deleteDependents(ref.state, v);
    if (v.item.metadata.deletionTimestamp !== undefined) return;
    const namespace = v.item.metadata.namespace;
    const refs = ownerReferences(v.item);
    const states = refs.map((r) => this.#classify(r, namespace));
    const solid = states.includes("solid");
    const gone = new Set(refs.filter((_, i) => states[i] !== "solid").map((r) => r.uid));
    if (gone.size === 0) return;
    if (solid) {
      // Still owned: it only loses its references to owners that are gone or going.
      this.#writer.update(ref.state, v, (item) => dropOwnerReferences(item, gone));
      return;
    }
    let policy: PropagationPolicy = "Background";
    if (states.includes("waiting") && this.#index.hasDependents(v.item.metadata.uid)) {
      // Deleted in the foreground too; a dependent already deleting its own dependents would
      // wait for this one while it waits for that one: its references stop blocking first.
      const cycle = this.#index.dependentsOf(v.item.metadata.uid).some((d) => {
        const dep = d.state.objects.get(d.key);
        return dep !== undefined && deletingWith(dep, FOREGROUND_FINALIZER);
      });
      if (cycle) {
        this.#writer.update(ref.state, v, (item) => {
          item.metadata.ownerReferences = (item.metadata.ownerReferences ?? []).map((r) =>
            r.blockOwnerDeletion ? { ...r, blockOwnerDeletion: false } : r
          );
        });
      }
      policy = "Foreground";
    } else if (finalizersOf(v.item).includes(ORPHAN_FINALIZER)) {
      policy = "Orphan";
    } else if (finalizersOf(v.item).includes(FOREGROUND_FINALIZER)) {
      policy = "Foreground";
    }
    this.#delete(ref.state, ref.key, policy);
  }

  #delete(state: ResourceState, key: string, policy: PropagationPolicy): void {
    const v = state.objects.get(key);
    if (v === undefined) return;
    const { namespace, name, uid } = v.item.metadata;
    try {
      this.#store.delete(state, namespace, name!, {
        preconditions: { uid },
        propagationPolicy: policy,
      });
    } catch (error) {
      if (!(error instanceof KubeApiError)) throw error;
      // Gone or replaced meanwhile: the change that did it queues what is needed.
    }
  }

  /** Orphan: every dependent loses its reference to `owner`, then `owner` its finalizer. */
  #orphanDependents(state: ResourceState, owner: Version): void {
    const uid = owner.item.metadata.uid!;
    for (const dep of this.#index.dependentsOf(uid)) {
      const v = dep.state.objects.get(dep.key);
      if (v === undefined) continue;
      this.#writer.update(dep.state, v, (item) => dropOwnerReferences(item, new Set([uid])));
    }
    this.#removeFinalizer(state, owner.key, ORPHAN_FINALIZER);
  }

  /**
   * Foreground: every dependent is collected; once none that blocks `owner` is left, `owner`
   * loses its finalizer.
   */
  #deleteDependents(state: ResourceState, owner: Version): void {
    const uid = owner.item.metadata.uid!;
    let blocking = false;
    for (const dep of this.#index.dependentsOf(uid)) {
      const v = dep.state.objects.get(dep.key);
      if (v === undefined) continue;
      if (ownerReferences(v.item).some((r) => r.uid === uid && r.blockOwnerDeletion)) {
        blocking = true;
      }
      if (v.item.metadata.deletionTimestamp === undefined) this.#enqueue(dep);
    }
    if (!blocking) this.#removeFinalizer(state, owner.key, FOREGROUND_FINALIZER);
  }

  #removeFinalizer(state: ResourceState, key: string, finalizer: string): void {
    const v = state.objects.get(key);
    if (v === undefined) return;
    this.#writer.update(state, v, (item) => {
      const kept = finalizersOf(item).filter((f) => f !== finalizer);
      item.metadata = withFinalizers(item.metadata, kept) as KubeObject["metadata"];
    });
  }
}

/** Removes the owner references to `uids` from `item` (the field goes when none is left). */
function dropOwnerReferences(item: KubeObject, uids: ReadonlySet<string>): void {
  const kept = (item.metadata.ownerReferences ?? []).filter((r) =>
    !(typeof r?.uid === "string" && uids.has(r.uid))
  );
  if (kept.length > 0) item.metadata.ownerReferences = kept;
  else delete item.metadata.ownerReferences;
}
