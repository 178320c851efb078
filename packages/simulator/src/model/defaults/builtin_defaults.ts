/**
 * Common defaults kube-apiserver gives built-in objects written through the API, so kubectl
 * sees (and `kubectl diff` compares against) what a real cluster stores:
 *
 * - Deployment (`apps`): `spec.replicas` 1, `spec.strategy` `RollingUpdate` with
 *   `maxUnavailable` and `maxSurge` `25%`, `spec.revisionHistoryLimit` 10,
 *   `spec.progressDeadlineSeconds` 600 (on create and update, as defaulting runs on every
 *   decode);
 * - PersistentVolume, PersistentVolumeClaim: `status.phase` `Pending` on create;
 * - Service: `spec.type` `ClusterIP`, `sessionAffinity` `None`, `internalTrafficPolicy`
 *   `Cluster`, each port's `protocol` `TCP` and `targetPort` its `port`; a Service that is not
 *   `ExternalName` nor headless (`clusterIP: None`) gets a `clusterIP` from the default service
 *   range 10.96.0.0/12 (the lowest free address from 10.96.0.10: the simulated allocator is
 *   sequential where the real one is random), with `clusterIPs`, `ipFamilies` `[IPv4]` and
 *   `ipFamilyPolicy` `SingleStack`; an update that omits them keeps the allocated ones.
 *
 * Only writes through the HTTP API are defaulted; the cluster's control API (`create`,
 * `update`, `seed`) stores objects as given. Pod template defaults (`restartPolicy`,
 * `dnsPolicy`, container `imagePullPolicy`, ...) are not applied.
 * @module
 */
import type { KubeObject } from "@kinformer/kinformer/client";
import { isRecord } from "@kinformer/kinformer/internal";
import type { ResourceInfo } from "../registry/served_resources.ts";
import { fail, internalError } from "../../core/status.ts";

type Json = Record<string, unknown>;

/** A record at `holder[key]`, created when missing. */
function child(holder: Json, key: string): Json {
  const value = holder[key];
  if (isRecord(value)) return value;
  const made: Json = {};
  holder[key] = made;
  return made;
}

function setDefault(holder: Json, key: string, value: unknown): void {
  if (holder[key] === undefined || holder[key] === null) holder[key] = value;
}

/**
 * Defaults `obj` (an object being written over HTTP, before it is stored) in place.
 * `existing` lists the resource's stored objects (for the Service IP allocator) and `old` is
 * the object an update replaces.
 */
export function applyBuiltInDefaults(
  info: ResourceInfo,
  obj: Json,
  context: {
    readonly create: boolean;
    readonly existing: () => Iterable<KubeObject>;
    readonly old?: KubeObject | undefined;
  },
): void {
  const group = info.desc.group ?? "";
  const kind = info.desc.kind;
  if (group === "apps" && kind === "Deployment") {
    deploymentDefaults(obj);
  } else if (group === "" && (kind === "PersistentVolume" || kind === "PersistentVolumeClaim")) {
    if (context.create) {
      obj.status = { ...(isRecord(obj.status) ? obj.status : {}), phase: "Pending" };
    }
  } else if (group === "" && kind === "Service") {
    serviceDefaults(obj, context);
  }
}

function deploymentDefaults(obj: Json): void {
  const spec = child(obj, "spec");
  setDefault(spec, "replicas", 1);
  const strategy = child(spec, "strategy");
  setDefault(strategy, "type", "RollingUpdate");
  if (strategy.type === "RollingUpdate") {
    const rolling = child(strategy, "rollingUpdate");
    setDefault(rolling, "maxUnavailable", "25%");
    setDefault(rolling, "maxSurge", "25%");
  }
  setDefault(spec, "revisionHistoryLimit", 10);
  setDefault(spec, "progressDeadlineSeconds", 600);
}

/** The first address the simulated allocator hands out, and the range's end (10.96.0.0/12). */
const FIRST_IP = (10 << 24 | 96 << 16 | 10) >>> 0;
const LAST_IP = (10 << 24 | 111 << 16 | 255 << 8 | 254) >>> 0;

const ipText = (n: number) => [n >>> 24, (n >>> 16) & 255, (n >>> 8) & 255, n & 255].join(".");

function serviceDefaults(
  obj: Json,
  context: { create: boolean; existing: () => Iterable<KubeObject>; old?: KubeObject | undefined },
): void {
  const spec = child(obj, "spec");
  setDefault(spec, "type", "ClusterIP");
  if (spec.type === "ExternalName") return;
  setDefault(spec, "sessionAffinity", "None");
  setDefault(spec, "internalTrafficPolicy", "Cluster");
  if (Array.isArray(spec.ports)) {
    for (const port of spec.ports) {
      if (!isRecord(port)) continue;
      setDefault(port, "protocol", "TCP");
      if (typeof port.port === "number") setDefault(port, "targetPort", port.port);
    }
  }
  const oldSpec = context.old !== undefined && isRecord((context.old as Json).spec)
    ? (context.old as Json).spec as Json
    : undefined;
  if (spec.clusterIP === undefined || spec.clusterIP === "") {
    if (oldSpec !== undefined && typeof oldSpec.clusterIP === "string") {
      // As the API server's update: allocated values the request omits are kept.
      spec.clusterIP = oldSpec.clusterIP;
      if (spec.clusterIPs === undefined && Array.isArray(oldSpec.clusterIPs)) {
        spec.clusterIPs = oldSpec.clusterIPs;
      }
    } else if (context.create) {
      spec.clusterIP = allocate(context.existing());
    }
  }
  if (typeof spec.clusterIP !== "string") return;
  setDefault(spec, "clusterIPs", [spec.clusterIP]);
  setDefault(spec, "ipFamilies", oldSpec?.ipFamilies ?? ["IPv4"]);
  setDefault(spec, "ipFamilyPolicy", oldSpec?.ipFamilyPolicy ?? "SingleStack");
}

function allocate(existing: Iterable<KubeObject>): string {
  const used = new Set<string>();
  for (const svc of existing) {
    const ip = isRecord((svc as Json).spec) ? ((svc as Json).spec as Json).clusterIP : undefined;
    if (typeof ip === "string") used.add(ip);
  }
  for (let n = FIRST_IP; n <= LAST_IP; n++) {
    const ip = ipText(n);
    if (!used.has(ip)) return ip;
  }
  fail(internalError("failed to allocate a serviceIP: range is full"));
}
