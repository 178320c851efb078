/**
 * A served resource as the read handlers see it: the state that stores its objects (its own,
 * or, for a resource served from another's storage, that one's) and each stored version's JSON
 * in the served form, converted once per version and cached.
 * @module
 */
import type { KubeObject } from "@kinformer/kinformer/client";
import type { ChangeType, Version } from "../../store/object_version.ts";
import type { ResourceState } from "../../store/resource_state.ts";
import type { ResourceInfo } from "../../model/registry/served_resources.ts";

interface Converted {
  readonly item: KubeObject;
  readonly itemJson: string;
  json?: string;
  lines?: Partial<Record<ChangeType, string>>;
}

/** One served resource over its storage. */
export class ServedView {
  /** The resource as served on the request's path. */
  readonly info: ResourceInfo;
  /** The state that stores the objects. */
  readonly state: ResourceState;
  readonly #converted = new WeakMap<Version, Converted>();

  constructor(info: ResourceInfo, state: ResourceState) {
    this.info = info;
    this.state = state;
  }

  #convert(v: Version): Converted {
    let c = this.#converted.get(v);
    if (c === undefined) {
      const item = this.info.view!.served(v.item);
      c = { item, itemJson: JSON.stringify(item) };
      this.#converted.set(v, c);
    }
    return c;
  }

  /** The object in served form, without kind/apiVersion (never mutate it). */
  item(v: Version): KubeObject {
    return this.info.view === undefined ? v.item : this.#convert(v).item;
  }

  /** JSON of the list item form. */
  itemJson(v: Version): string {
    return this.info.view === undefined ? v.itemJson : this.#convert(v).itemJson;
  }

  /** JSON of the whole object (kind and apiVersion first). */
  json(v: Version): string {
    if (this.info.view === undefined) return v.json;
    const c = this.#convert(v);
    return (c.json ??= this.info.jsonPrefix + c.itemJson.slice(1));
  }

  /** The watch line (with newline) announcing `v` as `type`, whole or as metadata. */
  line(type: ChangeType, v: Version, metadata: boolean): string {
    if (this.info.view === undefined || metadata) return v.line(type, metadata);
    const lines = (this.#convert(v).lines ??= {});
    return (lines[type] ??= `{"type":"${type}","object":${this.json(v)}}\n`);
  }

  /** A fresh, caller-owned copy of the served object (with kind and apiVersion). */
  toObject(v: Version): KubeObject {
    return JSON.parse(this.json(v)) as KubeObject;
  }
}
