/**
 * The shape of an informer as the controller toolkit sees it: structural, so kinformer's
 * informers, test fakes and adapters all fit.
 * @module
 */

/**
 * Event callbacks the runner registers on an informer. The shape matches kinformer's shared
 * informer; any object with these methods works.
 *
 * @example
 * ```ts
 * import type { InformerEventHandlerLike } from "@kinformer/kinformer/controller";
 * import assert from "node:assert/strict";
 * const added: string[] = [];
 * const handler: InformerEventHandlerLike<{ metadata: { name: string } }> = {
 *   onAdd: (obj, isInInitialList) => void added.push(`${obj.metadata.name} ${isInInitialList}`),
 * };
 * handler.onAdd?.({ metadata: { name: "web" } }, true);
 * assert.deepEqual(added, ["web true"]);
 * ```
 */
export interface InformerEventHandlerLike<O> {
  /** An object appeared; `isInInitialList` is true while the first list is delivered. */
  onAdd?(obj: O, isInInitialList: boolean): void;
  /** An object changed (or a resync re-delivered it with `oldObj === newObj`). */
  onUpdate?(oldObj: O, newObj: O): void;
  /** An object went away; `finalStateUnknown` when a relist noticed it, not a watch event. */
  onDelete?(obj: O, finalStateUnknown: boolean): void;
}

/**
 * What registering a handler on an informer returns.
 *
 * @example
 * ```ts
 * import type { InformerRegistrationLike } from "@kinformer/kinformer/controller";
 * import assert from "node:assert/strict";
 * const registration: InformerRegistrationLike = { hasSynced: () => true, remove: () => {} };
 * assert.equal(registration.hasSynced(), true);
 * ```
 */
export interface InformerRegistrationLike {
  /** True once this handler has received every object of the informer's initial list. */
  hasSynced(): boolean;
  /** Unregisters the handler. */
  remove(): void | Promise<void>;
  /**
   * Optional: resolves once `hasSynced()` is true, so the runner need not poll. Should reject
   * with the signal's reason when it aborts.
   */
  waitForSync?(options?: { signal?: AbortSignal | undefined }): Promise<unknown>;
}

/**
 * The part of an informer that {@linkcode runController} uses. Structural, so kinformer's
 * informers, test fakes and adapters all fit.
 *
 * @example
 * ```ts
 * import type { InformerLike } from "@kinformer/kinformer/controller";
 * import assert from "node:assert/strict";
 * // An informer with a fixed set of objects, synced at once.
 * const objects = [{ metadata: { namespace: "default", name: "web" } }];
 * const informer: InformerLike<(typeof objects)[number]> = {
 *   addEventHandler(handler) {
 *     for (const obj of objects) handler.onAdd?.(obj, true);
 *     return { hasSynced: () => true, remove: () => {} };
 *   },
 * };
 * const names: string[] = [];
 * informer.addEventHandler({ onAdd: (obj) => void names.push(obj.metadata.name) });
 * assert.deepEqual(names, ["web"]);
 * ```
 */
export interface InformerLike<O = unknown> {
  /** Registers `handler`; it first receives the current cache as adds. */
  addEventHandler(handler: InformerEventHandlerLike<O>): InformerRegistrationLike;
  /**
   * Optional: starts the informer until `options.signal` aborts (kinformer's `SharedInformer`
   * has it). If it returns a promise, the runner waits for it before resolving, so it must
   * settle once the signal aborts.
   */
  start?(options?: { signal?: AbortSignal | undefined }): void | Promise<void>;
  /**
   * Optional: stops the informer and resolves once it has released everything (kinformer's
   * `SharedInformer` has it). A controller that started the informer awaits it when stopping.
   */
  stop?(): Promise<void>;
  /**
   * Optional: resolves once the informer's cache has synced (kinformer's `SharedInformer`
   * has it). Used when a registration has no `waitForSync`; the runner then polls the
   * registration's own `hasSynced()`, which can lag behind the informer's.
   */
  waitForSync?(options?: { signal?: AbortSignal | undefined }): Promise<unknown>;
}
