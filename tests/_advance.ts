// Moving a ManualClock on in steps, so that the work a step wakes (retries, resyncs, timeouts)
// runs before the next step: one big advance would fire only the timers due at its end once.
import type { ManualClock } from "../src/testing/manual_clock.ts";

/** Advances `clock` by `ms` in steps of `step`, letting the work run between them. */
export async function advance(clock: ManualClock, ms: number, step = 1_000): Promise<void> {
  for (let t = 0; t < ms; t += step) await clock.advance(step);
}
