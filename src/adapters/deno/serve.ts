/**
 * Serves a `fetch` handler (the simulated cluster's, usually) over HTTP(S) and WebSocket on
 * Deno.
 *
 * Moved to `@kinformer/simulator/deno`; this re-export will be removed in 0.3.
 *
 * @module
 */
export { serve } from "@kinformer/simulator/deno";
export type {
  FetchHandler,
  ServedHandle,
  ServeOptions,
  ServeTlsOptions,
} from "@kinformer/simulator/deno";
