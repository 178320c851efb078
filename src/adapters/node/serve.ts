/**
 * The simulated cluster's node server, moved to `@kinformer/simulator`.
 *
 * @module
 */
export * from "../../../packages/simulator/src/adapters/node/serve.ts";
