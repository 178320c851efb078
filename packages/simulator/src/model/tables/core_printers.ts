/**
 * The Table columns of the core (`v1`) kinds besides pods, and of ingresses and leases, as
 * kube-apiserver prints them: services, endpoints, nodes, namespaces, secrets, service accounts,
 * config maps, persistent volumes and claims, events (core/v1 and `events.k8s.io/v1` print the
 * same columns), ingresses (`networking.k8s.io/v1`) and leases (`coordination.k8s.io/v1`).
 * @module
 */
import type { KubeObject } from "@kinformer/kinformer/client";
import { doc } from "./_field_docs.ts";
import { at, int, list, record, size, str, stringMap } from "./_fields.ts";
import { formatLabels } from "./_labels.ts";
import { since } from "./human_duration.ts";
import {
  AGE,
  column,
  convertor,
  NAME,
  nameAndAge,
  type TableConvertor,
  wide,
} from "./table_convertor.ts";

/** The sorted, distinct IPs (else host names) of a load balancer status's ingress points. */
function loadBalancerAddresses(obj: KubeObject): string[] {
  const seen = new Set<string>();
  for (const point of list(obj, "status", "loadBalancer", "ingress")) {
    const address = str(point, "ip") || str(point, "hostname");
    if (address !== "") seen.add(address);
  }
  return [...seen].sort();
}

function serviceExternalIP(svc: KubeObject): string {
  const externalIPs = list(svc, "spec", "externalIPs").filter((ip) => typeof ip === "string");
  switch (str(svc, "spec", "type") || "ClusterIP") {
    case "ClusterIP":
    case "NodePort":
      return externalIPs.length > 0 ? externalIPs.join(",") : "<none>";
    case "LoadBalancer": {
      const all = [...loadBalancerAddresses(svc), ...externalIPs];
      return all.length > 0 ? all.join(",") : "<pending>";
    }
    case "ExternalName":
      return str(svc, "spec", "externalName");
  }
  return "<unknown>";
}

/** Services: `NAME TYPE CLUSTER-IP EXTERNAL-IP PORT(S) AGE` (+ `SELECTOR`). */
export const SERVICE_TABLE: TableConvertor = convertor(
  [
    NAME,
    column("Type", "string", doc("ServiceSpec.type")),
    column("Cluster-IP", "string", doc("ServiceSpec.clusterIP")),
    column("External-IP", "string", doc("ServiceSpec.externalIPs")),
    column("Port(s)", "string", doc("ServiceSpec.ports")),
    AGE,
    wide("Selector", "string", doc("ServiceSpec.selector")),
  ],
  (svc, now) => {
    const [name, age] = nameAndAge(svc, now);
    const clusterIPs = list(svc, "spec", "clusterIPs");
    const clusterIP = (typeof clusterIPs[0] === "string" ? clusterIPs[0] : "") ||
      str(svc, "spec", "clusterIP") || "<none>";
    const ports = list(svc, "spec", "ports").map((p) => {
      const protocol = str(p, "protocol") || "TCP";
      const nodePort = int(p, "nodePort");
      return nodePort > 0
        ? `${int(p, "port")}:${nodePort}/${protocol}`
        : `${int(p, "port")}/${protocol}`;
    }).join(",");
    return [
      name,
      str(svc, "spec", "type") || "ClusterIP",
      clusterIP,
      serviceExternalIP(svc),
      ports || "<none>",
      age,
      formatLabels(svc, "spec", "selector"),
    ];
  },
);

/** `host:port` (IPv6 hosts bracketed), as Go's `net.JoinHostPort`. */
function joinHostPort(host: string, port: number): string {
  return host.includes(":") ? `[${host}]:${port}` : `${host}:${port}`;
}

function formatEndpoints(ep: KubeObject): string {
  const subsets = list(ep, "subsets");
  if (subsets.length === 0) return "<none>";
  const max = 3;
  const shown: string[] = [];
  let more = false;
  let count = 0;
  for (const subset of subsets) {
    const addresses = list(subset, "addresses");
    const ports = list(subset, "ports");
    // Every address once per port; once in all, without a port, when there are none.
    for (const port of ports.length === 0 ? [undefined] : ports) {
      count += addresses.length;
      for (const a of addresses) {
        if (shown.length === max) {
          more = true;
          break;
        }
        const ip = str(a, "ip");
        shown.push(port === undefined ? ip : joinHostPort(ip, int(port, "port")));
      }
    }
  }
  const text = shown.join(",");
  return more ? `${text} + ${count - max} more...` : text;
}

/** Endpoints: `NAME ENDPOINTS AGE`. */
export const ENDPOINTS_TABLE: TableConvertor = convertor(
  [NAME, column("Endpoints", "string", doc("Endpoints.subsets")), AGE],
  (ep, now) => {
    const [name, age] = nameAndAge(ep, now);
    return [name, formatEndpoints(ep), age];
  },
);

function nodeAddress(node: KubeObject, type: string): string {
  const found = list(node, "status", "addresses").find((a) => str(a, "type") === type);
  return found === undefined ? "<none>" : str(found, "address");
}

function nodeRoles(node: KubeObject): string {
  const roles = new Set<string>();
  for (const [key, value] of stringMap(node, "metadata", "labels")) {
    if (key.startsWith("node-role.kubernetes.io/")) {
      const role = key.slice("node-role.kubernetes.io/".length);
      if (role !== "") roles.add(role);
    } else if (key === "kubernetes.io/role" && value !== "") {
      roles.add(value);
    }
  }
  return roles.size === 0 ? "<none>" : [...roles].sort().join(",");
}

/** Nodes: `NAME STATUS ROLES AGE VERSION` (+ IPs, OS image, kernel, container runtime). */
export const NODE_TABLE: TableConvertor = convertor(
  [
    NAME,
    column("Status", "string", "The status of the node"),
    column("Roles", "string", "The roles of the node"),
    AGE,
    column("Version", "string", doc("NodeSystemInfo.kubeletVersion")),
    wide("Internal-IP", "string", doc("NodeStatus.addresses")),
    wide("External-IP", "string", doc("NodeStatus.addresses")),
    wide("OS-Image", "string", doc("NodeSystemInfo.osImage")),
    wide("Kernel-Version", "string", doc("NodeSystemInfo.kernelVersion")),
    wide("Container-Runtime", "string", doc("NodeSystemInfo.containerRuntimeVersion")),
  ],
  (node, now) => {
    const [name, age] = nameAndAge(node, now);
    const ready = [...list(node, "status", "conditions")].reverse().find((c) =>
      str(c, "type") === "Ready"
    );
    const status = ready === undefined ? ["Unknown"] : [
      str(ready, "status") === "True" ? "Ready" : "NotReady",
    ];
    if (at(node, "spec", "unschedulable") === true) status.push("SchedulingDisabled");
    const info = record(node, "status", "nodeInfo");
    return [
      name,
      status.join(","),
      nodeRoles(node),
      age,
      str(info, "kubeletVersion"),
      nodeAddress(node, "InternalIP"),
      nodeAddress(node, "ExternalIP"),
      str(info, "osImage") || "<unknown>",
      str(info, "kernelVersion") || "<unknown>",
      str(info, "containerRuntimeVersion") || "<unknown>",
    ];
  },
);

/** Namespaces: `NAME STATUS AGE`. */
export const NAMESPACE_TABLE: TableConvertor = convertor(
  [NAME, column("Status", "string", "The status of the namespace"), AGE],
  (ns, now) => {
    const [name, age] = nameAndAge(ns, now);
    return [name, str(ns, "status", "phase"), age];
  },
);

/** Secrets: `NAME TYPE DATA AGE`. */
export const SECRET_TABLE: TableConvertor = convertor(
  [
    NAME,
    column("Type", "string", doc("Secret.type")),
    column("Data", "string", doc("Secret.data")),
    AGE,
  ],
  (secret, now) => {
    const [name, age] = nameAndAge(secret, now);
    // The API server stores stringData merged into data.
    const keys = new Set([
      ...Object.keys(record(secret, "data") ?? {}),
      ...Object.keys(record(secret, "stringData") ?? {}),
    ]);
    return [name, str(secret, "type") || "Opaque", keys.size, age];
  },
);

/** Service accounts: `NAME SECRETS AGE`. */
export const SERVICE_ACCOUNT_TABLE: TableConvertor = convertor(
  [NAME, column("Secrets", "string", doc("ServiceAccount.secrets")), AGE],
  (sa, now) => {
    const [name, age] = nameAndAge(sa, now);
    return [name, list(sa, "secrets").length, age];
  },
);

/** Config maps: `NAME DATA AGE` (data and binaryData keys). */
export const CONFIG_MAP_TABLE: TableConvertor = convertor(
  [NAME, column("Data", "string", doc("ConfigMap.data")), AGE],
  (cm, now) => {
    const [name, age] = nameAndAge(cm, now);
    return [name, size(cm, "data") + size(cm, "binaryData"), age];
  },
);

/** Access modes as `RWO,ROX,RWX,RWOP` (in that order, each once). */
function accessModes(modes: readonly unknown[]): string {
  const order: Array<[string, string]> = [
    ["ReadWriteOnce", "RWO"],
    ["ReadOnlyMany", "ROX"],
    ["ReadWriteMany", "RWX"],
    ["ReadWriteOncePod", "RWOP"],
  ];
  return order.filter(([mode]) => modes.includes(mode)).map(([, short]) => short).join(",");
}

/** The storage class of a volume or claim: the beta annotation wins over the field. */
function storageClass(obj: KubeObject): string {
  const annotation = at(obj, "metadata", "annotations", "volume.beta.kubernetes.io/storage-class");
  return typeof annotation === "string" ? annotation : str(obj, "spec", "storageClassName");
}

/** Persistent volumes: `NAME CAPACITY ACCESS MODES RECLAIM POLICY STATUS CLAIM ...`. */
export const PERSISTENT_VOLUME_TABLE: TableConvertor = convertor(
  [
    NAME,
    column("Capacity", "string", doc("PersistentVolumeSpec.capacity")),
    column("Access Modes", "string", doc("PersistentVolumeSpec.accessModes")),
    column("Reclaim Policy", "string", doc("PersistentVolumeSpec.persistentVolumeReclaimPolicy")),
    column("Status", "string", doc("PersistentVolumeStatus.phase")),
    column("Claim", "string", doc("PersistentVolumeSpec.claimRef")),
    column("StorageClass", "string", "StorageClass of the pv"),
    column("VolumeAttributesClass", "string", "VolumeAttributesClass of the pv"),
    column("Reason", "string", doc("PersistentVolumeStatus.reason")),
    AGE,
    wide("VolumeMode", "string", doc("PersistentVolumeSpec.volumeMode")),
  ],
  (pv, now) => {
    const [name, age] = nameAndAge(pv, now);
    const claim = record(pv, "spec", "claimRef");
    const deleting = at(pv, "metadata", "deletionTimestamp") != null;
    return [
      name,
      str(pv, "spec", "capacity", "storage") || "0",
      accessModes(list(pv, "spec", "accessModes")),
      str(pv, "spec", "persistentVolumeReclaimPolicy"),
      deleting ? "Terminating" : str(pv, "status", "phase"),
      claim === undefined ? "" : `${str(claim, "namespace")}/${str(claim, "name")}`,
      storageClass(pv),
      str(pv, "spec", "volumeAttributesClassName") || "<unset>",
      str(pv, "status", "reason"),
      age,
      str(pv, "spec", "volumeMode") || "<unset>",
    ];
  },
);

/** Persistent volume claims: `NAME STATUS VOLUME CAPACITY ACCESS MODES STORAGECLASS ...`. */
export const PERSISTENT_VOLUME_CLAIM_TABLE: TableConvertor = convertor(
  [
    NAME,
    column("Status", "string", doc("PersistentVolumeClaimStatus.phase")),
    column("Volume", "string", doc("PersistentVolumeClaimSpec.volumeName")),
    column("Capacity", "string", doc("PersistentVolumeClaimStatus.capacity")),
    column("Access Modes", "string", doc("PersistentVolumeClaimStatus.accessModes")),
    column("StorageClass", "string", "StorageClass of the pvc"),
    column("VolumeAttributesClass", "string", "VolumeAttributesClass of the pvc"),
    AGE,
    wide("VolumeMode", "string", doc("PersistentVolumeClaimSpec.volumeMode")),
  ],
  (pvc, now) => {
    const [name, age] = nameAndAge(pvc, now);
    const volume = str(pvc, "spec", "volumeName");
    const deleting = at(pvc, "metadata", "deletionTimestamp") != null;
    return [
      name,
      deleting ? "Terminating" : str(pvc, "status", "phase"),
      volume,
      volume === "" ? "" : str(pvc, "status", "capacity", "storage") || "0",
      volume === "" ? "" : accessModes(list(pvc, "status", "accessModes")),
      storageClass(pvc),
      str(pvc, "spec", "volumeAttributesClassName") || "<unset>",
      age,
      str(pvc, "spec", "volumeMode") || "<unset>",
    ];
  },
);

function ingressHosts(ing: KubeObject): string {
  const rules = list(ing, "spec", "rules");
  const max = 3;
  const hosts: string[] = [];
  let more = false;
  for (const rule of rules) {
    if (hosts.length === max) more = true;
    if (!more && str(rule, "host") !== "") hosts.push(str(rule, "host"));
  }
  if (hosts.length === 0) return "*";
  const text = hosts.join(",");
  return more ? `${text} + ${rules.length - max} more...` : text;
}

/** Ingresses: `NAME CLASS HOSTS ADDRESS PORTS AGE`. */
export const INGRESS_TABLE: TableConvertor = convertor(
  [
    NAME,
    column(
      "Class",
      "string",
      "The name of the IngressClass resource that should be used for additional configuration",
    ),
    column(
      "Hosts",
      "string",
      "Hosts that incoming requests are matched against before the ingress rule",
    ),
    column(
      "Address",
      "string",
      "Address is a list containing ingress points for the load-balancer",
    ),
    column("Ports", "string", "Ports of TLS configurations that open"),
    AGE,
  ],
  (ing, now) => {
    const [name, age] = nameAndAge(ing, now);
    return [
      name,
      str(ing, "spec", "ingressClassName") || "<none>",
      ingressHosts(ing),
      loadBalancerAddresses(ing).join(","),
      list(ing, "spec", "tls").length > 0 ? "80, 443" : "80",
      age,
    ];
  },
);

/** Leases: `NAME HOLDER AGE`. */
export const LEASE_TABLE: TableConvertor = convertor(
  [NAME, column("Holder", "string", doc("LeaseSpec.holderIdentity")), AGE],
  (lease, now) => {
    const [name, age] = nameAndAge(lease, now);
    return [name, str(lease, "spec", "holderIdentity"), age];
  },
);

/**
 * Events (printed from their core/v1 form, which `events.k8s.io/v1` Events convert to):
 * `LAST SEEN TYPE REASON OBJECT MESSAGE` (+ `SUBOBJECT SOURCE FIRST SEEN COUNT NAME`).
 */
export const EVENT_TABLE: TableConvertor = convertor(
  [
    column("Last Seen", "string", doc("Event.lastTimestamp")),
    column("Type", "string", doc("Event.type")),
    column("Reason", "string", doc("Event.reason")),
    column("Object", "string", doc("Event.involvedObject")),
    wide("Subobject", "string", doc("ObjectReference.fieldPath")),
    wide("Source", "string", doc("Event.source")),
    column("Message", "string", doc("Event.message")),
    wide("First Seen", "string", doc("Event.firstTimestamp")),
    wide("Count", "string", doc("Event.count")),
    column("Name", "string", doc("ObjectMeta.name"), { priority: 1, format: "name" }),
  ],
  (event, now) => {
    const first = at(event, "firstTimestamp") != null
      ? since(at(event, "firstTimestamp"), now)
      : since(at(event, "eventTime"), now);
    let last = at(event, "lastTimestamp") != null ? since(at(event, "lastTimestamp"), now) : first;
    let count = int(event, "count");
    const series = record(event, "series");
    if (series !== undefined) {
      last = since(series.lastObservedTime, now);
      count = int(series, "count");
    } else if (count === 0) {
      count = 1; // a singleton event of the new API has no count
    }
    const kind = str(event, "involvedObject", "kind").toLowerCase();
    const objectName = str(event, "involvedObject", "name");
    const component = str(event, "source", "component") || str(event, "reportingComponent");
    const instance = str(event, "source", "host") || str(event, "reportingInstance");
    return [
      last,
      str(event, "type"),
      str(event, "reason"),
      objectName === "" ? kind : `${kind}/${objectName}`,
      str(event, "involvedObject", "fieldPath"),
      instance === "" ? component : `${component}, ${instance}`,
      str(event, "message").trim(),
      first,
      count,
      event.metadata?.name ?? "",
    ];
  },
);
