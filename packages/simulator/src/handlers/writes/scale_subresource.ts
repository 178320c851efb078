/**
 * The `scale` subresource of the simulated cluster: an `autoscaling/v1` Scale view of an
 * object's `spec.replicas` (and `status.replicas`), and the replica count a Scale write asks for.
 * @module
 */
import type { KubeObject } from "@kinformer/kinformer/client";
import { describeValue, isRecord } from "@kinformer/kinformer/internal";
import { badRequest, fail, invalid } from "../../core/status.ts";

/** The Scale of `object` (its identity metadata, desired and observed replicas, selector). */
export function scaleOf(object: KubeObject): Record<string, unknown> {
  const meta = object.metadata;
  const metadata: Record<string, unknown> = { name: meta.name };
  if (meta.namespace !== undefined) metadata.namespace = meta.namespace;
  metadata.uid = meta.uid;
  metadata.resourceVersion = meta.resourceVersion;
  metadata.creationTimestamp = meta.creationTimestamp;
  const spec = isRecord(object.spec) ? object.spec : {};
  const observed = isRecord(object.status) ? object.status : {};
  const status: Record<string, unknown> = {
    replicas: typeof observed.replicas === "number" ? observed.replicas : 0,
  };
  const selector = isRecord(spec.selector) ? spec.selector.matchLabels : undefined;
  if (isRecord(selector)) {
    status.selector = Object.entries(selector).map(([k, v]) => `${k}=${String(v)}`).join(",");
  }
  const scale: Record<string, unknown> = { kind: "Scale", apiVersion: "autoscaling/v1" };
  scale.metadata = metadata;
  scale.spec = typeof spec.replicas === "number" ? { replicas: spec.replicas } : {};
  scale.status = status;
  return scale;
}

/**
 * The replica count a Scale write sets, checked: a Scale object whose `spec.replicas` is a
 * non-negative integer (400 for another kind, 422 for a bad count).
 */
export function requestedReplicas(scale: unknown, name: string): number {
  if (!isRecord(scale) || (scale.kind !== undefined && scale.kind !== "Scale")) {
    fail(badRequest("the body of a scale request must be an autoscaling/v1 Scale"));
  }
  const replicas = isRecord(scale.spec) ? scale.spec.replicas : undefined;
  if (typeof replicas !== "number" || !Number.isInteger(replicas) || replicas < 0) {
    fail(invalid("Scale", "autoscaling", name, [{
      reason: "FieldValueInvalid",
      field: "spec.replicas",
      message: `Invalid value: ${
        describeValue(replicas ?? null)
      }: must be greater than or equal to 0`,
    }]));
  }
  return replicas;
}
