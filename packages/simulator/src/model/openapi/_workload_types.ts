/**
 * Workload types in the notation of `_schema_dsl.ts` (k8s.io/api at v0.33): apps/v1 Deployment,
 * ReplicaSet, StatefulSet, DaemonSet; batch/v1 Job and CronJob; and the kinds described field by
 * field with their top-level fields. Parts not spelled out (pod failure and success policies)
 * are `open`. Internal.
 * @module
 */
import type { TypeDef } from "./_schema_dsl.ts";

const t = (pkg: string) => (description: string, fields: Record<string, string>): TypeDef => ({
  pkg,
  description,
  fields,
});
const apps = t("apps.v1");
const batch = t("batch.v1");

const condition = (of: string) => ({
  lastTransitionTime: "Time",
  message: "string",
  reason: "string",
  status: "string",
  type: "string",
  ...(of === "Deployment" ? { lastUpdateTime: "Time" } : {}),
});

/** Workload types by short name. */
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
