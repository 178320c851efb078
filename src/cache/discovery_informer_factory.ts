/**
 * Informers that follow discovery: one per served resource that a filter picks, started when
 * the resource appears (a CRD installed, an aggregated API registered) and stopped when it goes.
 * @module
 */
import type { KubeClient } from "../client/kube_client.ts";
import { defineResource } from "../client/define_resource.ts";
import { type DiscoveredResource, discoverResources } from "../client/discovery.ts";
import { customresourcedefinitions } from "../client/builtin_resources.ts";
import type { KubeObject } from "../client/types.ts";
import { linkedController } from "../util/abort.ts";
import { type Clock, sleep, systemClock } from "../util/clock.ts";
import type { OnError } from "../util/error_context.ts";
import { ErrorReporter, type ReportDetails } from "../util/error_reporter.ts";
import { checkFunction, checkNumber } from "../util/validate.ts";
import { SharedInformerFactory, type SharedInformerFactoryOptions } from "./factory.ts";
import type { SharedInformer } from "./informer.ts";
import type { InformerLease } from "./informer_lease.ts";

/**
 * How often discovery is read again when nothing else says it changed: 30 s, the period at
 * which kube-controller-manager's garbage collector re-reads discovery to follow CRDs and
 * aggregated APIs. Two requests per period with aggregated discovery (Kubernetes 1.30 and
 * later).
 *
 * @example
 * ```ts
 * import { DEFAULT_DISCOVERY_INTERVAL_MS } from "@kinformer/kinformer/cache";
 * import assert from "node:assert/strict";
 * assert.equal(DEFAULT_DISCOVERY_INTERVAL_MS, 30_000);
 * ```
 */
export const DEFAULT_DISCOVERY_INTERVAL_MS = 30_000;

/** Options of {@linkcode DiscoveryInformerFactory}. */
export interface DiscoveryInformerFactoryOptions {
  /**
   * Which discovered resources get an informer. Only resources that support `list` and
   * `watch` are offered.
   * @default the preferred version of every resource
   */
  filter?: ((resource: DiscoveredResource) => boolean) | undefined;
  /** Options of every informer (namespace, selectors, transform, ...). @default {} */
  informer?: SharedInformerFactoryOptions | undefined;
  /** Time between discovery reads, in ms. @default 30000 ({@linkcode DEFAULT_DISCOVERY_INTERVAL_MS}) */
  intervalMs?: number | undefined;
  /**
   * Also watch CustomResourceDefinitions and read discovery again as soon as one changes,
   * so a CRD's resources are followed within moments rather than at the next poll. Needs
   * permission to list and watch CRDs.
   * @default false
   */
  followCrds?: boolean | undefined;
  /** A resource appeared and its informer started. @default undefined */
  onAdded?:
    | ((resource: DiscoveredResource, informer: SharedInformer<KubeObject>) => void)
    | undefined;
  /** A resource went away and its informer stopped. @default undefined */
  onRemoved?:
    | ((resource: DiscoveredResource, informer: SharedInformer<KubeObject>) => void)
    | undefined;
  /**
   * Errors of reading discovery (phase `request`: retried at the next poll, the informers
   * kept meanwhile), of `filter` (phase `handler`) and of the callbacks above (phase
   * `callback`).
   * @default the informers' `onError`, else printed (at most a line per kind per minute)
   */
  onError?: OnError | undefined;
  /** Time source. @default systemClock */
  clock?: Clock | undefined;
}

/** The key of a discovered resource: `group/version/resource`. */
function keyOf(r: DiscoveredResource): string {
  return `${r.group}/${r.version}/${r.resource}`;
}

/**
 * Runs one informer per resource the server serves and `filter` picks, following discovery:
 * aggregated discovery (one request for `/api`, one for `/apis`; GA in Kubernetes 1.30), or
 * legacy discovery on older servers. It reads discovery at `start()` and then every
 * `intervalMs` (30 s by default), and at once when a CRD changes with `followCrds`. A resource
 * that appears gets an informer (started at once); one that disappears has its informer
 * stopped and its cache freed. A failed discovery read changes nothing (it is reported and
 * retried at the next poll), so a short outage does not stop informers.
 *
 * @example
 * ```ts
 * import { DiscoveryInformerFactory } from "@kinformer/kinformer/cache";
 * import { KubeClient } from "@kinformer/kinformer/client";
 * import { SimulatedCluster } from "@kinformer/kinformer/testing";
 * import assert from "node:assert/strict";
 * const cluster = new SimulatedCluster();
 * const client = new KubeClient({ server: "http://sim", fetch: cluster.fetch });
 * await using factory = new DiscoveryInformerFactory(client, {
 *   filter: (r) => r.group === "" && r.resource === "configmaps",
 * });
 * await factory.refresh(); // reads discovery now (start() also polls)
 * assert.deepEqual([...factory.informers.keys()], ["/v1/configmaps"]);
 * cluster.close();
 * ```
 */
export class DiscoveryInformerFactory implements AsyncDisposable {
  readonly #client: KubeClient;
  readonly #factory: SharedInformerFactory;
  readonly #filter: (resource: DiscoveredResource) => boolean;
  readonly #intervalMs: number;
  readonly #clock: Clock;
  readonly #options: DiscoveryInformerFactoryOptions;
  readonly #reporter: ErrorReporter;
  readonly #held = new Map<string, { resource: DiscoveredResource; lease: InformerLease }>();
  #controller: AbortController | undefined;
  #run: Promise<void> | undefined;
  /** A discovery read under way (refreshes join it, and one more follows if asked meanwhile). */
  #reading: Promise<void> | undefined;
  #again = false;
  #wake: (() => void) | undefined;
  #stopped = false;

  /** Creates the factory; nothing happens until `start()` or `refresh()`. */
  constructor(client: KubeClient, options: DiscoveryInformerFactoryOptions = {}) {
    checkFunction(options.filter, "filter");
    checkFunction(options.onAdded, "onAdded");
    checkFunction(options.onRemoved, "onRemoved");
    checkFunction(options.onError, "onError");
    checkNumber(options.intervalMs, "intervalMs", { min: 1 });
    this.#client = client;
    this.#options = options;
    this.#filter = options.filter ?? ((r) => r.preferred);
    this.#intervalMs = options.intervalMs ?? DEFAULT_DISCOVERY_INTERVAL_MS;
    this.#clock = options.clock ?? options.informer?.clock ?? systemClock;
    this.#factory = new SharedInformerFactory(client, { clock: this.#clock, ...options.informer });
    this.#reporter = new ErrorReporter({
      source: "discovery informer factory",
      onError: options.onError ?? options.informer?.onError,
      clock: this.#clock,
    });
  }

  /** The running informers, by `group/version/resource` (`""` group for core: `/v1/pods`). */
  get informers(): Map<string, SharedInformer<KubeObject>> {
    return new Map([...this.#held].map(([key, h]) => [key, h.lease.informer]));
  }

  /** The resources followed now. */
  get resources(): DiscoveredResource[] {
    return [...this.#held.values()].map((h) => h.resource);
  }

  /**
   * Starts following discovery (and the informers); returns at once, idempotent. Aborting
   * `signal` is the same as {@linkcode DiscoveryInformerFactory.stop}.
   */
  start(options: { signal?: AbortSignal | undefined } = {}): void {
    if (this.#run !== undefined || this.#stopped) return;
    const { controller } = linkedController(options.signal);
    this.#controller = controller;
    void this.#factory.start({ signal: controller.signal });
    this.#run = this.#poll(controller.signal);
    if (this.#options.followCrds === true) this.#followCrds(controller.signal);
  }

  /**
   * Reads discovery now and starts or stops informers to match; joins a read under way (and
   * asks for one more after it). Never rejects: a failed read is reported to `onError`.
   */
  refresh(): Promise<void> {
    if (this.#reading !== undefined) {
      this.#again = true;
      return this.#reading;
    }
    this.#reading = (async () => {
      do {
        this.#again = false;
        await this.#read();
      } while (this.#again && !this.#stopped);
    })().finally(() => (this.#reading = undefined));
    return this.#reading;
  }

  /** Stops polling and every informer; idempotent. */
  async stop(): Promise<void> {
    this.#stopped = true;
    this.#controller?.abort(new DOMException("factory stopped", "AbortError"));
    this.#wake?.();
    await this.#run;
    await this.#reading;
    const held = [...this.#held.values()];
    this.#held.clear();
    await Promise.all(held.map((h) => h.lease.release()));
    await this.#factory.stop();
  }

  /** Same as {@linkcode DiscoveryInformerFactory.stop}, for `await using`. */
  [Symbol.asyncDispose](): Promise<void> {
    return this.stop();
  }

  async #poll(signal: AbortSignal): Promise<void> {
    while (!signal.aborted) {
      await this.refresh();
      try {
        await sleep(this.#intervalMs, { clock: this.#clock, signal });
      } catch {
        return; // stopped
      }
    }
  }

  /** A CRD informer whose every change reads discovery again (in this factory's cache). */
  #followCrds(signal: AbortSignal): void {
    const informer = this.#factory.informerFor(customresourcedefinitions);
    informer.addEventHandler({
      onAdd: (_crd, initial) => void (initial ? undefined : this.refresh()),
      onUpdate: () => void this.refresh(),
      onDelete: () => void this.refresh(),
    }, { signal });
  }

  async #read(): Promise<void> {
    const signal = this.#controller?.signal;
    let found: DiscoveredResource[];
    try {
      found = await discoverResources(this.#client, { signal });
    } catch (error) {
      if (signal?.aborted || this.#stopped) return;
      this.#report(error, {
        phase: "request",
        detail: "discovery",
        action: "keeping the informers; reading discovery again at the next poll",
        retryInMs: this.#intervalMs,
      });
      return;
    }
    if (this.#stopped) return;
    this.#reporter.healthy();
    const wanted = new Map<string, DiscoveredResource>();
    for (const r of found) {
      if (!r.verbs.includes("list") || !r.verbs.includes("watch")) continue;
      let picked: boolean;
      try {
        picked = this.#filter(r);
      } catch (error) {
        this.#report(error, {
          phase: "handler",
          detail: "filter",
          action: "skipping the resource",
        });
        continue;
      }
      if (picked) wanted.set(keyOf(r), r);
    }
    for (const [key, held] of [...this.#held]) {
      if (wanted.has(key)) continue;
      this.#held.delete(key);
      await held.lease.release();
      this.#call(this.#options.onRemoved, held.resource, held.lease.informer);
    }
    for (const [key, r] of wanted) {
      if (this.#held.has(key)) continue;
      const descriptor = defineResource<KubeObject>({
        ...(r.group === "" ? {} : { group: r.group }),
        version: r.version,
        resource: r.resource,
        kind: r.kind,
        namespaced: r.namespaced,
      });
      const lease = this.#factory.acquire(descriptor);
      this.#held.set(key, { resource: r, lease });
      this.#call(this.#options.onAdded, r, lease.informer);
    }
  }

  #call(
    hook: ((r: DiscoveredResource, i: SharedInformer<KubeObject>) => void) | undefined,
    resource: DiscoveredResource,
    informer: SharedInformer<KubeObject>,
  ): void {
    if (hook === undefined) return;
    try {
      hook(resource, informer);
    } catch (error) {
      this.#report(error, { phase: "callback", detail: hook.name, action: "going on" });
    }
  }

  #report(error: unknown, details: ReportDetails): void {
    this.#reporter.report(error, details);
  }
}
