/**
 * The lifecycle of a lease-based coordinator (leader elector, shard coordinator): one piece of
 * background work at a time, started by `start`, stopped by `stop` or the caller's signal, and
 * startable again once it has stopped. Internal.
 * @module
 */
import { linkedController } from "../util/abort.ts";
import { requireSignal } from "../util/validate.ts";

/** Runs `work` in the background until stopped; at most one run at a time. */
export class BackgroundLoop {
  readonly #stopReason: string;
  /** The running work (from `start` until it has settled), and what stops it. */
  #running: { promise: Promise<void>; stop: AbortController } | undefined;

  /** `stopReason` is the message of the abort reason `stop()` gives the work's signal. */
  constructor(stopReason: string) {
    this.#stopReason = stopReason;
  }

  /** Whether the work runs now (between `start` and its end). */
  get running(): boolean {
    return this.#running !== undefined;
  }

  /**
   * Calls `work` with a signal that aborts when `parent` does or on `stop()`, unless work runs
   * already (then nothing happens). `work` must not reject.
   */
  start(parent: AbortSignal | undefined, work: (signal: AbortSignal) => Promise<void>): void {
    if (this.#running !== undefined) return;
    const link = linkedController(parent);
    const stop = link.controller;
    const promise = (async () => {
      try {
        await work(stop.signal);
      } finally {
        link.release();
        this.#running = undefined;
      }
    })();
    this.#running = { promise, stop };
  }

  /** Aborts the work's signal and resolves once the work has settled; at once when idle. */
  async stop(): Promise<void> {
    const running = this.#running;
    if (running === undefined) return;
    if (!running.stop.signal.aborted) running.stop.abort(new Error(this.#stopReason));
    await running.promise;
  }

  /**
   * The deprecated `run(signal)` of a coordinator (`what` names it in the error): `start`s it
   * with `signal` and resolves once it has stopped.
   *
   * @throws {TypeError} when `signal` is not an AbortSignal or work runs already.
   */
  async run(signal: AbortSignal, what: string, start: () => void): Promise<void> {
    requireSignal(signal, "signal");
    if (this.#running !== undefined) throw new TypeError(`${what}: already running`);
    start();
    await this.#settled();
  }

  #settled(): Promise<void> | undefined {
    return this.#running?.promise;
  }
}
