/**
 * One immutable version of one object in the simulated cluster's store, with its JSON forms
 * (list item, whole object, PartialObjectMetadata, watch lines) made once and shared.
 * @module
 */
import type { KubeObject } from "@kinformer/kinformer/client";
import type { ResourceInfo } from "../model/registry/served_resources.ts";

/** Kinds of stored changes. */
export type ChangeType = "ADDED" | "MODIFIED" | "DELETED";

/** The `PartialObjectMetadata` JSON of an object (its metadata, nothing else). */
export function metadataJson(metadata: unknown): string {
  return `{"kind":"PartialObjectMetadata","apiVersion":"meta.k8s.io/v1","metadata":${
    JSON.stringify(metadata ?? {})
  }}`;
}

/**
 * One immutable version of one object. Its JSON is made once, on first use, and reused by
 * every list page and watch event that carries it.
 */
export class Version {
  /** The object without `kind`/`apiVersion` (as an item of a list). Never mutated. */
  readonly item: KubeObject;
  /** Resource facts. */
  readonly info: ResourceInfo;
  /** Store key. */
  readonly key: string;
  /** resourceVersion as a number. */
  readonly rv: number;
  #itemJson: string | undefined;
  #json: string | undefined;
  #added: string | undefined;
  #modified: string | undefined;
  #deleted: string | undefined;
  #metadataJson: string | undefined;
  #metadataLines: Partial<Record<ChangeType, string>> | undefined;

  constructor(info: ResourceInfo, key: string, rv: number, item: KubeObject) {
    this.info = info;
    this.key = key;
    this.rv = rv;
    this.item = item;
  }

  /** JSON of the list item form (no kind/apiVersion). */
  get itemJson(): string {
    return (this.#itemJson ??= JSON.stringify(this.item));
  }

  /** JSON of the full object (kind and apiVersion first). */
  get json(): string {
    return (this.#json ??= this.info.jsonPrefix + this.itemJson.slice(1));
  }

  /** JSON of the object as `PartialObjectMetadata` (a metadata-only request). */
  get metadataJson(): string {
    return (this.#metadataJson ??= metadataJson(this.item.metadata));
  }

  /**
   * The watch line (with trailing newline) announcing this version as `type`, the whole object
   * or (`metadata`) its `PartialObjectMetadata`.
   */
  line(type: ChangeType, metadata = false): string {
    if (metadata) {
      const lines = (this.#metadataLines ??= {});
      return (lines[type] ??= `{"type":"${type}","object":${this.metadataJson}}\n`);
    }
    switch (type) {
      case "ADDED":
        return (this.#added ??= `{"type":"ADDED","object":${this.json}}\n`);
      case "MODIFIED":
        return (this.#modified ??= `{"type":"MODIFIED","object":${this.json}}\n`);
      case "DELETED":
        return (this.#deleted ??= `{"type":"DELETED","object":${this.json}}\n`);
    }
  }

  /** A fresh, caller-owned copy of the full object. */
  toObject(): KubeObject {
    return JSON.parse(this.json) as KubeObject;
  }
}
