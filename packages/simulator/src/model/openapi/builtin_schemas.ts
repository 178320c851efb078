/**
 * The OpenAPI v3 schemas the simulated cluster publishes for built-in kinds. Truthful for what
 * they cover: `ObjectMeta` (with the merge keys of `ownerReferences` and `finalizers`) and the
 * whole of `ConfigMap`, `Secret`, `Namespace`, `ServiceAccount`, `Lease` and both Event kinds are
 * described field by field; so are `Pod`, `PodTemplate`, `ReplicationController`, `Service`,
 * `Endpoints`, `Node`, `PersistentVolume`, `PersistentVolumeClaim`, `Deployment`, `ReplicaSet`,
 * `StatefulSet`, `DaemonSet`, `Job`, `CronJob` and `Ingress` (`_pod_types.ts`,
 * `_workload_types.ts`, `_service_types.ts`), except for nested parts left open on purpose (the rarer volume sources,
 * affinity terms, pod failure policies, node config): those accept any field, so a valid
 * manifest is never refused. Other built-in kinds are described in their `metadata` only (their
 * other fields are accepted as they come: `x-kubernetes-preserve-unknown-fields`), or, for kinds
 * that have nothing besides `spec` and `status`, in their metadata and top level. Server-side
 * field validation reports unknown fields only where a schema describes them.
 * @module
 */

import { fieldDescription } from "./_field_descriptions.ts";
import { POD_TYPES } from "./_pod_types.ts";
import {
  type Components,
  META,
  ref,
  type Schema,
  SchemaCompiler,
  sharedComponents,
  type TypeDef,
} from "./_schema_dsl.ts";
import { SERVICE_TYPES } from "./_service_types.ts";
import { DESCRIBED_KINDS, WORKLOAD_TYPES } from "./_workload_types.ts";

export type { Components, Schema } from "./_schema_dsl.ts";

const CORE = "io.k8s.api.core.v1";

const str: Schema = { type: "string" };
const int32: Schema = { type: "integer", format: "int32" };
const int64: Schema = { type: "integer", format: "int64" };
const bool: Schema = { type: "boolean" };
const time: Schema = { type: "string", format: "date-time" };
const stringMap: Schema = { type: "object", additionalProperties: { type: "string", default: "" } };
const array = (items: Schema, extra: Schema = {}): Schema => ({ type: "array", items, ...extra });
const object = (properties: Record<string, Schema>, extra: Schema = {}): Schema => ({
  type: "object",
  properties,
  ...extra,
});

/** The schemas of `ObjectMeta` and what it uses. */
export function metaComponents(): Components {
  return {
    [`${META}.ObjectMeta`]: object({
      annotations: stringMap,
      creationTimestamp: ref(`${META}.Time`),
      deletionGracePeriodSeconds: int64,
      deletionTimestamp: ref(`${META}.Time`),
      finalizers: array({ type: "string", default: "" }, {
        "x-kubernetes-list-type": "set",
        "x-kubernetes-patch-strategy": "merge",
      }),
      generateName: str,
      generation: int64,
      labels: stringMap,
      managedFields: array(ref(`${META}.ManagedFieldsEntry`, { default: {} }), {
        "x-kubernetes-list-type": "atomic",
      }),
      name: str,
      namespace: str,
      ownerReferences: array(ref(`${META}.OwnerReference`, { default: {} }), {
        "x-kubernetes-list-map-keys": ["uid"],
        "x-kubernetes-list-type": "map",
        "x-kubernetes-patch-merge-key": "uid",
        "x-kubernetes-patch-strategy": "merge",
      }),
      resourceVersion: str,
      selfLink: str,
      uid: str,
    }, { description: "Standard object metadata." }),
    [`${META}.OwnerReference`]: object({
      apiVersion: { ...str, default: "" },
      blockOwnerDeletion: bool,
      controller: bool,
      kind: { ...str, default: "" },
      name: { ...str, default: "" },
      uid: { ...str, default: "" },
    }, { required: ["apiVersion", "kind", "name", "uid"], "x-kubernetes-map-type": "atomic" }),
    [`${META}.ManagedFieldsEntry`]: object({
      apiVersion: str,
      fieldsType: str,
      fieldsV1: { type: "object", "x-kubernetes-preserve-unknown-fields": true },
      manager: str,
      operation: str,
      subresource: str,
      time: ref(`${META}.Time`),
    }),
    [`${META}.Time`]: { ...time },
    [`${META}.MicroTime`]: { type: "string", format: "date-time" },
  };
}

const conditionList = (name: string): Schema =>
  array(ref(name, { default: {} }), {
    "x-kubernetes-list-map-keys": ["type"],
    "x-kubernetes-list-type": "map",
    "x-kubernetes-patch-merge-key": "type",
    "x-kubernetes-patch-strategy": "merge",
  });

const objectReference: Schema = object({
  apiVersion: str,
  fieldPath: str,
  kind: str,
  name: str,
  namespace: str,
  resourceVersion: str,
  uid: str,
}, { "x-kubernetes-map-type": "atomic" });

/** Fully described core kinds: the kind's own properties and the components they use. */
const DESCRIBED: Record<
  string,
  () => { properties: Record<string, Schema>; components: Components }
> = {
  "/v1/ConfigMap": () => ({
    properties: {
      binaryData: { type: "object", additionalProperties: { type: "string", format: "byte" } },
      data: stringMap,
      immutable: bool,
    },
    components: {},
  }),
  "/v1/Secret": () => ({
    properties: {
      data: { type: "object", additionalProperties: { type: "string", format: "byte" } },
      immutable: bool,
      stringData: stringMap,
      type: str,
    },
    components: {},
  }),
  "/v1/Namespace": () => ({
    properties: {
      spec: ref(`${CORE}.NamespaceSpec`, { default: {} }),
      status: ref(`${CORE}.NamespaceStatus`, { default: {} }),
    },
    components: {
      [`${CORE}.NamespaceSpec`]: object({
        finalizers: array({ type: "string", default: "" }, { "x-kubernetes-list-type": "atomic" }),
      }),
      [`${CORE}.NamespaceStatus`]: object({
        conditions: conditionList(`${CORE}.NamespaceCondition`),
        phase: str,
      }),
      [`${CORE}.NamespaceCondition`]: object({
        lastTransitionTime: ref(`${META}.Time`),
        message: str,
        reason: str,
        status: { ...str, default: "" },
        type: { ...str, default: "" },
      }, { required: ["type", "status"] }),
    },
  }),
  "/v1/ServiceAccount": () => ({
    properties: {
      automountServiceAccountToken: bool,
      imagePullSecrets: array(ref(`${CORE}.LocalObjectReference`, { default: {} }), {
        "x-kubernetes-list-type": "atomic",
      }),
      secrets: array(ref(`${CORE}.ObjectReference`, { default: {} }), {
        "x-kubernetes-list-map-keys": ["name"],
        "x-kubernetes-list-type": "map",
        "x-kubernetes-patch-merge-key": "name",
        "x-kubernetes-patch-strategy": "merge",
      }),
    },
    components: {
      [`${CORE}.LocalObjectReference`]: object({ name: { ...str, default: "" } }, {
        "x-kubernetes-map-type": "atomic",
      }),
      [`${CORE}.ObjectReference`]: objectReference,
    },
  }),
  "/v1/Event": () => ({
    properties: {
      action: str,
      count: int32,
      eventTime: ref(`${META}.MicroTime`),
      firstTimestamp: ref(`${META}.Time`),
      involvedObject: ref(`${CORE}.ObjectReference`, { default: {} }),
      lastTimestamp: ref(`${META}.Time`),
      message: str,
      reason: str,
      related: ref(`${CORE}.ObjectReference`),
      reportingComponent: { ...str, default: "" },
      reportingInstance: { ...str, default: "" },
      series: ref(`${CORE}.EventSeries`),
      source: ref(`${CORE}.EventSource`, { default: {} }),
      type: str,
    },
    components: {
      [`${CORE}.ObjectReference`]: objectReference,
      [`${CORE}.EventSource`]: object({ component: str, host: str }),
      [`${CORE}.EventSeries`]: object({ count: int32, lastObservedTime: ref(`${META}.MicroTime`) }),
    },
  }),
  "events.k8s.io/v1/Event": () => ({
    properties: {
      action: str,
      deprecatedCount: int32,
      deprecatedFirstTimestamp: ref(`${META}.Time`),
      deprecatedLastTimestamp: ref(`${META}.Time`),
      deprecatedSource: ref(`${CORE}.EventSource`, { default: {} }),
      eventTime: ref(`${META}.MicroTime`),
      note: str,
      reason: str,
      regarding: ref(`${CORE}.ObjectReference`, { default: {} }),
      related: ref(`${CORE}.ObjectReference`),
      reportingController: str,
      reportingInstance: str,
      series: ref("io.k8s.api.events.v1.EventSeries"),
      type: str,
    },
    components: {
      [`${CORE}.ObjectReference`]: objectReference,
      [`${CORE}.EventSource`]: object({ component: str, host: str }),
      "io.k8s.api.events.v1.EventSeries": object({
        count: { ...int32, default: 0 },
        lastObservedTime: ref(`${META}.MicroTime`),
      }, { required: ["count", "lastObservedTime"] }),
    },
  }),
  "coordination.k8s.io/v1/Lease": () => ({
    properties: { spec: ref("io.k8s.api.coordination.v1.LeaseSpec", { default: {} }) },
    components: {
      "io.k8s.api.coordination.v1.LeaseSpec": object({
        acquireTime: ref(`${META}.MicroTime`),
        holderIdentity: str,
        leaseDurationSeconds: int32,
        leaseTransitions: int32,
        preferredHolder: str,
        renewTime: ref(`${META}.MicroTime`),
        strategy: str,
      }),
    },
  }),
};

/** Package segments of built-in groups in schema names (`io.k8s.api.<pkg>.<version>.<Kind>`). */
const PACKAGES: Readonly<Record<string, string>> = {
  "": "core",
  "networking.k8s.io": "networking",
  "coordination.k8s.io": "coordination",
  "events.k8s.io": "events",
  "rbac.authorization.k8s.io": "rbac",
  "storage.k8s.io": "storage",
  "discovery.k8s.io": "discovery",
  "scheduling.k8s.io": "scheduling",
  "certificates.k8s.io": "certificates",
  "admissionregistration.k8s.io": "admissionregistration",
  "authentication.k8s.io": "authentication",
  "authorization.k8s.io": "authorization",
  "node.k8s.io": "node",
  "flowcontrol.apiserver.k8s.io": "flowcontrol",
  "resource.k8s.io": "resource",
};

/** The component name of a built-in kind's schema (`io.k8s.api.core.v1.ConfigMap`). */
export function builtinSchemaName(group: string, version: string, kind: string): string {
  if (group === "apiextensions.k8s.io") {
    return `io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.${version}.${kind}`;
  }
  const pkg = Object.hasOwn(PACKAGES, group) ? PACKAGES[group] : group.split(".")[0];
  return `io.k8s.api.${pkg}.${version}.${kind}`;
}

/** The top-level properties every kind has. */
function envelope(): Record<string, Schema> {
  return { apiVersion: str, kind: str, metadata: ref(`${META}.ObjectMeta`, { default: {} }) };
}

/**
 * Built-in kinds whose objects have nothing at the top level besides `apiVersion`, `kind`,
 * `metadata`, `spec` and `status` (per `group/Kind`): a stray top-level field (`sepc`) is unknown
 * there, while `spec` and `status` stay open.
 */
const SPEC_AND_STATUS: ReadonlySet<string> = new Set([
  "/LimitRange",
  "/ResourceQuota",
  "autoscaling/HorizontalPodAutoscaler",
  "networking.k8s.io/IngressClass",
  "networking.k8s.io/NetworkPolicy",
  "policy/PodDisruptionBudget",
  "apiextensions.k8s.io/CustomResourceDefinition",
]);

let shared: SchemaCompiler | undefined;

/** The compiler of the pod and workload types (made once). */
function compiler(): SchemaCompiler {
  if (shared === undefined) {
    const types = new Map<string, TypeDef>();
    for (const table of [POD_TYPES, WORKLOAD_TYPES, SERVICE_TYPES]) {
      for (const [name, t] of Object.entries(table)) {
        if (types.has(name)) throw new Error(`type ${name} defined twice`);
        types.set(name, t);
      }
    }
    shared = new SchemaCompiler(types, fieldDescription);
  }
  return shared;
}

const KIND_DOCS: Readonly<Record<string, string>> = {
  Pod:
    "Pod is a collection of containers that can run on a host. This resource is created by clients and scheduled onto hosts.",
  PodTemplate: "PodTemplate describes a template for creating copies of a predefined pod.",
  ReplicationController:
    "ReplicationController represents the configuration of a replication controller.",
  Service:
    "Service is a named abstraction of software service (for example, mysql) consisting of local port (for example 3306) that the proxy listens on, and the selector that determines which pods will answer requests sent through the proxy.",
  Endpoints: "Endpoints is a collection of endpoints that implement the actual service.",
  Node: "Node is a worker node in Kubernetes.",
  PersistentVolume: "PersistentVolume (PV) is a storage resource provisioned by an administrator.",
  PersistentVolumeClaim:
    "PersistentVolumeClaim is a user's request for and claim to a persistent volume",
  Deployment: "Deployment enables declarative updates for Pods and ReplicaSets.",
  ReplicaSet:
    "ReplicaSet ensures that a specified number of pod replicas are running at any given time.",
  StatefulSet:
    "StatefulSet represents a set of pods with consistent identities (network and storage).",
  DaemonSet: "DaemonSet represents the configuration of a daemon set.",
  Job: "Job represents the configuration of a single job.",
  CronJob: "CronJob represents the configuration of a single cron job.",
  Ingress:
    "Ingress is a collection of rules that allow inbound connections to reach the endpoints defined by a backend.",
};

/** Whether a built-in kind is described field by field with nothing left open. */
export function isFullyDescribed(group: string, version: string, kind: string): boolean {
  return Object.hasOwn(DESCRIBED, `${group}/${version}/${kind}`);
}

/**
 * The schema of a built-in kind and the components it uses (besides {@linkcode metaComponents}),
 * with its `x-kubernetes-group-version-kind`. Compiled on first use and shared afterwards (the
 * built-in kinds never change): callers must not change what they get.
 */
export function builtinSchema(
  group: string,
  version: string,
  kind: string,
): { schema: Schema; components: Components } {
  const key = `${group}/${version}/${kind}`;
  let compiled = COMPILED.get(key);
  if (compiled === undefined) {
    compiled = compileBuiltinSchema(group, version, kind);
    COMPILED.set(key, compiled);
  }
  return compiled;
}

/** Built-in kinds' schemas, compiled once per process. */
const COMPILED = new Map<string, { schema: Schema; components: Components }>();

function compileBuiltinSchema(
  group: string,
  version: string,
  kind: string,
): { schema: Schema; components: Components } {
  const gvk = { "x-kubernetes-group-version-kind": [{ group, kind, version }] };
  const typed = Object.hasOwn(DESCRIBED_KINDS, `${group}/${version}/${kind}`)
    ? DESCRIBED_KINDS[`${group}/${version}/${kind}`]
    : undefined;
  if (typed !== undefined) {
    const c = compiler();
    const properties: Record<string, Schema> = {};
    const components: Components = sharedComponents();
    for (const [field, spec] of Object.entries(typed)) {
      properties[field] = c.spec(spec, fieldDescription(kind, field));
      const name = spec.replace(/^\[/, "").replace(/\]$/, "");
      Object.assign(components, c.components(name));
    }
    return {
      schema: object({ ...envelope(), ...properties }, { description: KIND_DOCS[kind], ...gvk }),
      components,
    };
  }
  const described = Object.hasOwn(DESCRIBED, `${group}/${version}/${kind}`)
    ? DESCRIBED[`${group}/${version}/${kind}`]
    : undefined;
  if (described !== undefined) {
    const { properties, components } = described();
    return { schema: object({ ...envelope(), ...properties }, gvk), components };
  }
  const open: Schema = {
    type: "object",
    description: "Not described by the simulated cluster: any fields are accepted.",
    "x-kubernetes-preserve-unknown-fields": true,
  };
  if (SPEC_AND_STATUS.has(`${group}/${kind}`)) {
    return {
      schema: object({ ...envelope(), spec: open, status: open }, {
        description: "Described by the simulated cluster in its metadata and top level only: " +
          "any fields are accepted in spec and status.",
        ...gvk,
      }),
      components: {},
    };
  }
  return {
    schema: object({ ...envelope(), spec: open, status: open }, {
      description:
        "Described by the simulated cluster in its metadata only: any other fields are accepted.",
      "x-kubernetes-preserve-unknown-fields": true,
      ...gvk,
    }),
    components: {},
  };
}
