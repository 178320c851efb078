/**
 * The `tracing` option of a controller: a new trace context for each reconcile, which its
 * requests take as their parent. Internal.
 * @module
 */
import {
  newTraceContext,
  type NewTraceContextOptions,
  type TraceContext,
} from "../../client/trace_context.ts";
import { describeValue } from "../../util/values.ts";

/**
 * Validates `tracing` and returns what makes each reconcile's trace context (`undefined`:
 * tracing off).
 */
export function reconcileTracer(
  tracing: boolean | NewTraceContextOptions | undefined,
): (() => TraceContext) | undefined {
  if (tracing === undefined || tracing === false) return undefined;
  if (tracing !== true && (typeof tracing !== "object" || tracing === null)) {
    throw new TypeError(
      `tracing must be a boolean or newTraceContext options, got ${describeValue(tracing)}`,
    );
  }
  const options = tracing === true ? {} : tracing;
  newTraceContext(options); // checks the options now, not at the first reconcile
  return () => newTraceContext(options);
}
