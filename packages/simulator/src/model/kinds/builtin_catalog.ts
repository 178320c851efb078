/**
 * What kube-apiserver (1.33) says about its own resources in discovery and does with them, for
 * the built-in resources the simulated cluster can serve: singular name, short names,
 * categories (`kubectl get all` lists the `all` category), the field selectors it supports
 * beyond `metadata.name`/`metadata.namespace`, its subresources, and whether DELETE answers
 * with the object (else a `Status`).
 * @module
 */

/** Server-side facts of one built-in resource. */
export interface BuiltinFacts {
  /** Singular name (`pod`). */
  readonly singular: string;
  /** Short names (`po`). */
  readonly shortNames: readonly string[];
  /** Categories (`all`). */
  readonly categories: readonly string[];
  /** Field selector paths besides `metadata.name` and `metadata.namespace`. */
  readonly fields: readonly string[];
  /** A `/status` subresource. */
  readonly statusSubresource: boolean;
  /** A `/scale` subresource. */
  readonly scaleSubresource: boolean;
  /** DELETE answers with the (last state of the) object. */
  readonly deleteReturnsObject: boolean;
}

type Row = [
  id: string,
  singular: string,
  shortNames: string,
  categories: string,
  flags: string,
  fields?: string,
];

// flags: s = /status, c = /scale, o = DELETE returns the object.
const ROWS: readonly Row[] = [
  [
    "/v1/pods",
    "pod",
    "po",
    "all",
    "so",
    "spec.nodeName spec.restartPolicy spec.schedulerName spec.serviceAccountName spec.hostNetwork status.phase status.podIP status.nominatedNodeName",
  ],
  ["/v1/services", "service", "svc", "all", "so", "spec.clusterIP spec.type"],
  ["/v1/configmaps", "configmap", "cm", "", ""],
  ["/v1/secrets", "secret", "", "", "", "type"],
  ["/v1/namespaces", "namespace", "ns", "", "so", "status.phase"],
  ["/v1/nodes", "node", "no", "", "s", "spec.unschedulable"],
  ["/v1/persistentvolumes", "persistentvolume", "pv", "", "s"],
  ["/v1/persistentvolumeclaims", "persistentvolumeclaim", "pvc", "", "s"],
  ["/v1/serviceaccounts", "serviceaccount", "sa", "", ""],
  ["/v1/endpoints", "endpoints", "ep", "", ""],
  [
    "/v1/events",
    "event",
    "ev",
    "",
    "",
    "involvedObject.kind involvedObject.namespace involvedObject.name involvedObject.uid involvedObject.apiVersion involvedObject.resourceVersion involvedObject.fieldPath reason reportingComponent type",
  ],
  ["/v1/replicationcontrollers", "replicationcontroller", "rc", "all", "sc", "status.replicas"],
  ["/v1/limitranges", "limitrange", "limits", "", ""],
  ["/v1/resourcequotas", "resourcequota", "quota", "", "s"],
  ["apps/v1/deployments", "deployment", "deploy", "all", "sc"],
  ["apps/v1/replicasets", "replicaset", "rs", "all", "sc", "status.replicas"],
  ["apps/v1/statefulsets", "statefulset", "sts", "all", "sc"],
  ["apps/v1/daemonsets", "daemonset", "ds", "all", "s"],
  ["batch/v1/jobs", "job", "", "all", "s", "status.successful"],
  ["batch/v1/cronjobs", "cronjob", "cj", "all", "s"],
  ["autoscaling/v2/horizontalpodautoscalers", "horizontalpodautoscaler", "hpa", "all", "s"],
  ["networking.k8s.io/v1/ingresses", "ingress", "ing", "", "s"],
  ["networking.k8s.io/v1/ingressclasses", "ingressclass", "", "", ""],
  ["networking.k8s.io/v1/networkpolicies", "networkpolicy", "netpol", "", ""],
  ["policy/v1/poddisruptionbudgets", "poddisruptionbudget", "pdb", "", "s"],
  ["coordination.k8s.io/v1/leases", "lease", "", "", ""],
  [
    "events.k8s.io/v1/events",
    "event",
    "ev",
    "",
    "",
    "regarding.kind regarding.namespace regarding.name regarding.uid regarding.apiVersion regarding.resourceVersion regarding.fieldPath reason reportingController type",
  ],
  ["discovery.k8s.io/v1/endpointslices", "endpointslice", "", "", ""],
  ["rbac.authorization.k8s.io/v1/roles", "role", "", "", ""],
  ["rbac.authorization.k8s.io/v1/rolebindings", "rolebinding", "", "", ""],
  ["rbac.authorization.k8s.io/v1/clusterroles", "clusterrole", "", "", ""],
  ["rbac.authorization.k8s.io/v1/clusterrolebindings", "clusterrolebinding", "", "", ""],
  ["storage.k8s.io/v1/storageclasses", "storageclass", "sc", "", ""],
  ["scheduling.k8s.io/v1/priorityclasses", "priorityclass", "pc", "", ""],
  [
    "apiextensions.k8s.io/v1/customresourcedefinitions",
    "customresourcedefinition",
    "crd crds",
    "api-extensions",
    "s",
  ],
];

const words = (text: string | undefined): readonly string[] =>
  Object.freeze(text ? text.split(" ") : []);

const CATALOG: ReadonlyMap<string, BuiltinFacts> = new Map(
  ROWS.map(([id, singular, shortNames, categories, flags, fields]) => [
    id,
    Object.freeze({
      singular,
      shortNames: words(shortNames),
      categories: words(categories),
      fields: words(fields),
      statusSubresource: flags.includes("s"),
      scaleSubresource: flags.includes("c"),
      deleteReturnsObject: flags.includes("o"),
    }),
  ]),
);

/** The facts of the built-in resource `group/version/resource`, if the catalog knows it. */
export function builtinFacts(id: string): BuiltinFacts | undefined {
  return CATALOG.get(id);
}
