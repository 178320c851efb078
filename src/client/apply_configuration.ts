/**
 * The shape of a server-side apply request body: the object type with every field optional,
 * at every depth.
 * @module
 */

/**
 * A partial object for server-side apply: `T` with every field optional at every depth, so an
 * apply can name just the fields its manager has an opinion about (a Deployment's
 * `spec.replicas` without its required `selector` and `template`). Lists keep their element
 * type, itself partial.
 *
 * @example
 * ```ts
 * import type { ApplyConfiguration } from "@kinformer/kinformer/client";
 * import assert from "node:assert/strict";
 * interface Deployment { metadata?: { name?: string }; spec?: { replicas?: number; selector: { app: string } } }
 * const config: ApplyConfiguration<Deployment> = { metadata: { name: "web" }, spec: { replicas: 3 } };
 * assert.equal(config.spec?.replicas, 3); // `selector` may be left out: every field is optional
 * ```
 */
export type ApplyConfiguration<T> = T extends readonly (infer E)[] ? ApplyConfiguration<E>[]
  : T extends object ? { [K in keyof T]?: ApplyConfiguration<T[K]> }
  : T;
