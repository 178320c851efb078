/**
 * The options, input and counters of an {@linkcode EventRecorder}, and the checks
 * of what it records.
 * @module
 */
import type { KubeClient } from "../../client/kube_client.ts";
import type { ResourceDescriptor } from "../../client/resource.ts";
import type { KubeObjectLike } from "../../client/types.ts";
import type { Clock } from "../../util/clock.ts";
import type { OnError } from "../../util/error_context.ts";
import type { LifecycleState } from "../../util/lifecycle.ts";
import { requireNonEmptyString } from "../../util/validate.ts";
import { describeValue, isRecord } from "../../util/values.ts";
import type { ObjectReference } from "./_event_series.ts";

/** Options of {@linkcode EventRecorder}. */
export interface EventRecorderOptions {
  /** The client Events are written with (RBAC: `create` and `patch` on `events`). */
  client: KubeClient;
  /**
   * The controller's name, as a qualified name: `example.com/widget-controller`
   * (`reportingController`, `source.component` on core Events).
   */
  reportingController: string;
  /**
   * This instance of the controller, e.g. the pod name (`reportingInstance`).
   * @default `${reportingController}-` and 8 random hex digits
   */
  reportingInstance?: string | undefined;
  /**
   * Where Events go: `events.k8s.io/v1`, core `v1`, or `auto`: `events.k8s.io/v1` when the
   * server's discovery lists that group version, else core `v1` (asked once, before the first
   * write).
   * @default "auto"
   */
  api?: "auto" | "events.k8s.io/v1" | "v1" | undefined;
  /**
   * Writes waiting at most; a write beyond is dropped (and reported to `onError`). client-go
   * keeps 1000.
   * @default 1000
   */
  maxQueued?: number | undefined;
  /**
   * Distinct writes an object gets at once from this recorder (per regarding object and
   * type), then one more every `refillIntervalMs`: client-go's spam filter (25, then one per
   * 5 minutes). Occurrences that only count up a series are never limited.
   * @default 25
   */
  burst?: number | undefined;
  /** See `burst`. @default 300000 */
  refillIntervalMs?: number | undefined;
  /**
   * Attempts per write when the server cannot be reached or answers 5xx/429 (client-go: 12).
   * @default 12
   */
  maxTries?: number | undefined;
  /** Wait between attempts, plus up to 25% at random (client-go: 10 s). @default 10000 */
  retryDelayMs?: number | undefined;
  /** Writes in flight at once. @default 2 */
  concurrency?: number | undefined;
  /**
   * Events kept for series (isomorphic events); the least recently observed is dropped first.
   * @default 4096
   */
  maxCached?: number | undefined;
  /** Time source. @default systemClock */
  clock?: Clock | undefined;
  /** Random source in [0, 1) (retry jitter, the default instance name). @default Math.random */
  random?: (() => number) | undefined;
  /**
   * Told about writes that failed and writes dropped because the queue was full, with the one
   * `ErrorContext` of kinformer: phase `event`, `kind` what the error is (the API error's
   * kind; `other` for a full queue), `key` the Event (`namespace/name`), `action` whether the
   * write is tried again, and `retryInMs` when it is. It replaces the default printing. If it
   * throws, the error is rethrown on a microtask.
   * @default prints as every long-running object of kinformer does: the first error of each
   * kind at once, then at most one line per kind per minute with a count, and one line once a
   * write succeeds again (an outage prints a few lines a minute, not one per event)
   */
  onError?: OnError | undefined;
}

/** One event to record: what {@linkcode EventRecorder.record} takes besides the object. */
export interface EventInput<T extends KubeObjectLike = KubeObjectLike> {
  /** `Normal`, or `Warning` for something that needs attention. */
  type: "Normal" | "Warning";
  /** Why, in CamelCase (`ScalingReplicaSet`, `FailedCreate`); at most 128 characters. */
  reason: string;
  /** What was done or failed, in CamelCase (`Scale`, `Create`); at most 128 characters. */
  action: string;
  /** For humans; cut to 1024 bytes (the API server's limit). @default "" */
  note?: string | undefined;
  /** A second object involved (a child created, the node chosen). @default undefined */
  related?: KubeObjectLike | ObjectReference | undefined;
  /**
   * The regarding object's resource: its `apiVersion` and `kind` when the object carries none
   * (objects of a LIST do not).
   * @default undefined (taken from the object)
   */
  resource?: ResourceDescriptor<T> | undefined;
  /** The related object's resource, likewise. @default undefined */
  relatedResource?: ResourceDescriptor<KubeObjectLike> | undefined;
}

/**
 * Counters of a {@linkcode EventRecorder}.
 *
 * @example
 * ```ts
 * import type { EventRecorderHealth } from "@kinformer/kinformer/controller";
 * import assert from "node:assert/strict";
 * const h: EventRecorderHealth = {
 *   state: "running", api: "events.k8s.io/v1", queued: 0, inFlight: 0, cached: 3,
 *   recorded: 40, written: 4, rateLimited: 0, dropped: 0, failed: 0,
 * };
 * assert.ok(h.written <= h.recorded);
 * ```
 */
export interface EventRecorderHealth {
  /**
   * `idle` before `start`, `running`, `stopping` (writing what is queued), `stopped`: the one
   * vocabulary of every `health().state`.
   */
  state: LifecycleState;
  /** The API written to, once known. */
  api: "events.k8s.io/v1" | "v1" | undefined;
  /** Writes waiting. */
  queued: number;
  /** Writes in flight. */
  inFlight: number;
  /** Events kept for series. */
  cached: number;
  /** Occurrences recorded (series occurrences included). */
  recorded: number;
  /** Successful writes (creates and series patches). */
  written: number;
  /** Occurrences dropped by the per-object rate limit. */
  rateLimited: number;
  /** Writes dropped because the queue was full or the recorder had stopped. */
  dropped: number;
  /** Writes given up (refused by the server, or out of attempts). */
  failed: number;
}

export const NOTE_LIMIT_BYTES = 1024;
export const QUALIFIED_NAME =
  /^(([a-z0-9]([-a-z0-9]*[a-z0-9])?\.)*[a-z0-9]([-a-z0-9]*[a-z0-9])?\/)?[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?$/;

/** `note` cut to at most 1024 UTF-8 bytes, on a character boundary. Internal. */
export function cutNote(note: string): string {
  const bytes = new TextEncoder().encode(note);
  if (bytes.length <= NOTE_LIMIT_BYTES) return note;
  let end = NOTE_LIMIT_BYTES;
  while (end > 0 && (bytes[end]! & 0xc0) === 0x80) end--;
  return new TextDecoder().decode(bytes.subarray(0, end));
}

function apiVersionOf(resource: ResourceDescriptor<KubeObjectLike>): string {
  return resource.group ? `${resource.group}/${resource.version}` : resource.version;
}

/** The reference of an object (or a reference given as such), checked. Internal. */
export function referenceOf(
  value: unknown,
  resource: ResourceDescriptor<KubeObjectLike> | undefined,
  what: string,
): ObjectReference {
  if (!isRecord(value)) {
    throw new TypeError(
      `${what} must be an object or an ObjectReference, got ${describeValue(value)}`,
    );
  }
  const meta = value.metadata;
  if (isRecord(meta)) {
    const apiVersion = typeof value.apiVersion === "string" && value.apiVersion !== ""
      ? value.apiVersion
      : resource === undefined
      ? undefined
      : apiVersionOf(resource);
    const kind = typeof value.kind === "string" && value.kind !== "" ? value.kind : resource?.kind;
    if (apiVersion === undefined || kind === undefined) {
      throw new TypeError(
        `${what} has no apiVersion and kind (objects of a LIST carry none): give its resource`,
      );
    }
    if (typeof meta.name !== "string" || meta.name === "") {
      throw new TypeError(`${what} has no metadata.name`);
    }
    const ref: ObjectReference = { apiVersion, kind, name: meta.name };
    if (typeof meta.namespace === "string" && meta.namespace !== "") ref.namespace = meta.namespace;
    if (typeof meta.uid === "string") ref.uid = meta.uid;
    if (typeof meta.resourceVersion === "string") ref.resourceVersion = meta.resourceVersion;
    return ref;
  }
  for (const field of ["apiVersion", "kind", "name"] as const) {
    if (typeof value[field] !== "string" || value[field] === "") {
      throw new TypeError(`${what}.${field} must be a non-empty string`);
    }
  }
  const ref = { ...value } as unknown as ObjectReference;
  return ref;
}

export function checkWord(value: unknown, field: string): asserts value is string {
  requireNonEmptyString(value, field);
  if (value.length > 128) {
    throw new RangeError(`${field} must be at most 128 characters, got ${value.length}`);
  }
}
