/**
 * The simulated cluster's object store: one {@linkcode ResourceState} per resource (current
 * objects and their bounded history), one global resourceVersion counter, and the write rules
 * of the API server (uids, generation, conflicts, finalizers).
 * @module
 */
import { labelKeyProblem, labelValueProblem } from "@kinformer/kinformer/internal";
import type { KubeObject } from "@kinformer/kinformer/client";
import type { Clock } from "@kinformer/kinformer/cache";
import { Rng } from "@kinformer/kinformer/internal";
import { describeValue, isRecord } from "@kinformer/kinformer/internal";
import { setOwn } from "../core/own_properties.ts";
import type { ResourceInfo } from "../model/registry/served_resources.ts";
import { keyOf } from "@kinformer/kinformer/internal";
import { Version } from "./object_version.ts";
import { ResourceState } from "./resource_state.ts";
import { unservable } from "../core/servable_json.ts";
import {
  type DeletionRequest,
  finalizersAfterDelete,
  finalizersOf,
  markDeleting,
  sameFinalizers,
} from "./deletion.ts";
import {
  checkMortal,
  INITIAL_NAMESPACES,
  isNamespaceResource,
  isTerminating,
  namespaceDefaults,
  namespaceNotFound,
  namespaceTerminating,
  specFinalizers,
  withPhaseTerminating,
} from "./namespace_lifecycle.ts";
import {
  alreadyExists,
  badRequest,
  conflict,
  fail,
  type FieldProblem,
  invalid,
  objectNotFound,
  uidConflict,
} from "../core/status.ts";
import { isDnsLabel, isDnsSubdomain } from "@kinformer/kinformer/internal";
import { normalizeBuiltIn } from "../model/defaults/builtin_normalization.ts";
import { applyBuiltInDefaults } from "../model/defaults/builtin_defaults.ts";
import { setManagedFields, type WriteExtras, type Writer } from "./write_extras.ts";

/** RFC 3339 time without fractional seconds, as Kubernetes writes timestamps. */
export function rfc3339(ms: number): string {
  return new Date(ms).toISOString().replace(/\.\d{3}Z$/, "Z");
}

const GENERATE_ALPHABET = "bcdfghjklmnpqrstvwxz2456789";
/** Metadata fields the server sets itself: a write's own values for them are not copied. */
export const HANDLED_META: ReadonlySet<string> = new Set([
  "name",
  "generateName",
  "namespace",
  "uid",
  "resourceVersion",
  "generation",
  "creationTimestamp",
  "deletionTimestamp",
  "deletionGracePeriodSeconds",
]);

/** How a store is set up. */
export interface StoreOptions {
  /** Events kept per resource. */
  readonly historyLimit: number;
  /** Deepest JSON nesting stored. */
  readonly maxJsonDepth: number;
  /** Create a missing namespace on a namespaced create (the NamespaceAutoProvision plugin). */
  readonly autoCreateNamespaces?: boolean;
  /**
   * Uids of the namespaces the store creates itself, initial and provisioned (kept apart from
   * `rng`, so its sequence is the same with or without them).
   */
  readonly bootstrapRng?: Rng;
}

/** The in-memory "etcd" of the simulated cluster. */
export class Store {
  /** Current global resourceVersion. */
  rv = 1;
  readonly #clock: Clock;
  readonly #rng: Rng;
  readonly #maxJsonDepth: number;
  readonly #historyLimit: number;
  readonly #autoCreateNamespaces: boolean;
  readonly #states = new Map<string, ResourceState>();
  readonly #namespaces: ResourceState | undefined;
  /** Uids of the namespaces the store makes itself (initial, provisioned): not `#rng`'s. */
  readonly #namespaceUids: Rng;

  constructor(clock: Clock, rng: Rng, resources: readonly ResourceInfo[], options: StoreOptions) {
    this.#clock = clock;
    this.#rng = rng;
    this.#maxJsonDepth = options.maxJsonDepth;
    this.#historyLimit = options.historyLimit;
    this.#autoCreateNamespaces = options.autoCreateNamespaces ?? false;
    for (const info of resources) {
      const state = new ResourceState(info, this.rv, options.historyLimit);
      this.#states.set(info.id, state);
      if (isNamespaceResource(info)) this.#namespaces = state;
    }
    this.#namespaceUids = options.bootstrapRng ?? new Rng(0x6e73);
    this.#bootstrap();
  }

  /**
   * The namespaces every cluster starts with, at resourceVersion 1 (the cluster's first), as
   * objects that were there before any history: a watch from "1" does not replay them.
   */
  #bootstrap(): void {
    const state = this.#namespaces;
    if (state === undefined) return;
    for (const name of INITIAL_NAMESPACES) {
      const item = {
        metadata: {
          name,
          uid: this.#namespaceUids.uuid(),
          resourceVersion: String(this.rv),
          creationTimestamp: rfc3339(this.#clock.now()),
        },
      } as KubeObject;
      namespaceDefaults(item, undefined, "http");
      state.objects.set(name, new Version(state.info, name, this.rv, item));
    }
  }

  /** The namespace `name`, if it exists (undefined when namespaces are not served). */
  namespace(name: string): Version | undefined {
    return this.#namespaces?.objects.get(name);
  }

  /**
   * Creates the namespace `name` when it does not exist (as the NamespaceAutoProvision
   * admission plugin does); a name that is not a DNS label is left to fail later.
   */
  provisionNamespace(name: string): void {
    const state = this.#namespaces;
    if (state === undefined || state.objects.has(name) || !isDnsLabel(name)) return;
    this.create(state, { metadata: { name } }, {
      writer: "control",
      trusted: true,
      uids: this.#namespaceUids,
    });
  }

  /**
   * The `NamespaceLifecycle` admission of a namespaced create: 404 when the namespace does not
   * exist (unless it may be provisioned), 403 when it is terminating.
   */
  #admitCreate(info: ResourceInfo, namespace: string, name: string, provision: boolean): void {
    if (this.#namespaces === undefined) return;
    let ns = this.namespace(namespace);
    if (ns === undefined && provision) {
      this.provisionNamespace(namespace);
      ns = this.namespace(namespace);
    }
    if (ns === undefined) namespaceNotFound(namespace);
    if (isTerminating(ns.item)) namespaceTerminating(info, name, namespace);
  }

  /** Every resource's state. */
  get states(): IterableIterator<ResourceState> {
    return this.#states.values();
  }

  /** The state of a served resource, or undefined. */
  state(id: string): ResourceState | undefined {
    return this.#states.get(id);
  }

  /**
   * Starts storing a resource served from now on (a CRD's version), with `objects` (the
   * current objects of the state it replaces, if any) as its objects: its history starts now.
   */
  addState(info: ResourceInfo, objects: Iterable<Version> = []): ResourceState {
    const state = new ResourceState(info, this.rv, this.#historyLimit);
    for (const v of objects) state.objects.set(v.key, new Version(info, v.key, v.rv, v.item));
    this.#states.set(info.id, state);
    return state;
  }

  /** Stops storing a resource (its CRD is gone or changed); its objects go with it. */
  removeState(id: string): void {
    this.#states.delete(id);
  }

  /** Forgets every resource's history at the current resourceVersion. */
  compact(): void {
    for (const s of this.#states.values()) s.compact(this.rv);
  }

  #validate(info: ResourceInfo, obj: Record<string, unknown>, name: string): void {
    const problems: FieldProblem[] = [];
    const meta = obj.metadata as Record<string, unknown>;
    const nameOk = info.desc.namespaced || info.desc.resource !== "namespaces"
      ? isDnsSubdomain(name)
      : isDnsLabel(name);
    if (!nameOk) {
      problems.push({
        reason: "FieldValueInvalid",
        field: "metadata.name",
        message: `Invalid value: ${
          describeValue(name)
        }: a lowercase RFC 1123 name must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character`,
      });
    }
    for (const field of ["labels", "annotations"] as const) {
      const map = meta[field];
      if (map === undefined || map === null) continue;
      if (!isRecord(map)) {
        problems.push({
          reason: "FieldValueInvalid",
          field: `metadata.${field}`,
          message: "Invalid value: must be a map of strings",
        });
        continue;
      }
      for (const [k, v] of Object.entries(map)) {
        const problem = typeof v !== "string"
          ? "value must be a string"
          : field === "labels"
          ? labelKeyProblem(k) ?? labelValueProblem(v)
          : labelKeyProblem(k);
        if (problem !== undefined) {
          problems.push({
            reason: "FieldValueInvalid",
            field: `metadata.${field}`,
            message: `Invalid value: ${describeValue(k)}: ${problem}`,
          });
        }
      }
    }
    if (problems.length > 0) fail(invalid(info.desc.kind, info.desc.group ?? "", name, problems));
    info.check?.(obj, name);
  }

  /**
   * Builds the stored item: metadata in the server's field order, then every other field in
   * the input's order.
   */
  #build(
    input: Record<string, unknown>,
    meta: Record<string, unknown>,
    keepFrom?: Record<string, unknown>,
  ): KubeObject {
    const inMeta = input.metadata as Record<string, unknown>;
    for (const [k, v] of Object.entries(inMeta)) {
      if (!HANDLED_META.has(k) && v !== undefined) setOwn(meta, k, v);
    }
    const out: Record<string, unknown> = { metadata: meta };
    for (const [k, v] of Object.entries(input)) {
      if (k === "metadata" || k === "kind" || k === "apiVersion" || v === undefined) continue;
      setOwn(out, k, v);
    }
    if (keepFrom) {
      for (const [k, v] of Object.entries(keepFrom)) setOwn(out, k, v);
    }
    return out as KubeObject;
  }

  /** Throws a 400 `KubeApiError` naming `what` when `value` could not be served as JSON. */
  assertServable(value: unknown, what: string): void {
    const problem = unservable(value, this.#maxJsonDepth);
    if (problem !== undefined) fail(badRequest(`${what} ${problem}`));
  }

  /**
   * Checks an input object's shape and its namespace against the one addressed, and (unless
   * `trusted`) that it can be served: the stored object is made of the input's values plus
   * shallow server metadata, so an input JSON can carry gives a stored object it can carry.
   * Returns the input's copy (the input itself with `adopt`) and the namespace it goes to.
   */
  #checkInput(
    info: ResourceInfo,
    input: unknown,
    options: WriteExtras,
  ): { obj: Record<string, unknown>; namespace: string | undefined } {
    const { namespace, trusted } = options;
    if (!isRecord(input)) fail(badRequest("the body of the request must be a JSON object"));
    if (!trusted) this.assertServable(input, "the object");
    if (!isRecord(input.metadata)) fail(badRequest("the object has no metadata"));
    if (input.kind !== undefined && input.kind !== info.desc.kind) {
      fail(
        badRequest(
          `the kind ${describeValue(input.kind)} does not match the expected ${info.desc.kind}`,
        ),
      );
    }
    // The input, taken (`adopt`) or copied once it has passed every check.
    const taken = (ns: string | undefined) => ({
      obj: options.adopt ? input : structuredCloneJson(input),
      namespace: ns,
    });
    const metaNs = input.metadata.namespace;
    if (!info.desc.namespaced) return taken(undefined);
    if (metaNs !== undefined && typeof metaNs !== "string") {
      fail(badRequest("metadata.namespace must be a string"));
    }
    if (namespace && metaNs && metaNs !== namespace) {
      fail(badRequest(
        "the namespace of the provided object does not match the namespace sent on the request",
      ));
    }
    return taken(namespace || metaNs || "default");
  }

  /** Creates an object. */
  create(
    state: ResourceState,
    input: unknown,
    options: {
      /** Create the object's namespace when it is missing (bulk loading: `seed`). */
      provisionNamespace?: boolean;
      /** Where the uid comes from. @default the store's random source */
      uids?: Rng;
    } & WriteExtras,
  ): Version {
    const info = state.info;
    const checked = this.#checkInput(info, input, options);
    const { obj } = checked;
    const inMeta = obj.metadata as Record<string, unknown>;
    let name = inMeta.name;
    const generateName = inMeta.generateName;
    if (checked.namespace !== undefined) {
      const named = typeof name === "string" && name !== ""
        ? name
        : typeof generateName === "string" && generateName !== ""
        ? generateName
        : "Unknown";
      const provision = !options.dryRun &&
        (options.provisionNamespace === true || this.#autoCreateNamespaces);
      this.#admitCreate(info, checked.namespace, named, provision);
    }
    if ((name === undefined || name === "") && typeof generateName === "string" && generateName) {
      do {
        name = generateName + this.#rng.chars(5, GENERATE_ALPHABET);
      } while (state.objects.has(keyOf(checked.namespace, name as string)));
    }
    if (typeof name !== "string" || name === "") {
      fail(invalid(info.desc.kind, info.desc.group ?? "", "", [{
        reason: "FieldValueRequired",
        field: "metadata.name",
        message: "Required value: name or generateName is required",
      }]));
    }
    if (!options.trusted) this.#validate(info, obj, name);
    const key = keyOf(checked.namespace, name);
    if (state.objects.has(key)) fail(alreadyExists(info.desc.resource, info.desc.group, name));
    if (options.writer === "http") {
      applyBuiltInDefaults(info, obj, { create: true, existing: () => storedItems(state) });
    }
    // A dry run gets everything but a resourceVersion, and changes nothing.
    const rv = options.dryRun ? this.rv : ++this.rv;
    const meta: Record<string, unknown> = { name };
    if (typeof generateName === "string" && generateName) meta.generateName = generateName;
    if (checked.namespace !== undefined) meta.namespace = checked.namespace;
    meta.uid = (options.uids ?? this.#rng).uuid();
    if (!options.dryRun) meta.resourceVersion = String(rv);
    if (Object.hasOwn(obj, "spec")) meta.generation = 1;
    meta.creationTimestamp = rfc3339(this.#clock.now());
    const item = this.#build(obj, meta);
    applyServerDefaults(info, item, options.writer);
    normalizeBuiltIn(info, item);
    setManagedFields(item, options.fields);
    const version = new Version(info, key, rv, item);
    if (!options.dryRun) state.commit({ type: "ADDED", rv, version, prev: undefined });
    return version;
  }

  /**
   * Replaces an object. A `metadata.resourceVersion` in the input must match the stored one
   * (409 Conflict). `subresource` `"status"` changes only the status; over HTTP a main-resource
   * write keeps the old status of resources with a status subresource, and only a write to the
   * main resource gets the built-in defaults (`"scale"` writes replicas alone). An update that changes
   * nothing keeps the resourceVersion and sends no event, as on a real server.
   */
  update(
    state: ResourceState,
    input: unknown,
    options: {
      name?: string | undefined;
      subresource?: string | undefined;
    } & WriteExtras,
  ): Version {
    const info = state.info;
    const checked = this.#checkInput(info, input, options);
    const { obj } = checked;
    const inMeta = obj.metadata as Record<string, unknown>;
    const name = inMeta.name ?? options.name;
    if (typeof name !== "string" || name === "") fail(badRequest("metadata.name is required"));
    if (options.name !== undefined && name !== options.name) {
      fail(badRequest("the name of the object does not match the name on the URL"));
    }
    const key = keyOf(checked.namespace, name);
    const old = state.objects.get(key);
    if (!old) fail(objectNotFound(info.desc.resource, info.desc.group, name));
    const oldMeta = old.item.metadata;
    const givenRv = inMeta.resourceVersion;
    if (givenRv !== undefined && givenRv !== "" && givenRv !== oldMeta.resourceVersion) {
      fail(conflict(info.desc.resource, info.desc.group, name));
    }
    if (inMeta.uid !== undefined && inMeta.uid !== "" && inMeta.uid !== oldMeta.uid) {
      fail(uidConflict(info.desc.resource, name, inMeta.uid, oldMeta.uid));
    }
    if (!options.trusted) this.#validate(info, obj, name);
    if (options.writer === "http" && options.subresource === undefined) {
      applyBuiltInDefaults(info, obj, {
        create: false,
        existing: () => storedItems(state),
        old: old.item,
      });
    }
    let source = obj;
    const oldItem = old.item as Record<string, unknown>;
    if (options.subresource === "status") {
      // Only the status changes; everything else stays as stored.
      source = { ...oldItem, metadata: { ...(oldItem.metadata as object) } };
      if (Object.hasOwn(obj, "status")) source.status = obj.status;
      else delete source.status;
    } else if (options.writer === "http" && info.statusSubresource) {
      if (Object.hasOwn(oldItem, "status")) source.status = oldItem.status;
      else delete source.status;
    }
    const meta: Record<string, unknown> = { name };
    if (oldMeta.generateName !== undefined) meta.generateName = oldMeta.generateName;
    if (oldMeta.namespace !== undefined) meta.namespace = oldMeta.namespace;
    meta.uid = oldMeta.uid;
    meta.resourceVersion = oldMeta.resourceVersion;
    let generation = oldMeta.generation;
    if (Object.hasOwn(source, "spec")) {
      if (generation === undefined) generation = 1;
      else if (
        source.spec !== oldItem.spec && JSON.stringify(source.spec) !== JSON.stringify(oldItem.spec)
      ) generation++;
    }
    if (generation !== undefined) meta.generation = generation;
    meta.creationTimestamp = oldMeta.creationTimestamp;
    if (oldMeta.deletionTimestamp !== undefined) {
      meta.deletionTimestamp = oldMeta.deletionTimestamp;
      meta.deletionGracePeriodSeconds = (oldMeta as Record<string, unknown>)
        .deletionGracePeriodSeconds ?? 0;
    }
    const metaSource = options.subresource === "status" ? oldItem : source;
    const item = this.#build({ ...source, metadata: (metaSource as KubeObject).metadata }, meta);
    if (isNamespaceResource(info)) namespaceDefaults(item, old.item, options.writer);
    normalizeBuiltIn(info, item);
    if (oldMeta.deletionTimestamp !== undefined) checkNoNewFinalizers(info, item, old.item);
    setManagedFields(item, options.fields, old.item);
    const releasing = oldMeta.deletionTimestamp !== undefined &&
      finalizersOf(item).length === 0 &&
      !(isNamespaceResource(info) && specFinalizers(item).length > 0);
    // A no-op update keeps the resourceVersion and sends no event, as on a real server.
    if (!releasing && !options.adopt && JSON.stringify(item) === old.itemJson) return old;
    if (options.dryRun) return new Version(info, key, old.rv, item);
    const rv = ++this.rv;
    item.metadata.resourceVersion = String(rv);
    const version = new Version(info, key, rv, item);
    state.commit({ type: releasing ? "DELETED" : "MODIFIED", rv, version, prev: old });
    return version;
  }

  /**
   * Deletes an object as kube-apiserver does. The deletion's propagation policy sets the
   * garbage collector's finalizers (`orphan`, `foregroundDeletion`); an object left with
   * finalizers only gets a `deletionTimestamp` (MODIFIED; a later delete may still change the
   * GC finalizers) and goes when an update clears them; otherwise it is removed at once
   * (DELETED, carrying the last state at the deletion's resourceVersion). A namespace's first
   * delete marks it `Terminating`; it goes once the namespace controller has emptied it.
   * `default`, `kube-system` and `kube-public` may not be deleted (403). Returns the last state.
   */
  delete(
    state: ResourceState,
    namespace: string | undefined,
    name: string,
    request: DeletionRequest = {},
  ): { version: Version; removed: boolean } {
    const info = state.info;
    const key = keyOf(info.desc.namespaced ? namespace || "default" : undefined, name);
    const old = state.objects.get(key);
    if (!old) fail(objectNotFound(info.desc.resource, info.desc.group, name));
    const namespaceObject = isNamespaceResource(info);
    if (namespaceObject) checkMortal(name);
    const oldMeta = old.item.metadata;
    const preconditions = request.preconditions;
    if (preconditions?.uid !== undefined && preconditions.uid !== oldMeta.uid) {
      fail(uidConflict(info.desc.resource, name, preconditions.uid, oldMeta.uid));
    }
    if (
      preconditions?.resourceVersion !== undefined &&
      preconditions.resourceVersion !== oldMeta.resourceVersion
    ) {
      fail(conflict(info.desc.resource, info.desc.group, name));
    }
    const current = finalizersOf(old.item);
    const finalizers = finalizersAfterDelete(info, current, request);
    const deleting = oldMeta.deletionTimestamp !== undefined;
    let item: KubeObject | undefined;
    if (namespaceObject && (!deleting || specFinalizers(old.item).length > 0)) {
      // The first delete starts termination; later ones change at most the GC finalizers.
      if (!deleting) {
        item = withPhaseTerminating(
          markDeleting(old.item, rfc3339(this.#clock.now()), finalizers, false),
        );
      } else if (!sameFinalizers(current, finalizers)) {
        item = markDeleting(old.item, "", finalizers, false);
      }
    } else if (finalizers.length > 0) {
      if (!deleting || !sameFinalizers(current, finalizers)) {
        item = markDeleting(old.item, rfc3339(this.#clock.now()), finalizers);
      }
    } else {
      const rv = request.dryRun ? old.rv : ++this.rv;
      const last = { ...old.item, metadata: { ...oldMeta, resourceVersion: String(rv) } };
      const version = new Version(info, key, rv, last);
      if (!request.dryRun) state.commit({ type: "DELETED", rv, version, prev: old });
      return { version, removed: true };
    }
    if (item === undefined) return { version: old, removed: false };
    if (request.dryRun) return { version: new Version(info, key, old.rv, item), removed: false };
    const rv = ++this.rv;
    item.metadata.resourceVersion = String(rv);
    const version = new Version(info, key, rv, item);
    state.commit({ type: "MODIFIED", rv, version, prev: old });
    return { version, removed: false };
  }
}

/**
 * The update validation of an object being deleted: it may lose finalizers, never gain one
 * (422, worded as kube-apiserver's).
 */
function checkNoNewFinalizers(info: ResourceInfo, item: KubeObject, before: KubeObject): void {
  const old = new Set(finalizersOf(before));
  const added = [...new Set(finalizersOf(item))].filter((f) => !old.has(f)).sort();
  if (added.length === 0) return;
  fail(invalid(info.desc.kind, info.desc.group ?? "", item.metadata.name!, [{
    reason: "FieldValueForbidden",
    field: "metadata.finalizers",
    message:
      `Forbidden: no new finalizers can be added if the object is being deleted, found new finalizers []string{${
        added.map((f) => describeValue(f)).join(", ")
      }}`,
  }]));
}

/** Defaults a real API server fills in on create. */
function applyServerDefaults(info: ResourceInfo, item: KubeObject, writer: Writer): void {
  if (info.desc.group) return;
  if (info.desc.kind === "Pod") {
    if (writer === "http" || !isRecord(item.status)) item.status = { phase: "Pending" };
  } else if (isNamespaceResource(info)) {
    namespaceDefaults(item, undefined, writer);
  }
}

/** The stored objects of a resource. */
function* storedItems(state: ResourceState): Iterable<KubeObject> {
  for (const v of state.objects.values()) yield v.item;
}

/** A deep copy through JSON (drops `undefined`, like the wire would). */
export function structuredCloneJson<T>(value: T): T {
  return JSON.parse(JSON.stringify(value)) as T;
}
