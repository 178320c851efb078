/**
 * Runs a controller in one call: informer events become keys on a rate-limited work queue, and
 * a fixed number of workers reconcile those keys until the signal aborts.
 * @module
 */
import { requireSignal } from "../../util/validate.ts";
import { Controller } from "./controller.ts";
import { checkControllerOptions, type RunControllerOptions } from "./controller_options.ts";

/**
 * Runs a controller until `options.signal` aborts: the common one-call form of
 * {@linkcode Controller} (`new Controller(options)`, `start({ signal })`, then its
 * `whenStopped()`). See {@linkcode Controller} for what it does.
 *
 * When `signal` aborts, workers stop taking keys and in-flight reconciles finish (their
 * `ctx.signal` aborts after `shutdownGracePeriodMs`, at once by default); then the handlers are
 * removed, the queue is stopped, leader election or sharding releases its Leases, started
 * informers are stopped, and the promise resolves. It rejects only when something fatal
 * happened: invalid options, `onError` threw, an informer's `start` rejected.
 *
 * @example
 * ```ts
 * import { runController, type InformerLike } from "@kinformer/kinformer/controller";
 * import assert from "node:assert/strict";
 *
 * type Obj = { metadata: { namespace?: string; name?: string } };
 * const informer: InformerLike<Obj> = {
 *   addEventHandler(handler) {
 *     handler.onAdd?.({ metadata: { namespace: "default", name: "web" } }, true);
 *     return { hasSynced: () => true, remove: () => {} };
 *   },
 * };
 *
 * const stop = new AbortController();
 * const reconciled: string[] = [];
 * await runController({
 *   informers: [informer],
 *   signal: stop.signal,
 *   reconcile: async (key) => {
 *     reconciled.push(key);
 *     stop.abort();
 *   },
 * });
 * assert.deepEqual(reconciled, ["default/web"]);
 * ```
 */
export async function runController<O = unknown>(options: RunControllerOptions<O>): Promise<void> {
  checkControllerOptions(options, "runController");
  requireSignal(options.signal, "signal");
  const controller = new Controller<O>(options);
  controller.start({ signal: options.signal });
  await controller.whenStopped();
}
