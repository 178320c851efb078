/**
 * Serves a `fetch` handler (the simulated cluster's, usually) over HTTP(S) and WebSocket on
 * Bun.
 *
 * Moved to `@kinformer/simulator/bun`; this re-export will be removed in 0.3.
 *
 * @module
 */
export { serve } from "@kinformer/simulator/bun";
export type {
  FetchHandler,
  ServedHandle,
  ServeOptions,
  ServeTlsOptions,
} from "@kinformer/simulator/bun";
