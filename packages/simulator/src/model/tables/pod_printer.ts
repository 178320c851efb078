/**
 * The Table columns of pods, as kube-apiserver prints them: `NAME READY STATUS RESTARTS AGE`
 * and the wide `IP NODE NOMINATED NODE READINESS GATES`. STATUS is the aggregate the server
 * derives from the phase, the init and app container states, `deletionTimestamp` and the
 * scheduling gate (`Init:0/1`, `CrashLoopBackOff`, `Completed`, `Terminating`, ...), RESTARTS
 * counts the restarts with the time of the last one (`3 (5m ago)`).
 * @module
 */
import type { KubeObject } from "@kinformer/kinformer/client";
import { doc } from "./_field_docs.ts";
import { at, int, list, record, str } from "./_fields.ts";
import { humanDuration, parseTime, since } from "./human_duration.ts";
import {
  AGE,
  column,
  NAME,
  type PrintedRow,
  type RowCondition,
  type TableConvertor,
  wide,
} from "./table_convertor.ts";

const SUCCEEDED: readonly RowCondition[] = Object.freeze([{
  type: "Completed",
  status: "True",
  reason: "Succeeded",
  message: "The pod has completed successfully.",
}]);

const FAILED: readonly RowCondition[] = Object.freeze([{
  type: "Completed",
  status: "True",
  reason: "Failed",
  message: "The pod failed.",
}]);

/** A container status's last termination time, in ms (undefined when it never terminated). */
function lastTermination(status: unknown): number | undefined {
  const terminated = record(status, "lastState", "terminated");
  return terminated === undefined ? undefined : parseTime(terminated.finishedAt);
}

function hasTrueCondition(pod: KubeObject, type: string): boolean {
  return list(pod, "status", "conditions").some((c) =>
    str(c, "type") === type && str(c, "status") === "True"
  );
}

/** The status of the first condition of `type`, or undefined. */
function conditionStatus(pod: KubeObject, type: string): string | undefined {
  const c = list(pod, "status", "conditions").find((c) => str(c, "type") === type);
  return c === undefined ? undefined : str(c, "status");
}

/** A terminated state's reason: its own, else `Signal:N` or `ExitCode:N`. */
function terminationReason(terminated: Record<string, unknown>, prefix: string): string {
  const reason = str(terminated, "reason");
  if (reason !== "") return prefix + reason;
  const signal = int(terminated, "signal");
  return signal !== 0
    ? `${prefix}Signal:${signal}`
    : `${prefix}ExitCode:${int(terminated, "exitCode")}`;
}

function printPod(pod: KubeObject, now: number): PrintedRow {
  const phase = str(pod, "status", "phase");
  let reason = str(pod, "status", "reason") || phase;
  for (const c of list(pod, "status", "conditions")) {
    if (str(c, "type") === "PodScheduled" && str(c, "reason") === "SchedulingGated") {
      reason = "SchedulingGated";
    }
  }
  const initSpecs = list(pod, "spec", "initContainers");
  const restartable = new Set<string>();
  for (const c of initSpecs) {
    if (str(c, "restartPolicy") === "Always") restartable.add(str(c, "name"));
  }
  const total = list(pod, "spec", "containers").length + restartable.size;
  let ready = 0;
  let restarts = 0;
  let lastRestart: number | undefined;
  let sidecarRestarts = 0;
  let lastSidecarRestart: number | undefined;
  const later = (a: number | undefined, b: number | undefined) =>
    b === undefined ? a : a === undefined || b > a ? b : a;

  let initializing = false;
  const initStatuses = list(pod, "status", "initContainerStatuses");
  for (let i = 0; i < initStatuses.length; i++) {
    const s = initStatuses[i];
    const count = int(s, "restartCount");
    restarts += count;
    lastRestart = later(lastRestart, lastTermination(s));
    const isSidecar = restartable.has(str(s, "name"));
    if (isSidecar) {
      sidecarRestarts += count;
      lastSidecarRestart = later(lastSidecarRestart, lastTermination(s));
    }
    const terminated = record(s, "state", "terminated");
    const waiting = record(s, "state", "waiting");
    if (terminated !== undefined && int(terminated, "exitCode") === 0) continue;
    if (isSidecar && at(s, "started") === true) {
      if (at(s, "ready") === true) ready++;
      continue;
    }
    if (terminated !== undefined) {
      reason = terminationReason(terminated, "Init:");
    } else if (
      waiting !== undefined && str(waiting, "reason") !== "" &&
      str(waiting, "reason") !== "PodInitializing"
    ) {
      reason = `Init:${str(waiting, "reason")}`;
    } else {
      reason = `Init:${i}/${initSpecs.length}`;
    }
    initializing = true;
    break;
  }

  if (!initializing || conditionStatus(pod, "Initialized") === "True") {
    restarts = sidecarRestarts;
    lastRestart = lastSidecarRestart;
    let hasRunning = false;
    const statuses = list(pod, "status", "containerStatuses");
    for (let i = statuses.length - 1; i >= 0; i--) {
      const s = statuses[i];
      restarts += int(s, "restartCount");
      lastRestart = later(lastRestart, lastTermination(s));
      const waiting = record(s, "state", "waiting");
      const terminated = record(s, "state", "terminated");
      if (waiting !== undefined && str(waiting, "reason") !== "") {
        reason = str(waiting, "reason");
      } else if (terminated !== undefined) {
        reason = terminationReason(terminated, "");
      } else if (at(s, "ready") === true && record(s, "state", "running") !== undefined) {
        hasRunning = true;
        ready++;
      }
    }
    if (reason === "Completed" && hasRunning) {
      reason = hasTrueCondition(pod, "Ready") ? "Running" : "NotReady";
    }
  }

  const terminal = phase === "Succeeded" || phase === "Failed";
  const deleting = at(pod, "metadata", "deletionTimestamp") != null;
  if (deleting && str(pod, "status", "reason") === "NodeLost") reason = "Unknown";
  else if (deleting && !terminal) reason = "Terminating";

  let restartText = String(restarts);
  if (restarts !== 0 && lastRestart !== undefined) {
    restartText = `${restarts} (${humanDuration(now - lastRestart)} ago)`;
  }

  const ips = list(pod, "status", "podIPs");
  const podIP = str(ips[0], "ip") || str(pod, "status", "podIP") || "<none>";
  const gates = list(pod, "spec", "readinessGates");
  let gatesText = "<none>";
  if (gates.length > 0) {
    let trueCount = 0;
    for (const gate of gates) {
      if (conditionStatus(pod, str(gate, "conditionType")) === "True") trueCount++;
    }
    gatesText = `${trueCount}/${gates.length}`;
  }
  const row: PrintedRow = {
    cells: [
      pod.metadata?.name ?? "",
      `${ready}/${total}`,
      reason,
      restartText,
      since(pod.metadata?.creationTimestamp, now),
      podIP,
      str(pod, "spec", "nodeName") || "<none>",
      str(pod, "status", "nominatedNodeName") || "<none>",
      gatesText,
    ],
  };
  if (phase === "Succeeded") return { ...row, conditions: SUCCEEDED };
  if (phase === "Failed") return { ...row, conditions: FAILED };
  return row;
}

/** Pods: `NAME READY STATUS RESTARTS AGE` (+ `IP NODE NOMINATED NODE READINESS GATES`). */
export const POD_TABLE: TableConvertor = Object.freeze({
  columns: Object.freeze([
    NAME,
    column("Ready", "string", "The aggregate readiness state of this pod for accepting traffic."),
    column("Status", "string", "The aggregate status of the containers in this pod."),
    column(
      "Restarts",
      "string",
      "The number of times the containers in this pod have been restarted and when the last container in this pod has restarted.",
    ),
    AGE,
    wide("IP", "string", doc("PodStatus.podIP")),
    wide("Node", "string", doc("PodSpec.nodeName")),
    wide("Nominated Node", "string", doc("PodStatus.nominatedNodeName")),
    wide("Readiness Gates", "string", doc("PodSpec.readinessGates")),
  ]),
  row: printPod,
});
