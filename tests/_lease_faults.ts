// Per-candidate network faults for leader-election and sharding tests: each candidate talks to
// the shared simulated cluster through its own switch (the cluster's own `faults` are
// cluster-wide). Everything runs on the test's ManualClock.
import { sleep } from "../src/util/clock.ts";
import type { ManualClock } from "../src/testing/manual_clock.ts";

/** How a candidate's requests fare. */
export type LinkMode =
  | { kind: "ok" }
  /** Every request fails at once (connection refused): a partition. */
  | { kind: "drop" }
  /** Requests never get an answer (until aborted): a black hole. */
  | { kind: "hang" }
  /**
   * Requests reach the server after `requestDelayMs`, and their answers come back
   * `responseDelayMs` after the server handled them (the write is done, the writer learns late).
   */
  | { kind: "slow"; requestDelayMs: number; responseDelayMs: number };

/** A fetch for one candidate, with a switch. */
export class Link {
  mode: LinkMode = { kind: "ok" };
  requests = 0;
  readonly #target: (request: Request) => Promise<Response>;
  readonly #clock: ManualClock;

  constructor(target: (request: Request) => Promise<Response>, clock: ManualClock) {
    this.#target = target;
    this.#clock = clock;
  }

  readonly fetch = async (request: Request): Promise<Response> => {
    this.requests++;
    const mode = this.mode;
    const signal = request.signal;
    switch (mode.kind) {
      case "ok":
        return await this.#target(request);
      case "drop":
        throw new TypeError("simulated partition: connection refused");
      case "hang":
        return await new Promise<Response>((_, reject) => {
          if (signal.aborted) return reject(signal.reason);
          signal.addEventListener("abort", () => reject(signal.reason), { once: true });
        });
      case "slow": {
        await sleep(mode.requestDelayMs, { clock: this.#clock, signal });
        // The server has done the work (a write is applied) once it answers; the answer (and
        // a watch's stream) reaches the candidate late.
        const response = await this.#target(request);
        try {
          await sleep(mode.responseDelayMs, { clock: this.#clock, signal });
        } catch (error) {
          await response.body?.cancel();
          throw error;
        }
        return response;
      }
    }
  };
}
