/**
 * Owner references as the garbage collector reads them: which served resource an owner
 * reference names (by group and kind), and an index from owner uid to the objects that name it,
 * kept current from the store's changes.
 * @module
 */
import type { KubeObject } from "@kinformer/kinformer/client";
import { isRecord } from "@kinformer/kinformer/internal";
import type { ResourceState } from "../../store/resource_state.ts";

/** One object in the store: its resource and key. */
export interface ObjectRef {
  readonly state: ResourceState;
  readonly key: string;
}

/** A stable string for an {@linkcode ObjectRef} (map keys, queue entries). */
export function refId(state: ResourceState, key: string): string {
  return `${state.info.id} ${key}`;
}

/** An owner reference, as much of it as the garbage collector uses. */
export interface OwnerReference {
  readonly apiVersion: string;
  readonly kind: string;
  readonly name: string;
  readonly uid: string;
  readonly blockOwnerDeletion: boolean;
}

/** The well-formed entries of `metadata.ownerReferences`. */
export function ownerReferences(item: KubeObject): OwnerReference[] {
  const refs = item.metadata.ownerReferences;
  if (!Array.isArray(refs)) return [];
  const out: OwnerReference[] = [];
  for (const r of refs as unknown[]) {
    if (!isRecord(r)) continue;
    const { apiVersion, kind, name, uid } = r;
    if (
      typeof apiVersion !== "string" || typeof kind !== "string" || typeof name !== "string" ||
      typeof uid !== "string" || uid === ""
    ) continue;
    out.push({ apiVersion, kind, name, uid, blockOwnerDeletion: r.blockOwnerDeletion === true });
  }
  return out;
}

/** Finds the served resource of an owner reference by group and kind (the version may differ). */
export class KindResolver {
  readonly #states: () => Iterable<ResourceState>;
  #byGroupKind = new Map<string, ResourceState>();

  /** `states`: the states served now (read again when the served resources change). */
  constructor(states: () => Iterable<ResourceState>) {
    this.#states = states;
    this.#rebuild();
  }

  #rebuild(): void {
    this.#byGroupKind = new Map();
    for (const state of this.#states()) {
      const desc = state.info.desc;
      if (
        state.info.view === undefined || !this.#byGroupKind.has(`${desc.group ?? ""}/${desc.kind}`)
      ) {
        this.#byGroupKind.set(`${desc.group ?? ""}/${desc.kind}`, state);
      }
    }
  }

  /** The resource `ref` names, or undefined when the cluster does not serve its kind. */
  resolve(ref: OwnerReference): ResourceState | undefined {
    const slash = ref.apiVersion.indexOf("/");
    const group = slash < 0 ? "" : ref.apiVersion.slice(0, slash);
    const key = `${group}/${ref.kind}`;
    const found = this.#byGroupKind.get(key);
    // A CRD may have started or stopped serving a kind since: look again.
    if (found === undefined || !this.#serves(found)) this.#rebuild();
    return this.#byGroupKind.get(key);
  }

  #serves(state: ResourceState): boolean {
    for (const s of this.#states()) if (s === state) return true;
    return false;
  }
}

/**
 * Which objects name which owner uid (only references to served kinds: an owner the cluster
 * cannot hold never goes away).
 */
export class DependentsIndex {
  readonly #dependents = new Map<string, Map<string, ObjectRef>>();
  readonly #owners = new Map<string, string[]>();

  /** Records the owners `item` (at `state`/`key`) names now; undefined `item`: it is gone. */
  set(state: ResourceState, key: string, uids: readonly string[]): void {
    const id = refId(state, key);
    const before = this.#owners.get(id) ?? [];
    for (const uid of before) {
      if (uids.includes(uid)) continue;
      const deps = this.#dependents.get(uid);
      deps?.delete(id);
      if (deps?.size === 0) this.#dependents.delete(uid);
    }
    for (const uid of uids) {
      let deps = this.#dependents.get(uid);
      if (deps === undefined) this.#dependents.set(uid, deps = new Map());
      deps.set(id, { state, key });
    }
    if (uids.length === 0) this.#owners.delete(id);
    else this.#owners.set(id, [...uids]);
  }

  /** The objects that name `uid` as an owner. */
  dependentsOf(uid: string | undefined): ObjectRef[] {
    if (uid === undefined) return [];
    return [...(this.#dependents.get(uid)?.values() ?? [])];
  }

  /** Whether anything names `uid` as an owner. */
  hasDependents(uid: string | undefined): boolean {
    return uid !== undefined && this.#dependents.has(uid);
  }
}
