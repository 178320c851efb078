/**
 * Service, endpoint, node, volume, replication controller and ingress types in the notation of
 * `_schema_dsl.ts` (k8s.io/api core/v1 and networking/v1 at v0.33). Parts not spelled out
 * (volume sources of persistent volumes, node config, images) are `open`. Internal.
 * @module
 */
import type { TypeDef } from "./_schema_dsl.ts";

const t = (pkg: string) => (description: string, fields: Record<string, string>): TypeDef => ({
  pkg,
  description,
  fields,
});
const core = t("core.v1");
const networking = t("networking.v1");

const condition = {
  lastTransitionTime: "Time",
  message: "string",
  reason: "string",
  status: "string",
  type: "string",
};

/** Service, node, volume and ingress types by short name. */
export const SERVICE_TYPES: Readonly<Record<string, TypeDef>> = {
  ObjectReference: core(
    "ObjectReference contains enough information to let you inspect or modify the referred object.",
    {
      apiVersion: "string",
      fieldPath: "string",
      kind: "string",
      name: "string",
      namespace: "string",
      resourceVersion: "string",
      uid: "string",
    },
  ),
  ServiceSpec: core("ServiceSpec describes the attributes that a user creates on a service.", {
    allocateLoadBalancerNodePorts: "bool",
    clusterIP: "string",
    clusterIPs: "[string]",
    externalIPs: "[string]",
    externalName: "string",
    externalTrafficPolicy: "string",
    healthCheckNodePort: "int32",
    internalTrafficPolicy: "string",
    ipFamilies: "[string]",
    ipFamilyPolicy: "string",
    loadBalancerClass: "string",
    loadBalancerIP: "string",
    loadBalancerSourceRanges: "[string]",
    ports: "[ServicePort@port,protocol]",
    publishNotReadyAddresses: "bool",
    selector: "{string}",
    sessionAffinity: "string",
    sessionAffinityConfig: "SessionAffinityConfig",
    trafficDistribution: "string",
    type: "string",
  }),
  ServicePort: core("ServicePort contains information on service's port.", {
    appProtocol: "string",
    name: "string",
    nodePort: "int32",
    port: "int32",
    protocol: "string",
    targetPort: "IntOrString",
  }),
  SessionAffinityConfig: core(
    "SessionAffinityConfig represents the configurations of session affinity.",
    {
      clientIP: "ClientIPConfig",
    },
  ),
  ClientIPConfig: core(
    "ClientIPConfig represents the configurations of Client IP based session affinity.",
    {
      timeoutSeconds: "int32",
    },
  ),
  ServiceStatus: core("ServiceStatus represents the current status of a service.", {
    conditions: "[Condition@type]",
    loadBalancer: "LoadBalancerStatus",
  }),
  LoadBalancerStatus: core("LoadBalancerStatus represents the status of a load-balancer.", {
    ingress: "[LoadBalancerIngress]",
  }),
  LoadBalancerIngress: core(
    "LoadBalancerIngress represents the status of a load-balancer ingress point.",
    {
      hostname: "string",
      ip: "string",
      ipMode: "string",
      ports: "[PortStatus]",
    },
  ),
  PortStatus: core("PortStatus represents the error condition of a service port", {
    error: "string",
    port: "int32",
    protocol: "string",
  }),
  EndpointSubset: core("EndpointSubset is a group of addresses with a common set of ports.", {
    addresses: "[EndpointAddress]",
    notReadyAddresses: "[EndpointAddress]",
    ports: "[EndpointPort]",
  }),
  EndpointAddress: core("EndpointAddress is a tuple that describes single IP address.", {
    hostname: "string",
    ip: "string",
    nodeName: "string",
    targetRef: "ObjectReference",
  }),
  EndpointPort: core("EndpointPort is a tuple that describes a single port.", {
    appProtocol: "string",
    name: "string",
    port: "int32",
    protocol: "string",
  }),
  NodeSpec: core("NodeSpec describes the attributes that a node is created with.", {
    configSource: "open",
    externalID: "string",
    podCIDR: "string",
    podCIDRs: "[string#]",
    providerID: "string",
    taints: "[Taint]",
    unschedulable: "bool",
  }),
  Taint: core(
    'The node this Taint is attached to has the "effect" on any pod that does not tolerate the Taint.',
    {
      effect: "string",
      key: "string",
      timeAdded: "Time",
      value: "string",
    },
  ),
  NodeStatus: core("NodeStatus is information about the current status of a node.", {
    addresses: "[NodeAddress@type]",
    allocatable: "{Quantity}",
    capacity: "{Quantity}",
    conditions: "[NodeCondition@type]",
    config: "open",
    daemonEndpoints: "open",
    features: "open",
    images: "[open]",
    nodeInfo: "NodeSystemInfo",
    phase: "string",
    runtimeHandlers: "[open]",
    volumesAttached: "[open]",
    volumesInUse: "[string]",
  }),
  NodeAddress: core("NodeAddress contains information for the node's address.", {
    address: "string",
    type: "string",
  }),
  NodeCondition: core("NodeCondition contains condition information for a node.", {
    ...condition,
    lastHeartbeatTime: "Time",
  }),
  NodeSystemInfo: core("NodeSystemInfo is a set of ids/uuids to uniquely identify the node.", {
    architecture: "string",
    bootID: "string",
    containerRuntimeVersion: "string",
    kernelVersion: "string",
    kubeProxyVersion: "string",
    kubeletVersion: "string",
    machineID: "string",
    operatingSystem: "string",
    osImage: "string",
    swap: "open",
    systemUUID: "string",
  }),
  PersistentVolumeSpec: core("PersistentVolumeSpec is the specification of a persistent volume.", {
    accessModes: "[string]",
    awsElasticBlockStore: "open",
    azureDisk: "open",
    azureFile: "open",
    capacity: "{Quantity}",
    cephfs: "open",
    cinder: "open",
    claimRef: "ObjectReference",
    csi: "open",
    fc: "open",
    flexVolume: "open",
    flocker: "open",
    gcePersistentDisk: "open",
    glusterfs: "open",
    hostPath: "HostPathVolumeSource",
    iscsi: "open",
    local: "open",
    mountOptions: "[string]",
    nfs: "open",
    nodeAffinity: "open",
    persistentVolumeReclaimPolicy: "string",
    photonPersistentDisk: "open",
    portworxVolume: "open",
    quobyte: "open",
    rbd: "open",
    scaleIO: "open",
    storageClassName: "string",
    storageos: "open",
    volumeAttributesClassName: "string",
    volumeMode: "string",
    vsphereVolume: "open",
  }),
  PersistentVolumeStatus: core(
    "PersistentVolumeStatus is the current status of a persistent volume.",
    {
      lastPhaseTransitionTime: "Time",
      message: "string",
      phase: "string",
      reason: "string",
    },
  ),
  PersistentVolumeClaim: core(
    "PersistentVolumeClaim is a user's request for and claim to a persistent volume",
    {
      apiVersion: "string",
      kind: "string",
      metadata: "ObjectMeta",
      spec: "PersistentVolumeClaimSpec",
      status: "PersistentVolumeClaimStatus",
    },
  ),
  PersistentVolumeClaimSpec: core(
    "PersistentVolumeClaimSpec describes the common attributes of storage devices and allows a Source for provider-specific attributes",
    {
      accessModes: "[string]",
      dataSource: "TypedLocalObjectReference",
      dataSourceRef: "TypedObjectReference",
      resources: "VolumeResourceRequirements",
      selector: "LabelSelector",
      storageClassName: "string",
      volumeAttributesClassName: "string",
      volumeMode: "string",
      volumeName: "string",
    },
  ),
  TypedLocalObjectReference: core(
    "TypedLocalObjectReference contains enough information to let you locate the typed referenced object inside the same namespace.",
    {
      apiGroup: "string",
      kind: "string",
      name: "string",
    },
  ),
  TypedObjectReference: core(
    "TypedObjectReference contains enough information to let you locate the typed referenced object",
    {
      apiGroup: "string",
      kind: "string",
      name: "string",
      namespace: "string",
    },
  ),
  VolumeResourceRequirements: core(
    "VolumeResourceRequirements describes the storage resource requirements for a volume.",
    {
      limits: "{Quantity}",
      requests: "{Quantity}",
    },
  ),
  PersistentVolumeClaimStatus: core(
    "PersistentVolumeClaimStatus is the current status of a persistent volume claim.",
    {
      accessModes: "[string]",
      allocatedResourceStatuses: "{string}",
      allocatedResources: "{Quantity}",
      capacity: "{Quantity}",
      conditions: "[PersistentVolumeClaimCondition@type]",
      currentVolumeAttributesClassName: "string",
      modifyVolumeStatus: "open",
      phase: "string",
    },
  ),
  PersistentVolumeClaimCondition: core(
    "PersistentVolumeClaimCondition contains details about state of pvc",
    {
      ...condition,
      lastProbeTime: "Time",
    },
  ),
  ReplicationControllerSpec: core(
    "ReplicationControllerSpec is the specification of a replication controller.",
    {
      minReadySeconds: "int32",
      replicas: "int32",
      selector: "{string}",
      template: "PodTemplateSpec",
    },
  ),
  ReplicationControllerStatus: core(
    "ReplicationControllerStatus represents the current status of a replication controller.",
    {
      availableReplicas: "int32",
      conditions: "[open@type]",
      fullyLabeledReplicas: "int32",
      observedGeneration: "int64",
      readyReplicas: "int32",
      replicas: "int32",
    },
  ),
  IngressSpec: networking("IngressSpec describes the Ingress the user wishes to exist.", {
    defaultBackend: "IngressBackend",
    ingressClassName: "string",
    rules: "[IngressRule]",
    tls: "[IngressTLS]",
  }),
  IngressBackend: networking(
    "IngressBackend describes all endpoints for a given service and port.",
    {
      resource: "TypedLocalObjectReference",
      service: "IngressServiceBackend",
    },
  ),
  IngressServiceBackend: networking(
    "IngressServiceBackend references a Kubernetes Service as a Backend.",
    {
      name: "string",
      port: "ServiceBackendPort",
    },
  ),
  ServiceBackendPort: networking("ServiceBackendPort is the service port being referenced.", {
    name: "string",
    number: "int32",
  }),
  IngressRule: networking(
    "IngressRule represents the rules mapping the paths under a specified host to the related backend services.",
    {
      host: "string",
      http: "HTTPIngressRuleValue",
    },
  ),
  HTTPIngressRuleValue: networking(
    "HTTPIngressRuleValue is a list of http selectors pointing to backends.",
    {
      paths: "[HTTPIngressPath]",
    },
  ),
  HTTPIngressPath: networking("HTTPIngressPath associates a path with a backend.", {
    backend: "IngressBackend",
    path: "string",
    pathType: "string",
  }),
  IngressTLS: networking(
    "IngressTLS describes the transport layer security associated with an ingress.",
    {
      hosts: "[string]",
      secretName: "string",
    },
  ),
  IngressStatus: networking("IngressStatus describe the current state of the Ingress.", {
    loadBalancer: "IngressLoadBalancerStatus",
  }),
  IngressLoadBalancerStatus: networking(
    "IngressLoadBalancerStatus represents the status of a load-balancer.",
    {
      ingress: "[IngressLoadBalancerIngress]",
    },
  ),
  IngressLoadBalancerIngress: networking(
    "IngressLoadBalancerIngress represents the status of a load-balancer ingress point.",
    {
      hostname: "string",
      ip: "string",
      ports: "[IngressPortStatus]",
    },
  ),
  IngressPortStatus: networking(
    "IngressPortStatus represents the error condition of a service port",
    {
      error: "string",
      port: "int32",
      protocol: "string",
    },
  ),
};
