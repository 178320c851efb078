/**
 * Serves a `fetch` handler (the simulated cluster's, usually) over HTTP(S) and WebSocket on
 * Node.
 *
 * Moved to `@kinformer/simulator/node`; this re-export will be removed in 0.3.
 *
 * @module
 */
export { serve } from "@kinformer/simulator/node";
export type {
  FetchHandler,
  ServedHandle,
  ServeOptions,
  ServeTlsOptions,
} from "@kinformer/simulator/node";
