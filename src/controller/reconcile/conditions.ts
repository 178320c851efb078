/**
 * `metav1.Condition` lists, as apimachinery's `meta.SetStatusCondition` and friends handle them:
 * set, find, remove; `lastTransitionTime` changes only when the status changes. Written to the
 * status subresource (`client.replace(resource, object, { subresource: "status" })`, or
 * {@linkcode updateWithRetry} with `subresource: "status"`).
 * @module
 */
import { type Clock, systemClock } from "../../util/clock.ts";
import { checkClock, checkOptionsObject } from "../../util/validate.ts";
import { describeValue } from "../../util/values.ts";
import { isDnsSubdomain } from "../../util/dns_names.ts";

/**
 * One entry of a `status.conditions` list: Kubernetes' `metav1.Condition`.
 *
 * @example
 * ```ts
 * import type { Condition } from "@kinformer/kinformer/controller";
 * import assert from "node:assert/strict";
 * const ready: Condition = {
 *   type: "Ready", status: "True", reason: "Available", message: "",
 *   lastTransitionTime: "2026-01-01T00:00:00Z", observedGeneration: 3,
 * };
 * assert.equal(ready.status, "True");
 * ```
 */
export interface Condition {
  /** CamelCase (or `domain/CamelCase`) name of the condition, e.g. `Ready`. */
  type: string;
  /** `True`, `False` or `Unknown`. */
  status: "True" | "False" | "Unknown";
  /** `metadata.generation` of the object the condition was computed from. */
  observedGeneration?: number;
  /** When `status` last changed: RFC 3339 in whole seconds (`metav1.Time`). */
  lastTransitionTime: string;
  /** Why, as a CamelCase word (`MinimumReplicasUnavailable`). */
  reason: string;
  /** Details for humans; may be empty. */
  message: string;
}

/**
 * What {@linkcode setCondition} takes: a {@linkcode Condition} whose `message` may be left out
 * (empty) and whose `lastTransitionTime` is filled in when the status changes.
 *
 * @example
 * ```ts
 * import type { ConditionInput } from "@kinformer/kinformer/controller";
 * import assert from "node:assert/strict";
 * const input: ConditionInput = { type: "Ready", status: "False", reason: "Progressing" };
 * assert.equal(input.message, undefined);
 * ```
 */
export interface ConditionInput {
  /** CamelCase (or `domain/CamelCase`) name of the condition. */
  type: string;
  /** `True`, `False` or `Unknown`. */
  status: "True" | "False" | "Unknown";
  /** Why, as a CamelCase word. */
  reason: string;
  /** Details for humans. @default "" */
  message?: string | undefined;
  /** `metadata.generation` the condition was computed from. @default undefined (left out) */
  observedGeneration?: number | undefined;
  /**
   * Used when the status changes (or the condition is new).
   * @default now, from `options.clock`
   */
  lastTransitionTime?: string | undefined;
}

/** Options of {@linkcode setCondition}. */
export interface SetConditionOptions {
  /** Time source of `lastTransitionTime`. @default systemClock */
  clock?: Clock | undefined;
}

// The API server's validation of metav1.Condition (apimachinery's ValidateConditions).
const TYPE_NAME = /^([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]$/;
const REASON = /^[A-Za-z]([A-Za-z0-9_,:]*[A-Za-z0-9_])?$/;
const STATUSES: readonly string[] = ["True", "False", "Unknown"];

function checkConditionType(type: unknown, where: string): asserts type is string {
  if (typeof type === "string" && type.length <= 316) {
    const slash = type.lastIndexOf("/");
    const name = type.slice(slash + 1);
    const prefix = slash < 0 ? undefined : type.slice(0, slash);
    if (
      name.length <= 63 && TYPE_NAME.test(name) && (prefix === undefined || isDnsSubdomain(prefix))
    ) return;
  }
  throw new TypeError(
    `${where}: type must be a qualified name such as "Ready" or "example.com/Ready", got ${
      describeValue(type)
    }`,
  );
}

/** Throws TypeError/RangeError naming the field when `c` is not a valid condition to set. */
function checkInput(c: ConditionInput): void {
  if (typeof c !== "object" || c === null) {
    throw new TypeError(`setCondition: condition must be an object, got ${describeValue(c)}`);
  }
  checkConditionType(c.type, "setCondition");
  if (!STATUSES.includes(c.status)) {
    throw new TypeError(
      `setCondition: status must be "True", "False" or "Unknown", got ${describeValue(c.status)}`,
    );
  }
  if (typeof c.reason !== "string" || c.reason.length > 1024 || !REASON.test(c.reason)) {
    throw new TypeError(
      `setCondition: reason must be a CamelCase word (letters, digits, '_', ',', ':'; at most 1024), got ${
        describeValue(c.reason)
      }`,
    );
  }
  if (c.message !== undefined && typeof c.message !== "string") {
    throw new TypeError(`setCondition: message must be a string, got ${describeValue(c.message)}`);
  }
  if (c.message !== undefined && c.message.length > 32768) {
    throw new RangeError(`setCondition: message must be at most 32768 characters`);
  }
  const g = c.observedGeneration;
  if (g !== undefined && (typeof g !== "number" || !Number.isSafeInteger(g) || g < 0)) {
    throw new RangeError(
      `setCondition: observedGeneration must be an integer >= 0, got ${describeValue(g)}`,
    );
  }
  if (c.lastTransitionTime !== undefined && typeof c.lastTransitionTime !== "string") {
    throw new TypeError(
      `setCondition: lastTransitionTime must be a string, got ${
        describeValue(c.lastTransitionTime)
      }`,
    );
  }
}

/** `ms` as a `metav1.Time`: RFC 3339 in whole seconds, UTC. */
function formatTime(ms: number): string {
  return new Date(Math.floor(ms / 1000) * 1000).toISOString().replace(/\.\d{3}Z$/, "Z");
}

/**
 * Sets `condition` in `conditions` as `meta.SetStatusCondition` does, and returns the new list:
 *
 * - a condition of a new `type` is appended, with `lastTransitionTime` (given, or now);
 * - for an existing `type`, `lastTransitionTime` changes only when `status` changes;
 *   `reason`, `message` and `observedGeneration` become what is given (a left-out
 *   `observedGeneration` is removed, as Go's zero value would be);
 * - when nothing changes, the same array comes back (`next === conditions`), so a caller writes
 *   the status only when it is not. Otherwise a new array: the input is not changed.
 *
 * @throws {TypeError} for a `type`, `status` or `reason` the API server would refuse.
 *
 * @example
 * ```ts
 * import { ManualClock } from "@kinformer/kinformer/testing";
 * import { findCondition, setCondition } from "@kinformer/kinformer/controller";
 * import assert from "node:assert/strict";
 *
 * const clock = new ManualClock(Date.UTC(2026, 0, 1));
 * let conditions = setCondition([], { type: "Ready", status: "False", reason: "Progressing" }, { clock });
 * await clock.advance(60_000);
 * // Same status, new reason: the transition time stays.
 * conditions = setCondition(conditions, { type: "Ready", status: "False", reason: "Scaling" }, { clock });
 * assert.equal(findCondition(conditions, "Ready")?.lastTransitionTime, "2026-01-01T00:00:00Z");
 * // New status: the transition time moves.
 * conditions = setCondition(conditions, {
 *   type: "Ready", status: "True", reason: "Available", observedGeneration: 2,
 * }, { clock });
 * assert.equal(findCondition(conditions, "Ready")?.lastTransitionTime, "2026-01-01T00:01:00Z");
 * // Nothing changes: the same array comes back.
 * const again = setCondition(conditions, {
 *   type: "Ready", status: "True", reason: "Available", observedGeneration: 2,
 * }, { clock });
 * assert.equal(again, conditions);
 * ```
 */
export function setCondition(
  conditions: readonly Condition[] | undefined,
  condition: ConditionInput,
  options: SetConditionOptions = {},
): Condition[] {
  checkOptionsObject(options, "setCondition");
  checkClock(options.clock, "clock");
  checkInput(condition);
  const list = conditions ?? [];
  const at = list.findIndex((c) => c.type === condition.type);
  const now = (): string =>
    condition.lastTransitionTime ?? formatTime(
      (options.clock ?? systemClock).now(),
    );
  const message = condition.message ?? "";
  if (at < 0) {
    const added: Condition = {
      type: condition.type,
      status: condition.status,
      lastTransitionTime: now(),
      reason: condition.reason,
      message,
    };
    if (condition.observedGeneration !== undefined) {
      added.observedGeneration = condition.observedGeneration;
    }
    return [...list, added];
  }
  const old = list[at]!;
  const next: Condition = { ...old };
  if (old.status !== condition.status) {
    next.status = condition.status;
    next.lastTransitionTime = now();
  }
  next.reason = condition.reason;
  next.message = message;
  if (condition.observedGeneration !== undefined) {
    next.observedGeneration = condition.observedGeneration;
  } else delete next.observedGeneration;
  if (
    next.status === old.status && next.reason === old.reason && next.message === old.message &&
    next.observedGeneration === old.observedGeneration &&
    next.lastTransitionTime === old.lastTransitionTime
  ) {
    return conditions === undefined ? [] : conditions as Condition[];
  }
  const out = [...list];
  out[at] = next;
  return out;
}

/**
 * The condition of `type` in `conditions`, or `undefined`.
 *
 * @example
 * ```ts
 * import { findCondition } from "@kinformer/kinformer/controller";
 * import assert from "node:assert/strict";
 * const conditions = [{ type: "Ready", status: "True" as const, reason: "Available", message: "", lastTransitionTime: "2026-01-01T00:00:00Z" }];
 * assert.equal(findCondition(conditions, "Ready")?.reason, "Available");
 * assert.equal(findCondition(conditions, "Degraded"), undefined);
 * ```
 */
export function findCondition(
  conditions: readonly Condition[] | undefined,
  type: string,
): Condition | undefined {
  return conditions?.find((c) => c.type === type);
}

/**
 * `conditions` without the condition of `type`: a new array, or the same one when there was no
 * such condition (`meta.RemoveStatusCondition`).
 *
 * @example
 * ```ts
 * import { removeCondition } from "@kinformer/kinformer/controller";
 * import assert from "node:assert/strict";
 * const conditions = [{ type: "Degraded", status: "False" as const, reason: "AsExpected", message: "", lastTransitionTime: "2026-01-01T00:00:00Z" }];
 * assert.deepEqual(removeCondition(conditions, "Degraded"), []);
 * assert.equal(removeCondition(conditions, "Ready"), conditions);
 * ```
 */
export function removeCondition(
  conditions: readonly Condition[] | undefined,
  type: string,
): Condition[] {
  const list = (conditions ?? []) as Condition[];
  return list.some((c) => c.type === type) ? list.filter((c) => c.type !== type) : list;
}

/**
 * Whether the condition of `type` is present with `status` (`meta.IsStatusConditionPresentAndEqual`;
 * `IsStatusConditionTrue` is `hasCondition(conditions, type, "True")`).
 *
 * @example
 * ```ts
 * import { hasCondition } from "@kinformer/kinformer/controller";
 * import assert from "node:assert/strict";
 * const conditions = [{ type: "Ready", status: "True" as const, reason: "Available", message: "", lastTransitionTime: "2026-01-01T00:00:00Z" }];
 * assert.equal(hasCondition(conditions, "Ready", "True"), true);
 * assert.equal(hasCondition(conditions, "Ready", "False"), false);
 * assert.equal(hasCondition(conditions, "Degraded", "False"), false);
 * ```
 */
export function hasCondition(
  conditions: readonly Condition[] | undefined,
  type: string,
  status: Condition["status"],
): boolean {
  return findCondition(conditions, type)?.status === status;
}
