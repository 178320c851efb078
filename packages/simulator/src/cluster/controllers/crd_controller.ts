/**
 * The simulated cluster's apiextensions controllers, after kube-apiserver's: a
 * CustomResourceDefinition written through the API is served as soon as it is stored (its
 * served versions join discovery, OpenAPI and the router, as the `resources` option's do), and
 * its status follows, as the naming, establishing and finalizer controllers write it:
 * `acceptedNames` (spec.names with their defaults), `NamesAccepted` (`NoConflicts`, or
 * `<Plural|Singular|ShortNames|Kind|ListKind>Conflict` when another resource of the group holds
 * a name: then it is not served), `Established` (`InitialNamesAccepted`) and `storedVersions`.
 * A CRD carries the `customresourcecleanup.apiextensions.k8s.io` finalizer: deleting it marks
 * it `Terminating`, deletes its custom resources, then removes it, which stops serving them.
 * The custom resources of the `resources` option are CRDs too, stored from the start.
 *
 * Decisions: serving changes at once (in the write's turn), so a custom resource can be
 * created right after its CRD; the status is written a microtask later (a create answers
 * without conditions, as kube-apiserver's does), so `kubectl wait --for=condition=Established`
 * and a client's next request see it, with no timer. A CRD changed in what it serves (versions,
 * names, subresources, columns, schema) gets a new storage for its resources: their objects
 * are kept, their open watches end (clients re-list), as on a real server.
 * @module
 */
import type { KubeObject } from "@kinformer/kinformer/client";
import { customresourcedefinitions } from "@kinformer/kinformer/client";
import { KubeApiError } from "@kinformer/kinformer/client";
import type { Clock } from "@kinformer/kinformer/cache";
import { isRecord } from "@kinformer/kinformer/internal";
import type { Rng } from "@kinformer/kinformer/internal";
import { rfc3339, type Store, structuredCloneJson } from "../../store/object_store.ts";
import { Version } from "../../store/object_version.ts";
import type { ResourceState, StoredEvent } from "../../store/resource_state.ts";
import type { ServedApi } from "../../handlers/served_api.ts";
import { crdInfos, resourceId, type ResourceInfo } from "../../model/registry/served_resources.ts";
import { finalizersOf } from "../../store/deletion.ts";
import { updateTracker } from "../../handlers/writes/write_params.ts";

/** The finalizer that makes deleting a CRD delete its custom resources first. */
export const CRD_CLEANUP_FINALIZER = "customresourcecleanup.apiextensions.k8s.io";

/** The field manager of the status the API server writes. */
const API_SERVER = "kube-apiserver";

interface Condition {
  type: string;
  status: "True" | "False";
  lastTransitionTime: string;
  reason: string;
  message: string;
}

interface Names {
  plural: string;
  singular: string;
  kind: string;
  listKind: string;
  shortNames?: string[];
  categories?: string[];
}

/** What a served set looks like, to tell whether a CRD change changes what is served. */
function signature(infos: readonly ResourceInfo[]): string {
  return JSON.stringify(infos.map((i) => [
    i.id,
    i.desc,
    i.singular,
    i.shortNames,
    i.categories,
    i.statusSubresource,
    i.scaleSubresource,
    i.printerColumns ?? null,
    i.schema ?? null,
    i.view?.storage ?? null,
  ]));
}

function namesOf(spec: Record<string, unknown>): Names {
  const n = isRecord(spec.names) ? spec.names : {};
  const kind = String(n.kind ?? "");
  const out: Names = {
    plural: String(n.plural ?? ""),
    singular: typeof n.singular === "string" && n.singular ? n.singular : kind.toLowerCase(),
    kind,
    listKind: typeof n.listKind === "string" && n.listKind ? n.listKind : `${kind}List`,
  };
  if (Array.isArray(n.shortNames) && n.shortNames.length > 0) {
    out.shortNames = n.shortNames as string[];
  }
  if (Array.isArray(n.categories) && n.categories.length > 0) {
    out.categories = n.categories as string[];
  }
  return out;
}

/** The CRD spec that describes custom resources served from the start (one group/plural). */
function specOf(infos: readonly ResourceInfo[]): Record<string, unknown> {
  const first = infos.find((i) => i.view === undefined) ?? infos[0]!;
  const d = first.desc;
  return {
    group: d.group,
    names: {
      plural: d.resource,
      singular: first.singular,
      kind: d.kind,
      listKind: first.listKind,
      ...(first.shortNames.length > 0 ? { shortNames: [...first.shortNames] } : {}),
      ...(first.categories.length > 0 ? { categories: [...first.categories] } : {}),
    },
    scope: d.namespaced ? "Namespaced" : "Cluster",
    versions: infos.map((i) => {
      const subresources = {
        ...(i.statusSubresource ? { status: {} } : {}),
        ...(i.scaleSubresource
          ? {
            scale: {
              specReplicasPath: ".spec.replicas",
              statusReplicasPath: ".status.replicas",
            },
          }
          : {}),
      };
      return {
        name: i.desc.version,
        served: true,
        storage: i === first,
        ...(Object.keys(subresources).length > 0 ? { subresources } : {}),
        ...(i.printerColumns === undefined
          ? {}
          : { additionalPrinterColumns: i.printerColumns.map((c) => ({ ...c })) }),
        ...(i.schema === undefined ? {} : { schema: { openAPIV3Schema: i.schema } }),
      };
    }),
    conversion: { strategy: "None" },
  };
}

/** Runs the CRD controllers of a simulated cluster. */
export class CrdController {
  readonly #store: Store;
  readonly #api: ServedApi;
  readonly #clock: Clock;
  readonly #state: ResourceState;
  readonly #signatures = new Map<string, string>();
  readonly #pending = new Set<string>();
  #scheduled = false;
  #closed = false;

  /**
   * Stores the CRDs of the custom resources served from the start (`uids` makes their uids),
   * serves what CRDs exist, and listens to CRD changes.
   */
  constructor(store: Store, api: ServedApi, clock: Clock, uids: Rng) {
    this.#store = store;
    this.#api = api;
    this.#clock = clock;
    const state = store.state(resourceId(customresourcedefinitions));
    // Always served (SERVED_RESOURCES has it).
    if (state === undefined) throw new Error("the simulated cluster serves no CRDs");
    this.#state = state;
    this.#bootstrap(state, uids);
    state.listeners.add({ offer: (event) => this.#observe(event) });
  }

  /** Stops: pending status writes are dropped, later changes ignored. */
  close(): void {
    this.#closed = true;
    this.#pending.clear();
  }

  /** The CRDs of the custom resources served from the start, as objects there before history. */
  #bootstrap(state: ResourceState, uids: Rng): void {
    const groups = new Map<string, ResourceInfo[]>();
    for (const info of this.#api.resources) {
      if (info.builtin) continue;
      const name = `${info.desc.resource}.${info.desc.group}`;
      const list = groups.get(name) ?? [];
      list.push(info);
      groups.set(name, list);
    }
    const now = rfc3339(this.#clock.now());
    for (const [name, infos] of groups) {
      const item = {
        metadata: {
          name,
          uid: uids.uuid(),
          resourceVersion: String(this.#store.rv),
          generation: 1,
          creationTimestamp: now,
          finalizers: [CRD_CLEANUP_FINALIZER],
        },
        spec: specOf(infos),
      } as unknown as KubeObject;
      this.#api.adopt(name, infos);
      item.status = this.#status(item, undefined);
      state.objects.set(name, new Version(state.info, name, this.#store.rv, item));
      this.#signatures.set(name, signature(crdInfos(item as never, name)));
    }
  }

  #observe(event: StoredEvent): void {
    if (this.#closed) return;
    const name = event.version.item.metadata.name!;
    this.#serve(name);
    this.#queue(name);
  }

  /** The names `crd` asks for that another served resource of its group holds, if any. */
  #conflict(name: string, names: Names, group: string): Condition | undefined {
    const resources = new Set<string>();
    const kinds = new Set<string>();
    const own = new Set(this.#api.owned(name).map((i) => i.id));
    for (const i of this.#api.resources) {
      if ((i.desc.group ?? "") !== group || own.has(i.id)) continue;
      resources.add(i.desc.resource).add(i.singular);
      for (const s of i.shortNames) resources.add(s);
      kinds.add(i.desc.kind).add(i.listKind);
    }
    const taken = (reason: string, value: string): Condition => ({
      type: "NamesAccepted",
      status: "False",
      lastTransitionTime: "",
      reason,
      message: `${JSON.stringify(value)} is already in use`,
    });
    // Every name is checked, as the naming controller does; the last conflict is the reason.
    let found: Condition | undefined;
    if (resources.has(names.plural)) found = taken("PluralConflict", names.plural);
    if (resources.has(names.singular)) found = taken("SingularConflict", names.singular);
    const short = names.shortNames?.find((s) => resources.has(s));
    if (short !== undefined) found = taken("ShortNamesConflict", short);
    if (kinds.has(names.kind)) found = taken("KindConflict", names.kind);
    if (kinds.has(names.listKind)) found = taken("ListKindConflict", names.listKind);
    return found;
  }

  /** Serves what the stored CRD `name` says (nothing when it is gone or its names conflict). */
  #serve(name: string): void {
    const v = this.#state.objects.get(name);
    if (v === undefined) {
      const group = this.#api.owned(name)[0]?.desc.group;
      this.#signatures.delete(name);
      this.#api.replace(name, []);
      // Another CRD of the group may have been refused a name this one held.
      if (group !== undefined) {
        for (const other of this.#state.objects.values()) {
          const spec = other.item.spec;
          if (isRecord(spec) && spec.group === group) this.#serveAndQueue(other.key);
        }
      }
      return;
    }
    const spec = v.item.spec;
    if (!isRecord(spec)) return;
    const serving = this.#api.owned(name).length > 0;
    if (!serving && this.#conflict(name, namesOf(spec), String(spec.group)) !== undefined) return;
    let infos: ResourceInfo[];
    try {
      infos = crdInfos(v.item as never, name);
    } catch {
      return; // not servable (checked on write; a control-API write may skip the check)
    }
    const sig = signature(infos);
    if (this.#signatures.get(name) === sig) return;
    this.#signatures.set(name, sig);
    this.#api.replace(name, infos);
    for (const info of infos) {
      if (info.view !== undefined) continue;
      // A custom resource gone while its CRD is terminating: the cleanup looks again.
      this.#store.state(info.id)?.listeners.add({
        offer: (e) => {
          if (e.type === "DELETED" && this.#terminating(name)) this.#queue(name);
        },
      });
    }
  }

  #serveAndQueue(name: string): void {
    if (this.#api.owned(name).length === 0) this.#serve(name);
    this.#queue(name);
  }

  #terminating(name: string): boolean {
    return this.#state.objects.get(name)?.item.metadata.deletionTimestamp !== undefined;
  }

  #queue(name: string): void {
    if (this.#closed) return;
    this.#pending.add(name);
    if (this.#scheduled) return;
    this.#scheduled = true;
    queueMicrotask(() => {
      this.#scheduled = false;
      const names = [...this.#pending];
      this.#pending.clear();
      for (const n of names) {
        if (this.#closed) return;
        this.#sync(n);
      }
    });
  }

  /** What the status of `item` should be now (`before`: the stored status). */
  #status(item: KubeObject, before: unknown): Record<string, unknown> {
    const spec = item.spec as Record<string, unknown>;
    const name = item.metadata.name!;
    const old = isRecord(before) ? before : {};
    const oldConditions = Array.isArray(old.conditions) ? old.conditions as Condition[] : [];
    const now = rfc3339(this.#clock.now());
    const condition = (c: Omit<Condition, "lastTransitionTime">): Condition => {
      const prev = oldConditions.find((o) => o.type === c.type);
      return {
        type: c.type,
        status: c.status,
        lastTransitionTime: prev !== undefined && prev.status === c.status
          ? prev.lastTransitionTime
          : now,
        reason: c.reason,
        message: c.message,
      };
    };
    const names = namesOf(spec);
    const served = this.#api.owned(name).length > 0;
    const conflict = served ? undefined : this.#conflict(name, names, String(spec.group));
    const conditions: Condition[] = [
      condition(
        conflict ?? {
          type: "NamesAccepted",
          status: "True",
          reason: "NoConflicts",
          message: "no conflicts found",
        },
      ),
      condition(
        served
          ? {
            type: "Established",
            status: "True",
            reason: "InitialNamesAccepted",
            message: "the initial names have been accepted",
          }
          : {
            type: "Established",
            status: "False",
            reason: "NotAccepted",
            message: "not all names are accepted",
          },
      ),
    ];
    if (item.metadata.deletionTimestamp !== undefined) {
      conditions.push(condition({
        type: "Terminating",
        status: "True",
        reason: "InstanceDeletionInProgress",
        message: "CustomResource deletion is in progress",
      }));
    }
    const stored = new Set<string>(
      Array.isArray(old.storedVersions) ? old.storedVersions as string[] : [],
    );
    const versions = Array.isArray(spec.versions) ? spec.versions : [];
    for (const v of versions) {
      if (isRecord(v) && v.storage === true && typeof v.name === "string") stored.add(v.name);
    }
    const accepted = served
      ? names
      : isRecord(old.acceptedNames)
      ? old.acceptedNames
      : { plural: "", kind: "" };
    return { conditions, acceptedNames: accepted, storedVersions: [...stored] };
  }

  /** Brings the status and finalizer of CRD `name` up to date, and cleans up a deleted one. */
  #sync(name: string): void {
    const state = this.#state;
    let v = state.objects.get(name);
    if (v === undefined) return;
    const deleting = v.item.metadata.deletionTimestamp !== undefined;
    if (!deleting && !finalizersOf(v.item).includes(CRD_CLEANUP_FINALIZER)) {
      v = this.#write(state, v, (item) => {
        item.metadata.finalizers = [...finalizersOf(item), CRD_CLEANUP_FINALIZER];
      }, undefined) ?? v;
    }
    const status = this.#status(v.item, v.item.status);
    v = this.#write(state, v, (item) => {
      item.status = status;
    }, "status") ?? v;
    if (deleting && finalizersOf(v.item).includes(CRD_CLEANUP_FINALIZER)) this.#cleanup(v);
  }

  /** Deletes the custom resources of a deleted CRD; when none is left, lets the CRD go. */
  #cleanup(v: Version): void {
    const name = v.item.metadata.name!;
    let left = 0;
    for (const info of this.#api.owned(name)) {
      if (info.view !== undefined) continue;
      const state = this.#store.state(info.id);
      if (state === undefined) continue;
      for (const cr of [...state.objects.values()]) {
        left++;
        if (cr.item.metadata.deletionTimestamp !== undefined) continue;
        try {
          const gone = this.#store.delete(
            state,
            cr.item.metadata.namespace,
            cr.item.metadata.name!,
            {
              preconditions: { uid: cr.item.metadata.uid },
              propagationPolicy: "Background",
            },
          );
          if (gone.removed) left--;
        } catch (error) {
          if (!(error instanceof KubeApiError)) throw error;
        }
      }
    }
    if (left > 0) return; // the rest have finalizers: their removal queues this again
    const current = this.#state.objects.get(name);
    if (current === undefined) return;
    this.#write(this.#state, current, (item) => {
      item.metadata.finalizers = finalizersOf(item).filter((f) => f !== CRD_CLEANUP_FINALIZER);
    }, undefined);
  }

  /** A write of the API server's own (its managed fields recorded); undefined when refused. */
  #write(
    state: ResourceState,
    current: Version,
    change: (item: KubeObject) => void,
    subresource: "status" | undefined,
  ): Version | undefined {
    const item = structuredCloneJson(current.item);
    change(item);
    const writer = {
      manager: API_SERVER,
      operation: "Update" as const,
      subresource,
      apiVersion: state.info.apiVersion,
      time: rfc3339(this.#clock.now()),
    };
    try {
      return this.#store.update(state, item, {
        writer: "control",
        subresource,
        trusted: true,
        fields: updateTracker(writer, subresource === "status" ? "status" : "main"),
      });
    } catch (error) {
      if (error instanceof KubeApiError) return undefined;
      throw error;
    }
  }
}
