/**
 * A `coordination.k8s.io/v1` Lease read and written as a leader-election record, with
 * optimistic concurrency: every update carries the resourceVersion it was based on, so a write
 * based on a stale read fails with 409 Conflict instead of overwriting another holder.
 * @module
 */
import { KubeApiError } from "../../client/errors.ts";
import type { KubeClient } from "../../client/kube_client.ts";
import { leases } from "../../client/resource.ts";
import type { KubeObject } from "../../client/types.ts";
import { formatMicroTime, parseMicroTime } from "../../util/micro_time.ts";
import { checkOptionsObject, requireNonEmptyString } from "../../util/validate.ts";
import { describeValue, isRecord } from "../../util/values.ts";

/**
 * The leader-election fields of a Lease's `spec`, with times as milliseconds since the epoch.
 *
 * @example
 * ```ts
 * import type { LeaseRecord } from "@kinformer/kinformer/controller";
 * import assert from "node:assert/strict";
 * const record: LeaseRecord = {
 *   holderIdentity: "replica-a",
 *   leaseDurationSeconds: 15,
 *   acquireTime: Date.UTC(2026, 0, 1),
 *   renewTime: Date.UTC(2026, 0, 1, 0, 0, 2),
 *   leaseTransitions: 0,
 * };
 * assert.equal(record.renewTime! - record.acquireTime!, 2_000);
 * ```
 */
export interface LeaseRecord {
  /** Who holds the lease; `""` when nobody does (released or never taken). */
  holderIdentity: string;
  /**
   * How long candidates wait, after they last saw the record change, before taking it over.
   * A lease without one counts as expired as soon as it is seen.
   */
  leaseDurationSeconds: number;
  /** When the current holder acquired it (MicroTime on the wire), if known. */
  acquireTime: number | undefined;
  /** When the holder last renewed it (MicroTime on the wire), if known. Informational only. */
  renewTime: number | undefined;
  /** How many times the lease changed hands. */
  leaseTransitions: number;
}

/**
 * A Lease as read from (or written to) the server: its record, its `resourceVersion` (the
 * basis of the next conditional update) and the whole object.
 *
 * @example
 * ```ts
 * import { leaseSnapshot } from "@kinformer/kinformer/controller";
 * import assert from "node:assert/strict";
 * const snapshot = leaseSnapshot({
 *   metadata: { name: "ctl", namespace: "default", resourceVersion: "7" },
 *   spec: { holderIdentity: "a", leaseDurationSeconds: 15, leaseTransitions: 2 },
 * });
 * assert.equal(snapshot.record.holderIdentity, "a");
 * assert.equal(snapshot.resourceVersion, "7");
 * assert.equal(snapshot.record.leaseTransitions, 2);
 * ```
 */
export interface LeaseSnapshot {
  /** The leader-election fields. */
  readonly record: LeaseRecord;
  /** `metadata.resourceVersion`: changes on every write. */
  readonly resourceVersion: string;
  /** The Lease object as the server returned it. */
  readonly lease: KubeObject;
}

/**
 * Reads the leader-election record out of a Lease object. Malformed fields read as absent
 * (times), `""` (holder) or `0` (numbers): a record nobody can claim to hold for long.
 *
 * @example
 * ```ts
 * import { leaseSnapshot } from "@kinformer/kinformer/controller";
 * import assert from "node:assert/strict";
 * const s = leaseSnapshot({
 *   metadata: { name: "ctl", resourceVersion: "3" },
 *   spec: { holderIdentity: "b", renewTime: "2026-01-01T00:00:02.000000Z" },
 * });
 * assert.equal(s.record.renewTime, Date.UTC(2026, 0, 1, 0, 0, 2));
 * assert.equal(s.record.leaseDurationSeconds, 0);
 * ```
 */
export function leaseSnapshot(lease: KubeObject): LeaseSnapshot {
  const spec = isRecord(lease.spec) ? lease.spec : {};
  const time = (v: unknown): number | undefined =>
    typeof v === "string" ? parseMicroTime(v) : undefined;
  const int = (v: unknown): number => (typeof v === "number" && Number.isInteger(v) ? v : 0);
  return {
    record: {
      holderIdentity: typeof spec.holderIdentity === "string" ? spec.holderIdentity : "",
      leaseDurationSeconds: int(spec.leaseDurationSeconds),
      acquireTime: time(spec.acquireTime),
      renewTime: time(spec.renewTime),
      leaseTransitions: int(spec.leaseTransitions),
    },
    resourceVersion: lease.metadata.resourceVersion ?? "",
    lease,
  };
}

/** Constructor options of {@linkcode LeaseLock}. */
export interface LeaseLockOptions {
  /** The client the Lease is read and written with. */
  client: KubeClient;
  /** Namespace of the Lease. */
  namespace: string;
  /** Name of the Lease (a DNS subdomain). */
  name: string;
  /**
   * Labels put on the Lease when this lock creates or updates it (e.g. to list a group of
   * leases with a label selector).
   * @default {}
   */
  labels?: Readonly<Record<string, string>> | undefined;
}

/**
 * One Lease used as a lock: `get`, `create` and conditional `update` of its record, and
 * `delete`. Stateless: the caller keeps the last {@linkcode LeaseSnapshot} and passes it to
 * `update`, whose PUT carries that snapshot's `resourceVersion` (409 Conflict when stale).
 *
 * @example
 * ```ts
 * import { KubeClient } from "@kinformer/kinformer/client";
 * import { LeaseLock } from "@kinformer/kinformer/controller";
 * import { SimulatedCluster } from "@kinformer/kinformer/testing";
 * import assert from "node:assert/strict";
 *
 * const cluster = new SimulatedCluster();
 * const client = new KubeClient({ server: "http://sim", fetch: cluster.fetch });
 * const lock = new LeaseLock({ client, namespace: "default", name: "my-controller" });
 * const now = Date.now();
 * const created = await lock.create({
 *   holderIdentity: "a", leaseDurationSeconds: 15, acquireTime: now, renewTime: now, leaseTransitions: 0,
 * });
 * const renewed = await lock.update(created, { ...created.record, renewTime: now + 2_000 });
 * await assert.rejects(lock.update(created, created.record), { code: 409 }); // stale resourceVersion
 * assert.equal((await lock.get())?.resourceVersion, renewed.resourceVersion);
 * cluster.close();
 * ```
 */
export class LeaseLock {
  readonly #client: KubeClient;
  readonly #labels: Readonly<Record<string, string>>;
  /** Namespace of the Lease. */
  readonly namespace: string;
  /** Name of the Lease. */
  readonly name: string;

  /** Validates the options; starts no I/O. */
  constructor(options: LeaseLockOptions) {
    checkOptionsObject(options, "LeaseLock");
    if (options === undefined) throw new TypeError("LeaseLock: options are required");
    const client = options.client as Partial<KubeClient> | undefined;
    if (
      typeof client !== "object" || client === null || typeof client.get !== "function" ||
      typeof client.create !== "function" || typeof client.replace !== "function"
    ) {
      throw new TypeError(`client must be a KubeClient, got ${describeValue(options.client)}`);
    }
    requireNonEmptyString(options.namespace, "namespace");
    requireNonEmptyString(options.name, "name");
    const labels = options.labels ?? {};
    if (!isRecord(labels) || Object.values(labels).some((v) => typeof v !== "string")) {
      throw new TypeError(`labels must be an object of strings, got ${describeValue(labels)}`);
    }
    this.#client = options.client;
    this.#labels = { ...labels };
    this.namespace = options.namespace;
    this.name = options.name;
  }

  /** `namespace/name`, for messages. */
  describe(): string {
    return `${this.namespace}/${this.name}`;
  }

  /**
   * Reads the Lease; `undefined` when it does not exist.
   * @throws {KubeApiError} / {@linkcode KubeNetworkError} for any other failure.
   */
  async get(signal?: AbortSignal): Promise<LeaseSnapshot | undefined> {
    try {
      const lease = await this.#client.get(leases, this.name, {
        namespace: this.namespace,
        signal,
      });
      return leaseSnapshot(lease);
    } catch (error) {
      if (error instanceof KubeApiError && error.code === 404) return undefined;
      throw error;
    }
  }

  /**
   * Creates the Lease with `record`.
   * @throws {KubeApiError} 409 AlreadyExists when another candidate created it first.
   */
  async create(record: LeaseRecord, signal?: AbortSignal): Promise<LeaseSnapshot> {
    const lease: KubeObject = {
      apiVersion: "coordination.k8s.io/v1",
      kind: "Lease",
      metadata: {
        name: this.name,
        namespace: this.namespace,
        ...(Object.keys(this.#labels).length > 0 ? { labels: { ...this.#labels } } : {}),
      },
      spec: leaseSpec({}, record),
    };
    return leaseSnapshot(await this.#client.create(leases, lease, { signal }));
  }

  /**
   * Writes `record` over the Lease `previous` was read from, conditional on its
   * `resourceVersion`. Other fields of the Lease (labels, annotations, other `spec` fields)
   * are kept as they were in `previous`.
   * @throws {KubeApiError} 409 Conflict when the Lease changed since `previous`, 404 when it
   * is gone.
   */
  async update(
    previous: LeaseSnapshot,
    record: LeaseRecord,
    signal?: AbortSignal,
  ): Promise<LeaseSnapshot> {
    const old = previous.lease;
    const labels = { ...old.metadata.labels, ...this.#labels };
    const lease: KubeObject = {
      ...old,
      apiVersion: "coordination.k8s.io/v1",
      kind: "Lease",
      metadata: {
        ...old.metadata,
        name: this.name,
        namespace: this.namespace,
        resourceVersion: previous.resourceVersion,
        ...(Object.keys(labels).length > 0 ? { labels } : {}),
      },
      spec: leaseSpec(isRecord(old.spec) ? old.spec : {}, record),
    };
    return leaseSnapshot(await this.#client.replace(leases, lease, { signal }));
  }

  /**
   * Deletes the Lease (garbage collection of a departed member); a Lease already gone is not
   * an error.
   */
  async delete(signal?: AbortSignal): Promise<void> {
    try {
      await this.#client.delete(leases, this.name, { namespace: this.namespace, signal });
    } catch (error) {
      if (error instanceof KubeApiError && error.code === 404) return;
      throw error;
    }
  }
}

/** `spec` with the record's fields over `base`'s; times in MicroTime, absent ones left out. */
function leaseSpec(base: Record<string, unknown>, record: LeaseRecord): Record<string, unknown> {
  const spec: Record<string, unknown> = { ...base };
  spec.holderIdentity = record.holderIdentity;
  spec.leaseDurationSeconds = record.leaseDurationSeconds;
  delete spec.acquireTime;
  delete spec.renewTime;
  if (record.acquireTime !== undefined) spec.acquireTime = formatMicroTime(record.acquireTime);
  if (record.renewTime !== undefined) spec.renewTime = formatMicroTime(record.renewTime);
  spec.leaseTransitions = record.leaseTransitions;
  return spec;
}
