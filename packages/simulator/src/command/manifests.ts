/**
 * Manifests the command applies at start (`--manifests DIR`): the objects of YAML (one or more
 * `---`-separated documents) and JSON files (an object, or a `List` of them), applied with
 * server-side apply in file order, namespaces and CustomResourceDefinitions first, through the
 * cluster's own HTTP surface, so every kind it serves (custom ones too) is found by discovery
 * as kubectl finds it. No runtime APIs here.
 * @module
 */
import { isRecord, messageOf, parseYaml } from "@kinformer/kinformer/internal";

/** A manifest object: `apiVersion`, `kind` and `metadata.name` at least. */
export type Manifest = Record<string, unknown> & {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace?: string };
};

/**
 * The objects of one file: `.json` is JSON; anything else YAML, documents separated by `---`.
 * A `kind: List` (or `...List`) contributes its `items`; empty documents are skipped. Throws a
 * TypeError naming `source` (and the document) for text that does not parse or an object
 * without `apiVersion`, `kind` or `metadata.name`.
 *
 * @example
 * ```ts
 * import { parseManifests } from "@kinformer/simulator/command";
 * import assert from "node:assert/strict";
 * const objects = parseManifests("a.yaml", "apiVersion: v1\nkind: Namespace\nmetadata: {name: a}\n---\n");
 * assert.deepEqual(objects.map((o) => o.metadata.name), ["a"]);
 * ```
 */
export function parseManifests(source: string, text: string): Manifest[] {
  const documents: unknown[] = [];
  if (source.endsWith(".json")) {
    try {
      documents.push(JSON.parse(text));
    } catch (error) {
      throw new TypeError(`${source}: ${messageOf(error)}`);
    }
  } else {
    const parts = text.split(/^---[ \t]*(?:#.*)?$/m);
    parts.forEach((part, i) => {
      const body = part.replace(/^\.\.\.[ \t]*$/m, "");
      if (body.trim() === "") return;
      try {
        documents.push(parseYaml(body, { source: `${source} (document ${i + 1})` }));
      } catch (error) {
        throw new TypeError(messageOf(error));
      }
    });
  }
  const out: Manifest[] = [];
  const add = (value: unknown, where: string): void => {
    if (value === null || value === undefined) return;
    if (
      isRecord(value) && typeof value["kind"] === "string" && value["kind"].endsWith("List") &&
      Array.isArray(value["items"])
    ) {
      value["items"].forEach((item, i) => add(item, `${where} item ${i}`));
      return;
    }
    const metadata = isRecord(value) ? value["metadata"] : undefined;
    if (
      !isRecord(value) || typeof value["apiVersion"] !== "string" ||
      typeof value["kind"] !== "string" || !isRecord(metadata) ||
      typeof metadata["name"] !== "string"
    ) {
      throw new TypeError(`${where}: an object needs apiVersion, kind and metadata.name`);
    }
    out.push(value as Manifest);
  };
  documents.forEach((doc, i) => add(doc, `${source} (document ${i + 1})`));
  return out;
}

/** Namespaces, then CustomResourceDefinitions, then the rest, each in their given order. */
function applyOrder(objects: readonly Manifest[]): Manifest[] {
  const rank = (o: Manifest): number =>
    o.kind === "Namespace" ? 0 : o.kind === "CustomResourceDefinition" ? 1 : 2;
  return [...objects].sort((a, b) => rank(a) - rank(b));
}

/** Where a kind is served: the resource's plural and whether it is namespaced. */
interface Served {
  name: string;
  namespaced: boolean;
}

/** Reads the discovery document of `apiVersion` from `fetch` for `kind`. */
async function discover(
  fetch: (request: Request) => Promise<Response>,
  base: string,
  apiVersion: string,
  kind: string,
  headers: HeadersInit,
): Promise<Served | undefined> {
  const path = apiVersion.includes("/") ? `/apis/${apiVersion}` : `/api/${apiVersion}`;
  const response = await fetch(new Request(`${base}${path}`, { headers }));
  if (!response.ok) {
    await response.body?.cancel();
    return undefined;
  }
  const list = await response.json() as {
    resources?: { name: string; kind: string; namespaced: boolean }[];
  };
  const found = list.resources?.find((r) => r.kind === kind && !r.name.includes("/"));
  return found === undefined ? undefined : { name: found.name, namespaced: found.namespaced };
}

/** Options of {@linkcode applyManifests}. */
export interface ApplyManifestsOptions {
  /** Headers for every request (the token). @default none */
  headers?: Record<string, string>;
  /** Waits between the tries for a kind a CRD just added (on the command's clock). */
  retryDelay?: () => Promise<void>;
  /** Tries per object while its kind is not served yet. @default 20 */
  attempts?: number;
}

/**
 * Applies `objects` (server-side apply, field manager `kinformer-sim`, forced) through
 * `fetch`, namespaced objects without a namespace into `default`; returns how many were
 * applied. A kind not served yet (a CRD of this set still being established) is tried again
 * after `retryDelay`; a refused object throws an Error with the server's message.
 *
 * @example
 * ```ts
 * import { configmaps } from "@kinformer/kinformer/client";
 * import { SimulatedCluster } from "@kinformer/simulator";
 * import { applyManifests, parseManifests } from "@kinformer/simulator/command";
 * import assert from "node:assert/strict";
 * const cluster = new SimulatedCluster();
 * const objects = parseManifests("web.yaml", "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: web}\n");
 * assert.equal(await applyManifests(cluster.fetch, objects), 1);
 * assert.equal(cluster.get(configmaps, { namespace: "default", name: "web" })?.metadata.name, "web");
 * cluster.close();
 * ```
 */
export async function applyManifests(
  fetch: (request: Request) => Promise<Response>,
  objects: readonly Manifest[],
  options: ApplyManifestsOptions = {},
): Promise<number> {
  const base = "https://simulated.invalid";
  const headers = options.headers ?? {};
  const attempts = options.attempts ?? 20;
  let applied = 0;
  for (const object of applyOrder(objects)) {
    const where = `${object.kind} ${object.metadata.name}`;
    let served: Served | undefined;
    for (let i = 0; i < attempts && served === undefined; i++) {
      served = await discover(fetch, base, object.apiVersion, object.kind, headers);
      if (served === undefined && i + 1 < attempts) await options.retryDelay?.();
    }
    if (served === undefined) {
      throw new Error(
        `${where}: the cluster serves no kind ${object.kind} in ${object.apiVersion}`,
      );
    }
    const group = object.apiVersion.includes("/")
      ? `/apis/${object.apiVersion}`
      : `/api/${object.apiVersion}`;
    const namespace = object.metadata.namespace ?? "default";
    const scope = served.namespaced ? `/namespaces/${encodeURIComponent(namespace)}` : "";
    const url =
      `${base}${group}${scope}/${served.name}/${encodeURIComponent(object.metadata.name)}` +
      "?fieldManager=kinformer-sim&force=true";
    const response = await fetch(
      new Request(url, {
        method: "PATCH",
        headers: { ...headers, "Content-Type": "application/apply-patch+yaml" },
        body: JSON.stringify(object),
      }),
    );
    if (!response.ok) {
      const text = await response.text();
      let message = text;
      try {
        message = String((JSON.parse(text) as { message?: unknown }).message ?? text);
      } catch {
        // Not a Status: the text is the message.
      }
      throw new Error(`${where}: ${response.status} ${message}`);
    }
    await response.body?.cancel();
    applied++;
  }
  return applied;
}
