/**
 * The simulated cluster's deno server, moved to `@kinformer/simulator`.
 *
 * @module
 */
export * from "../../../packages/simulator/src/adapters/deno/serve.ts";
