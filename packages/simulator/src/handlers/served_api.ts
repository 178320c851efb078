/**
 * The set of resources the simulated cluster serves right now, and what is made from it: the
 * served views, discovery and the OpenAPI documents. The built-in resources and those of the
 * `resources` option are served from the start; a CustomResourceDefinition created, changed or
 * deleted through the API changes the set (as kube-apiserver's CRD handler does), each change
 * rebuilding discovery and OpenAPI on next use.
 * @module
 */
import { type DiscoveryModel, discoveryModel } from "./reads/discovery.ts";
import { ServedView } from "./reads/served_view.ts";
import { REVIEW_KINDS } from "./authorization/access_reviews.ts";
import { OpenApiDocuments } from "../model/openapi/openapi_documents.ts";
import type { Store } from "../store/object_store.ts";
import type { ResourceState } from "../store/resource_state.ts";
import type { Version } from "../store/object_version.ts";
import type { ResourceInfo } from "../model/registry/served_resources.ts";

/** The served resources, changing as CRDs come and go. */
export class ServedApi {
  readonly #store: Store;
  #resources: readonly ResourceInfo[];
  readonly #views = new Map<string, ServedView>();
  /** The resources each CRD (by name) serves now. */
  readonly #owned = new Map<string, readonly ResourceInfo[]>();
  #discovery: DiscoveryModel | undefined;
  #openapi: OpenApiDocuments | undefined;
  /** Told of every state made for a newly served resource (the controllers listen to it). */
  onState: ((state: ResourceState) => void) | undefined;

  constructor(store: Store, resources: readonly ResourceInfo[]) {
    this.#store = store;
    this.#resources = resources;
    for (const info of resources) this.#addView(info);
  }

  #addView(info: ResourceInfo): void {
    this.#views.set(
      info.id,
      new ServedView(info, this.#store.state(info.view?.storage ?? info.id)!),
    );
  }

  /** Every served resource, the built-in ones first. */
  get resources(): readonly ResourceInfo[] {
    return this.#resources;
  }

  /** The discovery model of what is served now. */
  get discovery(): DiscoveryModel {
    return (this.#discovery ??= discoveryModel(this.#resources, REVIEW_KINDS));
  }

  /** The OpenAPI v3 documents of what is served now. */
  get openapi(): OpenApiDocuments {
    return (this.#openapi ??= new OpenApiDocuments(this.#resources));
  }

  /** The served view of the resource `id`, or undefined when it is not served (any more). */
  view(id: string): ServedView | undefined {
    return this.#views.get(id);
  }

  /** The resources the CRD `name` serves now (none when it serves nothing). */
  owned(name: string): readonly ResourceInfo[] {
    return this.#owned.get(name) ?? [];
  }

  /** Records that the CRD `name` serves `infos`, which are served already (option `resources`). */
  adopt(name: string, infos: readonly ResourceInfo[]): void {
    this.#owned.set(name, infos);
  }

  /**
   * Makes the CRD `name` serve `infos` instead of what it served: the resources it no longer
   * serves lose their objects and their watches end; a resource it keeps (same id) keeps its
   * objects, under its new facts. A storage view follows its storage.
   */
  replace(name: string, infos: readonly ResourceInfo[]): void {
    const before = this.owned(name);
    if (before.length === 0 && infos.length === 0) return;
    const kept = new Map<string, Iterable<Version>>();
    for (const old of before) {
      const state = this.#store.state(old.id);
      if (state === undefined) continue;
      if (old.view === undefined) kept.set(old.id, [...state.objects.values()]);
      for (const listener of [...state.listeners]) listener.close?.();
      this.#store.removeState(old.id);
      this.#views.delete(old.id);
    }
    const gone = new Set(before.map((i) => i.id));
    const list = this.#resources.filter((i) => !gone.has(i.id));
    const made: ResourceState[] = [];
    for (const info of infos) {
      // A version that becomes the storage takes the objects of whichever version held them.
      const objects = info.view === undefined
        ? kept.get(info.id) ?? (kept.size > 0 ? [...kept.values()][0] : [])
        : [];
      made.push(this.#store.addState(info, objects));
      list.push(info);
    }
    if (infos.length === 0) this.#owned.delete(name);
    else this.#owned.set(name, infos);
    this.#resources = Object.freeze(list);
    for (const info of infos) this.#addView(info);
    this.#discovery = undefined;
    this.#openapi = undefined;
    for (const state of made) this.onState?.(state);
  }
}
