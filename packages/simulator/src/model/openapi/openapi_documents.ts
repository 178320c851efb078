/**
 * OpenAPI v3 as the simulated cluster serves it: the index `/openapi/v3` (one entry per group
 * version, `serverRelativeURL` with a content hash, as kube-apiserver) and one document per
 * group version with its paths and component schemas. Enough for `kubectl apply` and its
 * default validation (kubectl sees from the PATCH operations that the server validates fields,
 * sends `fieldValidation=Strict` and lets the server check), for `kubectl explain` of what is
 * described, and for clients that compute strategic merge patches from OpenAPI.
 *
 * What it covers: every served resource's paths (list, create, get, replace, patch, delete, and
 * the `status` subresource) with the write parameters (`dryRun`, `fieldManager`,
 * `fieldValidation`, `force`) and the patch types the server takes; schemas as
 * `builtin_schemas.ts` describes them for built-in kinds and a custom resource's
 * `openAPIV3Schema`. Not covered: watch and collection-delete paths, the `scale` subresource,
 * response codes other than success, and the fields of the built-in kinds not described there.
 * Strategic merge patch is listed only for built-in kinds described field by field (clients
 * compute such patches from the schema, which must then know every field; for the others
 * kubectl uses the types it is built with, and the server takes the patch all the same).
 * @module
 */
import { COMMON_HEADERS, jsonResponse } from "../../core/status.ts";
import type { ResourceInfo } from "../registry/served_resources.ts";
import {
  builtinSchema,
  builtinSchemaName,
  type Components,
  isFullyDescribed,
  metaComponents,
  type Schema,
} from "./builtin_schemas.ts";
import { META, ref } from "./_schema_dsl.ts";

/** A resource's kind schema and the components its references resolve in. */
export interface KindSchema {
  /** Component name of the kind's schema. */
  readonly name: string;
  /** The kind's schema. */
  readonly schema: Schema;
  /** Components (the kind's own included). */
  readonly components: Components;
}

/** The schema name of a custom resource kind: its group reversed (`com.example.v1.Widget`). */
function customSchemaName(group: string, version: string, kind: string): string {
  return `${group.split(".").reverse().join(".")}.${version}.${kind}`;
}

function customSchema(info: ResourceInfo): Schema {
  const group = info.desc.group ?? "";
  const gvk = {
    "x-kubernetes-group-version-kind": [{
      group,
      kind: info.desc.kind,
      version: info.desc.version,
    }],
  };
  const envelope = {
    apiVersion: { type: "string" },
    kind: { type: "string" },
    metadata: ref(`${META}.ObjectMeta`),
  };
  const given = info.schema;
  if (given === undefined) {
    return {
      type: "object",
      properties: envelope,
      "x-kubernetes-preserve-unknown-fields": true,
      ...gvk,
    };
  }
  const properties = typeof given.properties === "object" && given.properties !== null
    ? given.properties as Record<string, Schema>
    : {};
  return { ...given, type: "object", properties: { ...properties, ...envelope }, ...gvk };
}

const PARAMS = {
  dryRun: "When present, the write is validated and answered but not stored (`All`).",
  fieldManager: "The name of the actor making the change (required for apply patches).",
  fieldValidation:
    "What the server does with unknown or duplicate fields: Ignore (drop them), Warn (drop them and say so in Warning headers; the default) or Strict (answer 400).",
  force: "Apply patches only: take over fields other managers own.",
};

function queryParam(name: keyof typeof PARAMS): Schema {
  return {
    name,
    in: "query",
    description: PARAMS[name],
    schema: { type: "string", uniqueItems: true },
  };
}

function pathParam(name: string): Schema {
  return { name, in: "path", required: true, schema: { type: "string", uniqueItems: true } };
}

function content(schema: Schema): Schema {
  return { "application/json": { schema } };
}

/** The paths of one resource. */
function resourcePaths(info: ResourceInfo, kindRef: string, smp: boolean): Record<string, Schema> {
  const group = info.desc.group ?? "";
  const gvk = { group, version: info.desc.version, kind: info.desc.kind };
  const base = group ? `/apis/${group}/${info.desc.version}` : `/api/${info.desc.version}`;
  const ns = info.desc.namespaced ? "/namespaces/{namespace}" : "";
  const collection = `${base}${ns}/${info.desc.resource}`;
  const item = `${collection}/{name}`;
  const one = { $ref: `#/components/schemas/${kindRef}` };
  const listSchema = {
    type: "object",
    properties: {
      apiVersion: { type: "string" },
      items: { type: "array", items: one },
      kind: { type: "string" },
      metadata: ref(`${META}.ListMeta`),
    },
  };
  const op = (action: string, extra: Schema): Schema => ({
    "x-kubernetes-action": action,
    "x-kubernetes-group-version-kind": gvk,
    ...extra,
  });
  const ok = (schema: Schema, code = "200") => ({
    responses: { [code]: { description: "OK", content: content(schema) } },
  });
  const writeParams = [
    queryParam("dryRun"),
    queryParam("fieldManager"),
    queryParam("fieldValidation"),
  ];
  const patchTypes = [
    "application/apply-patch+yaml",
    "application/json-patch+json",
    "application/merge-patch+json",
    ...(smp ? ["application/strategic-merge-patch+json"] : []),
  ];
  const patch = op("patch", {
    parameters: [...writeParams, queryParam("force")],
    requestBody: {
      required: true,
      content: Object.fromEntries(
        patchTypes.map((t) => [t, { schema: { $ref: `#/components/schemas/${META}.Patch` } }]),
      ),
    },
    ...ok(one),
  });
  // The object's operations, the same on its /status.
  const get = op("get", ok(one));
  const put = op("put", {
    parameters: writeParams,
    requestBody: { required: true, content: content(one) },
    ...ok(one),
  });
  const itemParams = [pathParam("name"), ...(info.desc.namespaced ? [pathParam("namespace")] : [])];
  const collectionParams = info.desc.namespaced ? [pathParam("namespace")] : [];
  const paths: Record<string, Schema> = {
    [collection]: {
      get: op("list", ok(listSchema)),
      post: op("post", {
        parameters: writeParams,
        requestBody: { required: true, content: content(one) },
        ...ok(one, "201"),
      }),
      parameters: collectionParams,
    },
    [item]: {
      get,
      put,
      patch,
      delete: op("delete", { parameters: [queryParam("dryRun")], ...ok(one) }),
      parameters: itemParams,
    },
  };
  if (info.statusSubresource) {
    paths[`${item}/status`] = {
      get,
      put,
      patch,
      parameters: itemParams,
    };
  }
  return paths;
}

/** FNV-1a (64 bits) of `text`, as hex: the hash of a document in its URL. */
function hash(text: string): string {
  let h = 0xcbf29ce484222325n;
  for (let i = 0; i < text.length; i++) {
    h ^= BigInt(text.charCodeAt(i));
    h = (h * 0x100000001b3n) & 0xffffffffffffffffn;
  }
  return h.toString(16).toUpperCase().padStart(16, "0");
}

/** The OpenAPI v3 documents of a set of served resources (made on first use, then kept). */
export class OpenApiDocuments {
  readonly #resources: readonly ResourceInfo[];
  readonly #kinds = new Map<string, KindSchema>();
  #documents: Map<string, { json: string; hash: string }> | undefined;

  constructor(resources: readonly ResourceInfo[]) {
    this.#resources = resources;
  }

  /** The schema of a served resource's kind (as served: a view's own schema). */
  kindSchema(info: ResourceInfo): KindSchema {
    let k = this.#kinds.get(info.id);
    if (k === undefined) {
      const group = info.desc.group ?? "";
      const { version, kind } = info.desc;
      const components = metaComponents();
      let name: string;
      let schema: Schema;
      if (info.builtin) {
        name = builtinSchemaName(group, version, kind);
        const b = builtinSchema(group, version, kind);
        schema = b.schema;
        Object.assign(components, b.components);
      } else {
        name = customSchemaName(group, version, kind);
        schema = customSchema(info);
      }
      components[name] = schema;
      k = { name, schema, components };
      this.#kinds.set(info.id, k);
    }
    return k;
  }

  #build(): Map<string, { json: string; hash: string }> {
    const byGv = new Map<string, ResourceInfo[]>();
    for (const info of this.#resources) {
      const key = info.desc.group
        ? `apis/${info.desc.group}/${info.desc.version}`
        : `api/${info.desc.version}`;
      const list = byGv.get(key) ?? [];
      list.push(info);
      byGv.set(key, list);
    }
    const out = new Map<string, { json: string; hash: string }>();
    for (const [key, infos] of byGv) {
      const paths: Record<string, Schema> = {};
      const components: Components = {
        [`${META}.ListMeta`]: {
          type: "object",
          properties: {
            continue: { type: "string" },
            remainingItemCount: { type: "integer", format: "int64" },
            resourceVersion: { type: "string" },
            selfLink: { type: "string" },
          },
        },
        [`${META}.Patch`]: {
          type: "object",
          description:
            "Patch is provided to give a concrete name and type to the Kubernetes PATCH request body.",
        },
      };
      for (const info of infos) {
        const k = this.kindSchema(info);
        Object.assign(components, k.components);
        const smp = info.builtin &&
          isFullyDescribed(info.desc.group ?? "", info.desc.version, info.desc.kind);
        Object.assign(paths, resourcePaths(info, k.name, smp));
      }
      const json = JSON.stringify({
        openapi: "3.0.0",
        info: { title: "Kubernetes", version: "v1.33.0-kinformer.sim" },
        paths,
        components: { schemas: components },
      });
      out.set(key, { json, hash: hash(json) });
    }
    return out;
  }

  /** Answers `/openapi/v3` and `/openapi/v3/<group version>`, or undefined for other paths. */
  answer(path: string): Response | undefined {
    const p = path.endsWith("/") ? path.slice(0, -1) : path;
    if (p !== "/openapi/v3" && !p.startsWith("/openapi/v3/")) return undefined;
    const documents = this.#documents ??= this.#build();
    if (p === "/openapi/v3") {
      const paths: Record<string, unknown> = {};
      for (const [key, d] of documents) {
        paths[key] = { serverRelativeURL: `/openapi/v3/${key}?hash=${d.hash}` };
      }
      return jsonResponse(JSON.stringify({ paths }), 200);
    }
    const d = documents.get(p.slice("/openapi/v3/".length));
    if (d === undefined) return undefined;
    return new Response(d.json, {
      status: 200,
      headers: {
        ...COMMON_HEADERS,
        "Content-Type": "application/json",
        Etag: `"${d.hash}"`,
        Vary: "Accept",
      },
    });
  }
}
