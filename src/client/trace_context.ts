/**
 * W3C Trace Context propagation (`traceparent`, `tracestate`), with no tracing dependency: a
 * request carries the trace context it is given, so kube-apiserver's spans (tracing GA in
 * Kubernetes 1.34) join the caller's trace.
 * @module
 */
import { describeValue } from "../util/values.ts";

/**
 * A W3C trace context: the `traceparent` header value
 * (`00-<32 hex trace id>-<16 hex parent id>-<2 hex flags>`) and optionally `tracestate`.
 * Any tracer can give one (an OpenTelemetry span's context, formatted), or
 * {@linkcode newTraceContext} makes one.
 *
 * @example
 * ```ts
 * import type { TraceContext } from "@kinformer/kinformer/client";
 * const trace: TraceContext = {
 *   traceparent: "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01",
 * };
 * ```
 */
export interface TraceContext {
  /** The `traceparent` header value. */
  readonly traceparent: string;
  /** The `tracestate` header value, if any. @default undefined */
  readonly tracestate?: string | undefined;
}

/** Where a client finds the trace context of a request that gives none: one, or a function. */
export type TraceContextSource = TraceContext | (() => TraceContext | undefined);

const TRACEPARENT = /^([0-9a-f]{2})-([0-9a-f]{32})-([0-9a-f]{16})-[0-9a-f]{2}$/;

/**
 * Checks `value` is a {@linkcode TraceContext} (`undefined` passes); a `TypeError` naming
 * `option` otherwise. Internal.
 */
export function checkTraceContext(value: unknown, option: string): TraceContext | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== "object" || value === null) {
    throw new TypeError(`${option} must be a trace context object, got ${describeValue(value)}`);
  }
  const { traceparent, tracestate } = value as Record<string, unknown>;
  const m = typeof traceparent === "string" ? TRACEPARENT.exec(traceparent) : null;
  if (m === null || m[1] === "ff" || /^0+$/.test(m[2]!) || /^0+$/.test(m[3]!)) {
    throw new TypeError(
      `${option}.traceparent must be a W3C traceparent ("00-<32 hex>-<16 hex>-<2 hex>", ids ` +
        `not all zero), got ${describeValue(traceparent)}`,
    );
  }
  if (
    tracestate !== undefined &&
    (typeof tracestate !== "string" || !/^[\x20-\x7e]*$/.test(tracestate) ||
      tracestate.length > 512)
  ) {
    throw new TypeError(`${option}.tracestate must be printable ASCII of at most 512 characters`);
  }
  return value as TraceContext;
}

/** Sets the trace headers of `trace` on `headers` (nothing when `trace` is undefined). Internal. */
export function setTraceHeaders(headers: Headers, trace: TraceContext | undefined): void {
  if (trace === undefined) return;
  headers.set("traceparent", trace.traceparent);
  if (trace.tracestate !== undefined) headers.set("tracestate", trace.tracestate);
}

/** Options of {@linkcode newTraceContext}. */
export interface NewTraceContextOptions {
  /**
   * The sampled flag: whether the trace is recorded. kube-apiserver samples a request whose
   * parent is sampled (a parent-based sampler), so `true` makes it record its spans too.
   * @default true
   */
  sampled?: boolean | undefined;
  /** A child of this context (same trace id, a new parent id). @default a new trace */
  parent?: TraceContext | undefined;
  /** Fills a byte array with random bytes. @default crypto.getRandomValues */
  randomBytes?: ((bytes: Uint8Array<ArrayBuffer>) => void) | undefined;
}

/**
 * A new trace context: a new trace with a new span id (a root, as kube-rs makes each
 * reconcile), or with `parent`, a child span in the parent's trace (its `tracestate` kept).
 *
 * @example
 * ```ts
 * import { newTraceContext } from "@kinformer/kinformer/client";
 * import assert from "node:assert/strict";
 * const root = newTraceContext();
 * assert.match(root.traceparent, /^00-[0-9a-f]{32}-[0-9a-f]{16}-01$/);
 * const child = newTraceContext({ parent: root });
 * assert.equal(child.traceparent.slice(3, 35), root.traceparent.slice(3, 35)); // same trace
 * ```
 */
export function newTraceContext(options: NewTraceContextOptions = {}): TraceContext {
  const parent = checkTraceContext(options.parent, "options.parent");
  const random = options.randomBytes ??
    ((b: Uint8Array<ArrayBuffer>) => void crypto.getRandomValues(b));
  const hex = (n: number): string => {
    for (;;) {
      const bytes = new Uint8Array(n);
      random(bytes);
      const text = [...bytes].map((b) => b.toString(16).padStart(2, "0")).join("");
      if (!/^0+$/.test(text)) return text; // all-zero ids are invalid
    }
  };
  const traceId = parent === undefined ? hex(16) : parent.traceparent.slice(3, 35);
  const flags = (options.sampled ?? true) ? "01" : "00";
  const traceparent = `00-${traceId}-${hex(8)}-${flags}`;
  return parent?.tracestate === undefined
    ? { traceparent }
    : { traceparent, tracestate: parent.tracestate };
}
