/**
 * What a user may ask the simulated cluster to serve (`ServedResource`, the `resources`
 * option), and how a resource served from another's storage converts (`StorageView`): types
 * only, shared by the resource registry and the CRD reader.
 * @module
 */
import type { AnyResourceDescriptor } from "@kinformer/kinformer/client";
import type { KubeObject } from "@kinformer/kinformer/client";
import type { PrinterColumn } from "../tables/printer_columns.ts";

/**
 * How a resource served from another resource's storage converts its objects (the API server
 * stores one form and converts per request).
 */
export interface StorageView {
  /** `id` of the resource whose state holds the objects. */
  readonly storage: string;
  /** A stored item (no kind/apiVersion) in this resource's form. */
  served(item: KubeObject): KubeObject;
  /** An object, merge patch or apply configuration in this resource's form, in stored terms. */
  stored(obj: Record<string, unknown>): Record<string, unknown>;
  /** The stored name of a top-level field (for JSON patch paths). */
  storedField(name: string): string;
  /** Checks of a written object in this resource's form (throw a Status via `fail`), if any. */
  readonly check?: (obj: Record<string, unknown>, name: string, create: boolean) => void;
}

/**
 * One more resource for the simulated cluster to serve (option `resources`): a custom resource
 * as its CRD would define it, or a built-in one the cluster does not serve by default (services,
 * secrets, ...). Given as a bare descriptor, a built-in resource gets the short names,
 * categories, field selectors and subresources kube-apiserver gives it, a custom resource a
 * `status` subresource, no `scale` subresource, no short names and an `Age` column. A
 * `CustomResourceDefinition` object (`apiextensions.k8s.io/v1`, as in its manifest) may be given
 * instead: every served version is served (the others converted from the storage version, as
 * with `conversion: None`), with its names, scope, subresources, printer columns and schema.
 *
 * @example
 * ```ts
 * import { defineResource, KubeClient } from "@kinformer/kinformer/client";
 * import { SimulatedCluster } from "@kinformer/simulator";
 * import assert from "node:assert/strict";
 * const services = defineResource({ version: "v1", resource: "services", kind: "Service", namespaced: true });
 * const gadgets = defineResource({
 *   group: "example.org", version: "v1alpha1", resource: "gadgets", kind: "Gadget", namespaced: false,
 * });
 * const cluster = new SimulatedCluster({
 *   resources: [services, { resource: gadgets, scaleSubresource: true, shortNames: ["gd"] }],
 * });
 * const client = new KubeClient({ server: "http://sim.test", fetch: cluster.fetch });
 * await client.create(services, { metadata: { namespace: "default", name: "web" } });
 * await client.create(gadgets, { metadata: { name: "g1" }, spec: { replicas: 2 } });
 * assert.equal((await client.list(services, { namespace: "default" })).items.length, 1);
 * assert.equal((await client.get(gadgets, "g1", { subresource: "scale" })).spec?.replicas, 2);
 * cluster.close();
 * ```
 */
export interface ServedResource {
  /** What to serve: group, version, plural name, kind, scope. */
  readonly resource: AnyResourceDescriptor;
  /**
   * Whether `/status` is a subresource: main-resource writes keep the old `status`, and
   * `metadata.generation` counts spec changes only (a CRD's `subresources.status`).
   * @default true for custom resources, as kube-apiserver for built-in ones
   */
  readonly statusSubresource?: boolean;
  /**
   * Whether `/scale` is a subresource, as an `autoscaling/v1` Scale of `spec.replicas`
   * (a CRD's `subresources.scale` with the usual paths).
   * @default false for custom resources, as kube-apiserver for built-in ones
   */
  readonly scaleSubresource?: boolean;
  /**
   * Short names for discovery, so that `kubectl get <short>` works.
   * @default [] for custom resources, as kube-apiserver for built-in ones
   */
  readonly shortNames?: readonly string[];
  /**
   * Categories for discovery (`kubectl get all` lists the `all` category).
   * @default [] for custom resources, as kube-apiserver for built-in ones
   */
  readonly categories?: readonly string[];
  /**
   * A custom resource's `additionalPrinterColumns` (as in its CRD version): the columns of its
   * server-side Table (`kubectl get`), after `Name`. Without them it prints `Name` and `Age`.
   * @default []
   */
  readonly printerColumns?: readonly PrinterColumn[];
  /**
   * A custom resource's `openAPIV3Schema` (as in its CRD version): published in the OpenAPI v3
   * document of its group version and used for server-side field validation. Without it, the
   * resource is described with `x-kubernetes-preserve-unknown-fields` below the top level.
   * @default undefined
   */
  readonly schema?: Record<string, unknown>;
  /**
   * A custom resource's `selectableFields` (as in its CRD version; GA in Kubernetes 1.32): the
   * fields a field selector may name besides `metadata.name` and `metadata.namespace`, each a
   * simple JSON path (`.spec.color`) to a string, boolean or integer. Any other field in a
   * field selector is refused with kube-apiserver's 400 `field label not supported: ...`.
   * @default []
   */
  readonly selectableFields?: readonly { readonly jsonPath: string }[];
}
