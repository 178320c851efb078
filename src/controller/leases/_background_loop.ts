/**
 * The lifecycle of a lease-based coordinator (leader elector, shard coordinator): the one
 * {@linkcode Lifecycle} of kinformer (idle, starting, running, stopping, stopped), restartable,
 * over one piece of background work at a time, started by `start`, stopped by `stop` or the
 * caller's signal. Internal.
 * @module
 */
import { linkedController, onAbort } from "../../util/abort.ts";
import { Lifecycle, type LifecycleState } from "../../util/lifecycle.ts";
import { checkOptionsObject, checkSignal } from "../../util/validate.ts";

/** Runs `work` in the background until stopped; at most one run at a time. */
export class BackgroundLoop {
  readonly #stopReason: string;
  readonly #life: Lifecycle;
  /** The running work (from `start` until it has settled), and what stops it. */
  #running: { promise: Promise<void>; stop: AbortController } | undefined;

  /**
   * `source` names the coordinator in a {@linkcode LifecycleError}; `stopReason` is the message
   * of the abort reason `stop()` gives the work's signal.
   */
  constructor(source: string, stopReason: string) {
    this.#stopReason = stopReason;
    this.#life = new Lifecycle(source, { restartable: true });
  }

  /** The lifecycle state: running from `start` until a stop begins. */
  get state(): LifecycleState {
    return this.#life.state;
  }

  /** Whether the work runs now (between `start` and the end of its stop). */
  get running(): boolean {
    return this.#running !== undefined;
  }

  /**
   * The coordinator's `start(options)`: checks `options` (named `where` in the error), then
   * calls `work` with a signal that aborts when `options.signal` does or on `stop()`, unless
   * work runs already (then nothing happens). Once stopped it can start again. `work` must not
   * reject.
   *
   * @throws {TypeError} when `options` is not an object or `options.signal` not an AbortSignal.
   * @throws {LifecycleError} while a stop is under way (await `stop()` first).
   */
  start(
    options: { signal?: AbortSignal | undefined },
    where: string,
    work: (signal: AbortSignal) => Promise<void>,
  ): void {
    checkOptionsObject(options, where);
    checkSignal(options.signal, "signal");
    const parent = options.signal;
    if (!this.#life.start()) return;
    this.#life.started();
    const link = linkedController(parent);
    const stop = link.controller;
    // However the work's signal aborts (stop(), or the caller's signal), the object is stopping.
    const unlink = onAbort(stop.signal, () => this.#life.stop());
    const promise = (async () => {
      try {
        await work(stop.signal);
      } finally {
        unlink();
        link.release();
        this.#running = undefined;
        this.#life.stop();
        this.#life.stopped();
      }
    })();
    this.#running = { promise, stop };
  }

  /** Aborts the work's signal and resolves once the work has settled; at once when idle. */
  async stop(): Promise<void> {
    const running = this.#running;
    if (running === undefined) {
      if (this.#life.stop()) this.#life.stopped();
      return;
    }
    if (!running.stop.signal.aborted) running.stop.abort(new Error(this.#stopReason));
    await running.promise;
  }
}
