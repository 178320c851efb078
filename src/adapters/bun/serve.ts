/**
 * The simulated cluster's bun server, moved to `@kinformer/simulator`.
 *
 * @module
 */
export * from "../../../packages/simulator/src/adapters/bun/serve.ts";
