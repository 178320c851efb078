/**
 * One consumer's buffer of fleet events, and the async iterator over it. Internal.
 * @module
 */
import type { KubeObjectLike } from "../client/types.ts";
import { onAbort } from "../util/abort.ts";
import { RingBuffer } from "../util/ring_buffer.ts";
import type { FleetEvent } from "./fleet_event.ts";

/** A consumer's pending events; the fleet pushes, the iterator shifts. */
export class FleetListener<T extends KubeObjectLike> {
  #buffer = new RingBuffer<FleetEvent<T>>(64);
  #wake: (() => void) | undefined;
  #closed = false;
  #maxBacklog: number;
  /** Why the listener was ended early (its consumer fell too far behind). */
  #failure: Error | undefined;
  /** Events of the initial replay not taken yet (they do not count against `maxBacklog`). */
  #replay = 0;

  /** `maxBacklog`: events waiting past this end the iteration with an error. */
  constructor(maxBacklog = Infinity) {
    this.#maxBacklog = maxBacklog;
  }

  /** Events waiting for the consumer. */
  get backlog(): number {
    return this.#buffer.length;
  }

  get closed(): boolean {
    return this.#closed;
  }

  /** An event of the initial replay: never refused. */
  replay(event: FleetEvent<T>): void {
    this.#replay++;
    this.#buffer.push(event);
  }

  push(event: FleetEvent<T>): void {
    if (this.#closed) return;
    if (this.#buffer.length - this.#replay >= this.#maxBacklog) {
      this.#failure = new RangeError(
        `fleet events: the consumer fell ${this.#maxBacklog} events behind (maxBacklog); ` +
          "call events() again to start over from the current view",
      );
      this.close();
      return;
    }
    this.#buffer.push(event);
    this.#signal();
  }

  close(): void {
    this.#closed = true;
    this.#buffer.clear();
    this.#signal();
  }

  #signal(): void {
    const wake = this.#wake;
    this.#wake = undefined;
    wake?.();
  }

  /** The iterator; `finish` removes the listener from the fleet. */
  iterator(
    finish: () => void,
    signal: AbortSignal | undefined,
  ): AsyncIterableIterator<FleetEvent<T>> & AsyncDisposable {
    const done: IteratorReturnResult<undefined> = { done: true, value: undefined };
    let unlisten = (): void => {};
    const end = (): void => {
      unlisten();
      finish();
      this.close();
    };
    unlisten = onAbort(signal, end);
    return {
      next: async (): Promise<IteratorResult<FleetEvent<T>>> => {
        for (;;) {
          const value = this.#buffer.shift();
          if (value !== undefined) {
            if (this.#replay > 0) this.#replay--;
            return { done: false, value };
          }
          if (this.#closed) {
            end();
            const failure = this.#failure;
            this.#failure = undefined;
            if (failure !== undefined) throw failure;
            return done;
          }
          await new Promise<void>((resolve) => (this.#wake = resolve));
        }
      },
      return: (): Promise<IteratorResult<FleetEvent<T>>> => {
        end();
        return Promise.resolve(done);
      },
      [Symbol.asyncDispose]: (): Promise<void> => {
        end();
        return Promise.resolve();
      },
      [Symbol.asyncIterator](): AsyncIterableIterator<FleetEvent<T>> {
        return this;
      },
    };
  }
}
