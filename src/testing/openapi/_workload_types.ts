/**
 * Workload, service, node and volume types in the notation of `_schema_dsl.ts` (k8s.io/api at
 * v0.33): apps/v1 Deployment, ReplicaSet, StatefulSet, DaemonSet; batch/v1 Job and CronJob;
 * core/v1 Service, Endpoints, Node, PersistentVolume(Claim), ReplicationController;
 * networking/v1 Ingress. Parts not spelled out (volume sources of persistent volumes, pod
 * failure and success policies, node config) are `open`. Internal.
 * @module
 */
import type { TypeDef } from "./_schema_dsl.ts";

const t = (pkg: string) => (description: string, fields: Record<string, string>): TypeDef => ({
  pkg,
  description,
  fields,
});
const core = t("core.v1");
const apps = t("apps.v1");
const batch = t("batch.v1");
const networking = t("networking.v1");

const condition = (of: string) => ({
  lastTransitionTime: "Time",
  message: "string",
  reason: "string",
  status: "string",
  type: "string",
  ...(of === "Deployment" ? { lastUpdateTime: "Time" } : {}),
});

/** Workload and service types by short name. */
export const WORKLOAD_TYPES: Readonly<Record<string, TypeDef>> = {
  DeploymentSpec: apps(
    "DeploymentSpec is the specification of the desired behavior of the Deployment.",
    {
      minReadySeconds: "int32",
      paused: "bool",
      progressDeadlineSeconds: "int32",
      replicas: "int32",
      revisionHistoryLimit: "int32",
      selector: "LabelSelector",
      strategy: "DeploymentStrategy",
      template: "PodTemplateSpec",
    },
  ),
  DeploymentStrategy: apps(
    "DeploymentStrategy describes how to replace existing pods with new ones.",
    {
      rollingUpdate: "RollingUpdateDeployment",
      type: "string",
    },
  ),
  RollingUpdateDeployment: apps("Spec to control the desired behavior of rolling update.", {
    maxSurge: "IntOrString",
    maxUnavailable: "IntOrString",
  }),
  DeploymentStatus: apps(
    "DeploymentStatus is the most recently observed status of the Deployment.",
    {
      availableReplicas: "int32",
      collisionCount: "int32",
      conditions: "[DeploymentCondition@type]",
      observedGeneration: "int64",
      readyReplicas: "int32",
      replicas: "int32",
      terminatingReplicas: "int32",
      unavailableReplicas: "int32",
      updatedReplicas: "int32",
    },
  ),
  DeploymentCondition: apps(
    "DeploymentCondition describes the state of a deployment at a certain point.",
    condition("Deployment"),
  ),
  ReplicaSetSpec: apps("ReplicaSetSpec is the specification of a ReplicaSet.", {
    minReadySeconds: "int32",
    replicas: "int32",
    selector: "LabelSelector",
    template: "PodTemplateSpec",
  }),
  ReplicaSetStatus: apps("ReplicaSetStatus represents the current status of a ReplicaSet.", {
    availableReplicas: "int32",
    conditions: "[ReplicaSetCondition@type]",
    fullyLabeledReplicas: "int32",
    observedGeneration: "int64",
    readyReplicas: "int32",
    replicas: "int32",
    terminatingReplicas: "int32",
  }),
  ReplicaSetCondition: apps(
    "ReplicaSetCondition describes the state of a replica set at a certain point.",
    condition(""),
  ),
  StatefulSetSpec: apps("A StatefulSetSpec is the specification of a StatefulSet.", {
    minReadySeconds: "int32",
    ordinals: "StatefulSetOrdinals",
    persistentVolumeClaimRetentionPolicy: "StatefulSetPersistentVolumeClaimRetentionPolicy",
    podManagementPolicy: "string",
    replicas: "int32",
    revisionHistoryLimit: "int32",
    selector: "LabelSelector",
    serviceName: "string",
    template: "PodTemplateSpec",
    updateStrategy: "StatefulSetUpdateStrategy",
    volumeClaimTemplates: "[PersistentVolumeClaim]",
  }),
  StatefulSetOrdinals: apps(
    "StatefulSetOrdinals describes the policy used for replica ordinal assignment in this StatefulSet.",
    {
      start: "int32",
    },
  ),
  StatefulSetPersistentVolumeClaimRetentionPolicy: apps(
    "StatefulSetPersistentVolumeClaimRetentionPolicy describes the policy used for PVCs created from the StatefulSet VolumeClaimTemplates.",
    { whenDeleted: "string", whenScaled: "string" },
  ),
  StatefulSetUpdateStrategy: apps(
    "StatefulSetUpdateStrategy indicates the strategy that the StatefulSet controller will use to perform updates.",
    {
      rollingUpdate: "RollingUpdateStatefulSetStrategy",
      type: "string",
    },
  ),
  RollingUpdateStatefulSetStrategy: apps(
    "RollingUpdateStatefulSetStrategy is used to communicate parameter for RollingUpdateStatefulSetStrategyType.",
    {
      maxUnavailable: "IntOrString",
      partition: "int32",
    },
  ),
  StatefulSetStatus: apps("StatefulSetStatus represents the current state of a StatefulSet.", {
    availableReplicas: "int32",
    collisionCount: "int32",
    conditions: "[StatefulSetCondition@type]",
    currentReplicas: "int32",
    currentRevision: "string",
    observedGeneration: "int64",
    readyReplicas: "int32",
    replicas: "int32",
    updateRevision: "string",
    updatedReplicas: "int32",
  }),
  StatefulSetCondition: apps(
    "StatefulSetCondition describes the state of a statefulset at a certain point.",
    condition(""),
  ),
  DaemonSetSpec: apps("DaemonSetSpec is the specification of a daemon set.", {
    minReadySeconds: "int32",
    revisionHistoryLimit: "int32",
    selector: "LabelSelector",
    template: "PodTemplateSpec",
    updateStrategy: "DaemonSetUpdateStrategy",
  }),
  DaemonSetUpdateStrategy: apps(
    "DaemonSetUpdateStrategy is a struct used to control the update strategy for a DaemonSet.",
    {
      rollingUpdate: "RollingUpdateDaemonSet",
      type: "string",
    },
  ),
  RollingUpdateDaemonSet: apps(
    "Spec to control the desired behavior of daemon set rolling update.",
    {
      maxSurge: "IntOrString",
      maxUnavailable: "IntOrString",
    },
  ),
  DaemonSetStatus: apps("DaemonSetStatus represents the current status of a daemon set.", {
    collisionCount: "int32",
    conditions: "[DaemonSetCondition@type]",
    currentNumberScheduled: "int32",
    desiredNumberScheduled: "int32",
    numberAvailable: "int32",
    numberMisscheduled: "int32",
    numberReady: "int32",
    numberUnavailable: "int32",
    observedGeneration: "int64",
    updatedNumberScheduled: "int32",
  }),
  DaemonSetCondition: apps(
    "DaemonSetCondition describes the state of a DaemonSet at a certain point.",
    condition(""),
  ),
  JobSpec: batch("JobSpec describes how the job execution will look like.", {
    activeDeadlineSeconds: "int64",
    backoffLimit: "int32",
    backoffLimitPerIndex: "int32",
    completionMode: "string",
    completions: "int32",
    managedBy: "string",
    manualSelector: "bool",
    maxFailedIndexes: "int32",
    parallelism: "int32",
    podFailurePolicy: "open",
    podReplacementPolicy: "string",
    selector: "LabelSelector",
    successPolicy: "open",
    suspend: "bool",
    template: "PodTemplateSpec",
    ttlSecondsAfterFinished: "int32",
  }),
  JobStatus: batch("JobStatus represents the current state of a Job.", {
    active: "int32",
    completedIndexes: "string",
    completionTime: "Time",
    conditions: "[JobCondition]",
    failed: "int32",
    failedIndexes: "string",
    ready: "int32",
    startTime: "Time",
    succeeded: "int32",
    terminating: "int32",
    uncountedTerminatedPods: "UncountedTerminatedPods",
  }),
  JobCondition: batch("JobCondition describes current state of a job.", {
    ...condition(""),
    lastProbeTime: "Time",
  }),
  UncountedTerminatedPods: batch(
    "UncountedTerminatedPods holds UIDs of Pods that have terminated but haven't been accounted in Job status counters.",
    { failed: "[string#]", succeeded: "[string#]" },
  ),
  CronJobSpec: batch(
    "CronJobSpec describes how the job execution will look like and when it will actually run.",
    {
      concurrencyPolicy: "string",
      failedJobsHistoryLimit: "int32",
      jobTemplate: "JobTemplateSpec",
      schedule: "string",
      startingDeadlineSeconds: "int64",
      successfulJobsHistoryLimit: "int32",
      suspend: "bool",
      timeZone: "string",
    },
  ),
  JobTemplateSpec: batch(
    "JobTemplateSpec describes the data a Job should have when created from a template",
    {
      metadata: "ObjectMeta",
      spec: "JobSpec",
    },
  ),
  CronJobStatus: batch("CronJobStatus represents the current state of a cron job.", {
    active: "[ObjectReference]",
    lastScheduleTime: "Time",
    lastSuccessfulTime: "Time",
  }),
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
    declaredFeatures: "[string]",
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
    ...condition(""),
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
      ...condition(""),
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

/**
 * The kinds described field by field (`group/version/Kind`): their top-level fields besides
 * `apiVersion`, `kind` and `metadata`.
 */
export const DESCRIBED_KINDS: Readonly<Record<string, Readonly<Record<string, string>>>> = {
  "/v1/Pod": { spec: "PodSpec", status: "PodStatus" },
  "/v1/PodTemplate": { template: "PodTemplateSpec" },
  "/v1/ReplicationController": {
    spec: "ReplicationControllerSpec",
    status: "ReplicationControllerStatus",
  },
  "/v1/Service": { spec: "ServiceSpec", status: "ServiceStatus" },
  "/v1/Endpoints": { subsets: "[EndpointSubset]" },
  "/v1/Node": { spec: "NodeSpec", status: "NodeStatus" },
  "/v1/PersistentVolume": { spec: "PersistentVolumeSpec", status: "PersistentVolumeStatus" },
  "/v1/PersistentVolumeClaim": {
    spec: "PersistentVolumeClaimSpec",
    status: "PersistentVolumeClaimStatus",
  },
  "apps/v1/Deployment": { spec: "DeploymentSpec", status: "DeploymentStatus" },
  "apps/v1/ReplicaSet": { spec: "ReplicaSetSpec", status: "ReplicaSetStatus" },
  "apps/v1/StatefulSet": { spec: "StatefulSetSpec", status: "StatefulSetStatus" },
  "apps/v1/DaemonSet": { spec: "DaemonSetSpec", status: "DaemonSetStatus" },
  "batch/v1/Job": { spec: "JobSpec", status: "JobStatus" },
  "batch/v1/CronJob": { spec: "CronJobSpec", status: "CronJobStatus" },
  "networking.k8s.io/v1/Ingress": { spec: "IngressSpec", status: "IngressStatus" },
};
