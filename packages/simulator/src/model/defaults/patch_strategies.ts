/**
 * How the fields of the built-in kinds merge in a strategic merge patch: the `patchStrategy` and
 * `patchMergeKey` struct tags of the Kubernetes API types (`k8s.io/api`), for the kinds a
 * simulated cluster is likely to serve. A field not listed merges as the strategic merge patch
 * treats a field without tags: a map merges key by key, a list is replaced whole.
 *
 * Which resources are built in: those of the API groups kube-apiserver serves itself; any other
 * group is a custom resource, which has no strategic merge patch (415).
 * @module
 */
import type { ResourceInfo } from "../registry/served_resources.ts";
import { BUILTIN_GROUPS } from "../tables/table_convertors.ts";

/** The merge behaviour of one field. */
export interface FieldStrategy {
  /** `patchStrategy:"merge"` on a list: merged, by `mergeKey` for a list of objects. */
  readonly merge?: boolean;
  /** `patchMergeKey`: the key identifying an item of a merged list of objects. */
  readonly mergeKey?: string;
  /** `patchStrategy:"replace"` on an object: the patch's value replaces it whole. */
  readonly replace?: boolean;
  /** The fields of this object (or of each item of this list). */
  readonly fields?: Schema;
  /** Go's name of the item type, for the "cannot merge lists without merge key" error. */
  readonly itemType?: string;
}

/** The fields of an object that do not merge as untagged fields do. */
export type Schema = { readonly [field: string]: FieldStrategy };

const keyed = (mergeKey: string, fields?: Schema): FieldStrategy =>
  fields === undefined ? { merge: true, mergeKey } : { merge: true, mergeKey, fields };
const nested = (fields: Schema): FieldStrategy => ({ fields });

const objectMeta: Schema = {
  ownerReferences: keyed("uid"),
  finalizers: { merge: true, itemType: "string" },
};
const metadata = nested(objectMeta);

const container: Schema = {
  ports: keyed("containerPort"),
  env: keyed("name"),
  volumeMounts: keyed("mountPath"),
  volumeDevices: keyed("devicePath"),
};

const podSpec: Schema = {
  volumes: keyed("name"), // also retainKeys: `$retainKeys` is honoured wherever it is sent
  initContainers: keyed("name", container),
  containers: keyed("name", container),
  ephemeralContainers: keyed("name", container),
  imagePullSecrets: keyed("name"),
  hostAliases: keyed("ip"),
  topologySpreadConstraints: keyed("topologyKey"),
  schedulingGates: keyed("name"),
  resourceClaims: keyed("name"),
};

const conditions: Schema = { conditions: keyed("type") };

const podStatus: Schema = {
  ...conditions,
  hostIPs: keyed("ip"),
  podIPs: keyed("ip"),
  resourceClaimStatuses: keyed("name"),
};

const podTemplate: FieldStrategy = nested({ metadata, spec: nested(podSpec) });
const withTemplate = (spec: Schema = {}): Schema => ({
  metadata,
  spec: nested({ template: podTemplate, ...spec }),
  status: nested(conditions),
});

/** Per `group/Kind`: the kinds whose fields have merge tags. Any other built-in kind: metadata. */
const SCHEMAS: ReadonlyMap<string, Schema> = new Map<string, Schema>([
  ["/Pod", { metadata, spec: nested(podSpec), status: nested(podStatus) }],
  ["/PodTemplate", { metadata, template: podTemplate }],
  ["/ReplicationController", withTemplate()],
  ["/Service", {
    metadata,
    spec: nested({ ports: keyed("port") }),
    status: nested(conditions),
  }],
  ["/ServiceAccount", { metadata, secrets: keyed("name") }],
  ["/Namespace", { metadata, status: nested(conditions) }],
  ["/Node", {
    metadata,
    spec: nested({ podCIDRs: { merge: true, itemType: "string" } }),
    status: nested({ ...conditions, addresses: keyed("type") }),
  }],
  ["/PersistentVolumeClaim", { metadata, status: nested(conditions) }],
  ["apps/Deployment", withTemplate()],
  ["apps/ReplicaSet", withTemplate()],
  ["apps/DaemonSet", withTemplate()],
  ["apps/StatefulSet", withTemplate()],
  ["batch/Job", withTemplate()],
  ["batch/CronJob", {
    metadata,
    spec: nested({ jobTemplate: nested({ metadata, spec: nested({ template: podTemplate }) }) }),
  }],
  ["policy/PodDisruptionBudget", {
    metadata,
    spec: nested({ selector: { replace: true } }),
    status: nested(conditions),
  }],
  ["autoscaling/HorizontalPodAutoscaler", { metadata, status: nested(conditions) }],
]);

/**
 * The API groups whose resources are built in (take strategic merge patches): those
 * kube-apiserver serves itself ({@linkcode BUILTIN_GROUPS}, any other group holds custom
 * resources), and two groups of its own it does not serve by default (`extensions`, whose last
 * kinds stopped being served in 1.22, and the alpha `internal.apiserver.k8s.io`).
 */
const BUILT_IN_GROUPS: ReadonlySet<string> = new Set([
  ...BUILTIN_GROUPS,
  "extensions",
  "internal.apiserver.k8s.io",
]);

/** Whether `info` is a built-in resource (strategic merge patches apply to it). */
export function isBuiltIn(info: ResourceInfo): boolean {
  return BUILT_IN_GROUPS.has(info.desc.group ?? "");
}

/** The strategic merge schema of a built-in resource's objects. */
export function schemaOf(info: ResourceInfo): Schema {
  return SCHEMAS.get(`${info.desc.group ?? ""}/${info.desc.kind}`) ?? { metadata };
}

/** The schema of an `autoscaling/v1` Scale (the scale subresource). */
export const SCALE_SCHEMA: Schema = { metadata };
