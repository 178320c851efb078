/**
 * The Table columns of the workload kinds, as kube-apiserver prints them: deployments, replica
 * sets, stateful sets, daemon sets (`apps/v1`), replication controllers (`v1`), jobs and cron
 * jobs (`batch/v1`). Fields the API server defaults on create (`replicas` 1, `suspend` false)
 * print as their default when a stored object lacks them.
 * @module
 */
import type { KubeObject } from "@kinformer/kinformer/client";
import { doc } from "./_field_docs.ts";
import { at, int, list, optionalInt, str } from "./_fields.ts";
import { formatLabels, formatLabelSelector, selectorText } from "./_labels.ts";
import { humanDuration, parseTime, since } from "./human_duration.ts";
import {
  AGE,
  column,
  CONTAINERS,
  convertor,
  IMAGES,
  NAME,
  nameAndAge,
  type TableConvertor,
  wide,
} from "./table_convertor.ts";

/** Container names and images of a pod template, comma-separated. */
function containerCells(template: unknown): [string, string] {
  const containers = list(template, "spec", "containers");
  return [
    containers.map((c) => str(c, "name")).join(","),
    containers.map((c) => str(c, "image")).join(","),
  ];
}

/** `spec.replicas`, defaulted to 1 as the API server does on create. */
function replicas(obj: KubeObject): number {
  return optionalInt(obj, "spec", "replicas") ?? 1;
}

const SELECTOR_OF = (key: string) => wide("Selector", "string", doc(key));

/** Deployments: `NAME READY UP-TO-DATE AVAILABLE AGE` (+ containers, images, selector). */
export const DEPLOYMENT_TABLE: TableConvertor = convertor(
  [
    NAME,
    column("Ready", "string", "Number of the pod with ready state"),
    column("Up-to-date", "string", doc("DeploymentStatus.updatedReplicas")),
    column("Available", "string", doc("DeploymentStatus.availableReplicas")),
    AGE,
    CONTAINERS,
    IMAGES,
    SELECTOR_OF("DeploymentSpec.selector"),
  ],
  (d, now) => {
    const [name, age] = nameAndAge(d, now);
    const selector = selectorText(at(d, "spec", "selector"));
    return [
      name,
      `${int(d, "status", "readyReplicas")}/${replicas(d)}`,
      int(d, "status", "updatedReplicas"),
      int(d, "status", "availableReplicas"),
      age,
      ...containerCells(at(d, "spec", "template")),
      selector === undefined ? "<invalid>" : selector,
    ];
  },
);

/**
 * Replica sets and replication controllers: `NAME DESIRED CURRENT READY AGE` (+ containers,
 * images, selector); `selector` prints the selector (a label selector, or an RC's map).
 */
function replicaTable(
  kind: "ReplicaSet" | "ReplicationController",
  selector: (obj: KubeObject) => string,
): TableConvertor {
  return convertor(
    [
      NAME,
      column("Desired", "integer", doc(`${kind}Spec.replicas`)),
      column("Current", "integer", doc(`${kind}Status.replicas`)),
      column("Ready", "integer", doc(`${kind}Status.readyReplicas`)),
      AGE,
      CONTAINERS,
      IMAGES,
      SELECTOR_OF(`${kind}Spec.selector`),
    ],
    (obj, now) => {
      const [name, age] = nameAndAge(obj, now);
      return [
        name,
        replicas(obj),
        int(obj, "status", "replicas"),
        int(obj, "status", "readyReplicas"),
        age,
        ...containerCells(at(obj, "spec", "template")),
        selector(obj),
      ];
    },
  );
}

/** Replica sets: `NAME DESIRED CURRENT READY AGE` (+ containers, images, selector). */
export const REPLICA_SET_TABLE: TableConvertor = replicaTable(
  "ReplicaSet",
  (rs) => formatLabelSelector(at(rs, "spec", "selector")),
);

/** Replication controllers (`v1`): as replica sets, with a map selector. */
export const REPLICATION_CONTROLLER_TABLE: TableConvertor = replicaTable(
  "ReplicationController",
  (rc) => formatLabels(rc, "spec", "selector"),
);

/** Stateful sets: `NAME READY AGE` (+ containers, images). */
export const STATEFUL_SET_TABLE: TableConvertor = convertor(
  [NAME, column("Ready", "string", "Number of the pod with ready state"), AGE, CONTAINERS, IMAGES],
  (ss, now) => {
    const [name, age] = nameAndAge(ss, now);
    return [
      name,
      `${int(ss, "status", "readyReplicas")}/${replicas(ss)}`,
      age,
      ...containerCells(at(ss, "spec", "template")),
    ];
  },
);

/** Daemon sets: `NAME DESIRED CURRENT READY UP-TO-DATE AVAILABLE NODE SELECTOR AGE` (+ ...). */
export const DAEMON_SET_TABLE: TableConvertor = convertor(
  [
    NAME,
    column("Desired", "integer", doc("DaemonSetStatus.desiredNumberScheduled")),
    column("Current", "integer", doc("DaemonSetStatus.currentNumberScheduled")),
    column("Ready", "integer", doc("DaemonSetStatus.numberReady")),
    column("Up-to-date", "integer", doc("DaemonSetStatus.updatedNumberScheduled")),
    column("Available", "integer", doc("DaemonSetStatus.numberAvailable")),
    column("Node Selector", "string", doc("PodSpec.nodeSelector")),
    AGE,
    CONTAINERS,
    IMAGES,
    SELECTOR_OF("DaemonSetSpec.selector"),
  ],
  (ds, now) => {
    const [name, age] = nameAndAge(ds, now);
    return [
      name,
      int(ds, "status", "desiredNumberScheduled"),
      int(ds, "status", "currentNumberScheduled"),
      int(ds, "status", "numberReady"),
      int(ds, "status", "updatedNumberScheduled"),
      int(ds, "status", "numberAvailable"),
      formatLabels(ds, "spec", "template", "spec", "nodeSelector"),
      age,
      ...containerCells(at(ds, "spec", "template")),
      formatLabelSelector(at(ds, "spec", "selector")),
    ];
  },
);

/** The status of the first condition of `type` is `True`. */
function jobCondition(job: KubeObject, type: string): boolean {
  const c = list(job, "status", "conditions").find((c) => str(c, "type") === type);
  return c !== undefined && str(c, "status") === "True";
}

/** Jobs: `NAME STATUS COMPLETIONS DURATION AGE` (+ containers, images, selector). */
export const JOB_TABLE: TableConvertor = convertor(
  [
    NAME,
    column("Status", "string", "Status of the job."),
    column("Completions", "string", doc("JobStatus.succeeded")),
    column("Duration", "string", "Time required to complete the job."),
    AGE,
    CONTAINERS,
    IMAGES,
    SELECTOR_OF("JobSpec.selector"),
  ],
  (job, now) => {
    const [name, age] = nameAndAge(job, now);
    const succeeded = int(job, "status", "succeeded");
    const completions = optionalInt(job, "spec", "completions");
    const parallelism = optionalInt(job, "spec", "parallelism") ?? 0;
    const done = completions !== undefined
      ? `${succeeded}/${completions}`
      : parallelism > 1
      ? `${succeeded}/1 of ${parallelism}`
      : `${succeeded}/1`;
    const start = parseTime(at(job, "status", "startTime"));
    const end = parseTime(at(job, "status", "completionTime"));
    const duration = start === undefined
      ? ""
      : humanDuration((end === undefined ? now : end) - start);
    const status = jobCondition(job, "Complete")
      ? "Complete"
      : jobCondition(job, "Failed")
      ? "Failed"
      : at(job, "metadata", "deletionTimestamp") != null
      ? "Terminating"
      : jobCondition(job, "Suspended")
      ? "Suspended"
      : jobCondition(job, "FailureTarget")
      ? "FailureTarget"
      : "Running";
    return [
      name,
      status,
      done,
      duration,
      age,
      ...containerCells(at(job, "spec", "template")),
      formatLabelSelector(at(job, "spec", "selector")),
    ];
  },
);

/** Cron jobs: `NAME SCHEDULE TIMEZONE SUSPEND ACTIVE LAST SCHEDULE AGE` (+ ...). */
export const CRON_JOB_TABLE: TableConvertor = convertor(
  [
    NAME,
    column("Schedule", "string", doc("CronJobSpec.schedule")),
    column("Timezone", "string", doc("CronJobSpec.timeZone")),
    column("Suspend", "boolean", doc("CronJobSpec.suspend")),
    column("Active", "integer", doc("CronJobStatus.active")),
    column("Last Schedule", "string", doc("CronJobStatus.lastScheduleTime")),
    AGE,
    CONTAINERS,
    IMAGES,
    SELECTOR_OF("JobSpec.selector"),
  ],
  (cj, now) => {
    const [name, age] = nameAndAge(cj, now);
    const last = at(cj, "status", "lastScheduleTime");
    const suspend = at(cj, "spec", "suspend");
    const template = at(cj, "spec", "jobTemplate", "spec");
    return [
      name,
      str(cj, "spec", "schedule"),
      str(cj, "spec", "timeZone") || "<none>",
      suspend === true ? "True" : "False",
      list(cj, "status", "active").length,
      last == null ? "<none>" : since(last, now),
      age,
      ...containerCells(at(template, "template")),
      formatLabelSelector(at(template, "selector")),
    ];
  },
);
