/**
 * A write's body as kube-apiserver decodes it, before the write handlers see it: a protobuf body
 * is a 415; a create or update takes JSON or YAML (`application/yaml`, passed on as JSON), any
 * other media type is a 415; `fieldValidation` (`Strict`, `Warn` (the default) or `Ignore`) finds the fields the
 * resource's schema does not declare and those a JSON body gives twice, answers 400 for them
 * (Strict) or drops them, with `Warning` headers (Warn); and a resource served from another's
 * storage (`events.k8s.io/v1` Events) has its body checked and converted to the stored form.
 * The handlers then get a request with the body as decoded.
 * @module
 */
import { parseYaml } from "@kinformer/kinformer/internal";
import { describeValue, isRecord } from "@kinformer/kinformer/internal";
import type { OpenApiDocuments } from "../../model/openapi/openapi_documents.ts";
import {
  duplicateFields,
  fieldErrors,
  pruneUnknownFields,
} from "../../model/openapi/field_validation.ts";
import type { ResourceInfo } from "../../model/registry/served_resources.ts";
import { jsonPatch } from "./json_patch.ts";
import {
  type BodyLimits,
  parseYamlBody,
  readBodyText,
  refuseTooDeepJson,
} from "../../core/request_body.ts";
import {
  badRequest,
  fail,
  invalid,
  protobufNotSupported,
  status,
  unsupportedMediaType,
} from "../../core/status.ts";

/** The media type of a protobuf body. */
const PROTOBUF = "application/vnd.kubernetes.protobuf";

/** A write's request as the handlers should see it, and the warnings to answer with. */
export interface PreparedWrite {
  /** The request, its body decoded (and converted, for a view). */
  readonly request: Request;
  /** `Warning` header texts (unknown and duplicate fields under `fieldValidation=Warn`). */
  readonly warnings: readonly string[];
}

/** What a write is. */
export interface WriteTarget {
  /**
   * The object as stored now, in the served form (for a JSON patch, which is validated by its
   * result); throws when there is none.
   */
  readonly current: () => unknown;
  /** The resource as served on the path. */
  readonly info: ResourceInfo;
  /** `create`, `update`, `patch` or `delete`. */
  readonly verb: "create" | "update" | "patch" | "delete";
  /** Object name from the path. */
  readonly name: string | undefined;
  /** Subresource from the path. */
  readonly subresource: string | undefined;
}

/** The media type of a request's body, without parameters. */
export function mediaType(request: Request): string {
  return (request.headers.get("content-type") ?? "").split(";")[0]!.trim().toLowerCase();
}

const VERB_OPTIONS = {
  create: "CreateOptions",
  update: "UpdateOptions",
  patch: "PatchOptions",
  delete: "DeleteOptions",
} as const;

function directive(
  query: URLSearchParams,
  verb: WriteTarget["verb"],
): "Strict" | "Warn" | "Ignore" {
  const value = query.get("fieldValidation") ?? "";
  if (value === "") return "Warn";
  if (value === "Strict" || value === "Warn" || value === "Ignore") return value;
  fail(invalid(VERB_OPTIONS[verb], "meta.k8s.io", "", [{
    reason: "FieldValueNotSupported",
    field: "fieldValidation",
    message: `Unsupported value: ${
      describeValue(value)
    }: supported values: "Ignore", "Strict", "Warn"`,
  }]));
}

type Kind = "object" | "merge" | "json-patch" | "apply" | "other";

function bodyKind(verb: WriteTarget["verb"], type: string): Kind {
  if (verb === "create" || verb === "update") return "object";
  if (verb !== "patch") return "other";
  switch (type) {
    case "application/merge-patch+json":
    case "application/strategic-merge-patch+json":
      return "merge";
    case "application/json-patch+json":
      return "json-patch";
    case "application/apply-patch+yaml":
      return "apply";
  }
  return "other";
}

function parse(text: string, kind: Kind, onDuplicateKey: DuplicateKeys): unknown {
  if (kind === "apply" && !/^\s*[{[]/.test(text)) {
    return parseYaml(text, { source: "apply configuration", onDuplicateKey });
  }
  return JSON.parse(text) as unknown;
}

/** Where a YAML body's repeated keys are told (key, 1-based line). */
type DuplicateKeys = (key: string, line: number) => void;

/**
 * The strict decoding error of repeated keys in a YAML body, as kube-apiserver's strict YAML
 * conversion words it (on one line: it also travels in a `Warning` header under `Warn`).
 */
function yamlDuplicateError(lines: readonly string[]): string[] {
  if (lines.length === 0) return [];
  return [`error converting YAML to JSON: yaml: unmarshal errors: ${lines.join("; ")}`];
}

/** The media types a create or update body may have (kube-apiserver's, but protobuf). */
const OBJECT_MEDIA_TYPES = ["application/json", "application/yaml", PROTOBUF];

/**
 * Checks the media type of a create or update body: JSON and YAML are read; anything else is
 * the server's 415 (client-go falls back from CBOR to JSON on it). A body without a type, or
 * `text/plain` (what `fetch` gives a string body by itself), is read as JSON: a leniency of the
 * simulated cluster, kept for callers that post JSON without a header.
 */
async function checkObjectMediaType(request: Request, type: string): Promise<void> {
  if (
    type === "" || type === "application/json" || type === "application/yaml" ||
    type === "text/plain"
  ) return;
  await request.body?.cancel().catch(() => {
    // Nothing more to read from a body that is refused.
  });
  fail(unsupportedMediaType(OBJECT_MEDIA_TYPES));
}

/** A YAML object body as kube-apiserver reads it (to JSON), or its 400. */
function parseObjectYaml(text: string, limits: BodyLimits, onDuplicateKey: DuplicateKeys): unknown {
  return parseYamlBody(text, limits.maxJsonDepth, {
    source: "request body",
    syntax: "error converting YAML to JSON",
    subject: "the YAML of the request body",
  }, onDuplicateKey);
}

function strictError(target: WriteTarget, kind: Kind, errors: readonly string[]): never {
  const info = target.info;
  const list = errors.join(", ");
  if (kind === "object") {
    fail(badRequest(
      `${info.desc.kind} in version ${
        describeValue(info.desc.version)
      } cannot be handled as a ${info.desc.kind}: strict decoding error: ${list}`,
    ));
  }
  fail(badRequest(`strict decoding error: ${list}`));
}

/**
 * Server-side apply's answer to fields its schema does not declare (its typed conversion of the
 * patch fails, for a built-in kind whatever `fieldValidation` says): a 500 with no reason, as
 * kube-apiserver gives
 * an error that is not a Status (kubectl prints `Error from server: failed to create typed
 * patch object (default/web; apps/v1, Kind=Deployment): .spec.replica: field not declared in
 * schema`).
 */
function applyError(
  request: Request,
  target: WriteTarget,
  body: Record<string, unknown>,
  paths: readonly string[],
): never {
  const info = target.info;
  const metadata = isRecord(body.metadata) ? body.metadata : {};
  const text = (v: unknown) => typeof v === "string" ? v : "";
  const inPath = /\/namespaces\/([^/]+)\//.exec(new URL(request.url).pathname)?.[1] ?? "";
  const namespace = text(metadata.namespace) || (info.desc.namespaced ? inPath : "");
  const where = `${namespace}/${text(metadata.name) || target.name || ""}`;
  const errors = paths.map((p) => `${p}: field not declared in schema`);
  const message = `failed to create typed patch object (${where}; ${
    info.desc.group ?? ""
  }/${info.desc.version}, Kind=${info.desc.kind}): ${
    errors.length === 1 ? errors[0] : ["errors:", ...errors.map((e) => `  ${e}`)].join("\n")
  }`;
  const s = status(500, "", message);
  delete s.reason;
  delete s.details;
  fail(s);
}

/** JSON patch operations with their paths' first segment renamed to stored names. */
function storedJsonPatch(ops: unknown, rename: (name: string) => string): unknown {
  if (!Array.isArray(ops)) return ops;
  const fix = (path: unknown) => {
    if (typeof path !== "string" || !path.startsWith("/")) return path;
    const rest = path.slice(1);
    const end = rest.indexOf("/");
    const first = end < 0 ? rest : rest.slice(0, end);
    const name = first.replace(/~1/g, "/").replace(/~0/g, "~");
    return `/${rename(name).replace(/~/g, "~0").replace(/\//g, "~1")}${
      end < 0 ? "" : rest.slice(end)
    }`;
  };
  return ops.map((op) => {
    if (!isRecord(op)) return op;
    const out: Record<string, unknown> = { ...op, path: fix(op.path) };
    if (op.from !== undefined) out.from = fix(op.from);
    return out;
  });
}

/**
 * Decodes a write's body as the API server does (see the module doc) and returns the request
 * the handlers should serve. Bodies that do not parse are passed on untouched: the handlers
 * answer them with the server's errors.
 */
export async function prepareWrite(
  request: Request,
  target: WriteTarget,
  limits: BodyLimits,
  openapi: OpenApiDocuments,
): Promise<PreparedWrite> {
  const type = mediaType(request);
  if (type === PROTOBUF) {
    await request.body?.cancel().catch(() => {
      // Nothing more to read from a body that failed already.
    });
    fail(protobufNotSupported());
  }
  const query = new URL(request.url).searchParams;
  const view = target.info.view;
  const kind = bodyKind(target.verb, type);
  if (kind === "other") return { request, warnings: [] };
  if (kind === "object") await checkObjectMediaType(request, type);
  const mode = directive(query, target.verb);
  const text = await readBodyText(request, limits.maxRequestBodyBytes);
  const yaml = kind === "object" && type === "application/yaml";
  // kube-apiserver's decoder stops at 10,000 levels: refused before anything is parsed.
  if (/^\s*[{[]/.test(text)) {
    refuseTooDeepJson(
      text,
      kind === "object" ? "couldn't get version/kind; json parse error: " : "",
    );
  }
  // Repeated YAML keys: the later value wins; only Strict refuses them.
  const yamlDuplicates: string[] = [];
  const onDuplicateKey: DuplicateKeys = (key, line) =>
    yamlDuplicates.push(`line ${line}: key ${JSON.stringify(key)} already set in map`);
  let body: unknown;
  if (yaml) {
    body = parseObjectYaml(text, limits, onDuplicateKey);
  } else {
    try {
      body = parse(text, kind, onDuplicateKey);
    } catch {
      return { request: rebuild(request, text), warnings: [] };
    }
  }
  const warnings: string[] = [];
  // A YAML body goes on as JSON.
  let changed = yaml;
  if (target.subresource !== "scale" && kind === "json-patch" && Array.isArray(body)) {
    // Like the API server, judge a JSON patch by the object it makes: its unknown fields are a
    // 400 (Strict), or are removed by operations appended to the patch (Warn, Ignore).
    const { schema, components } = openapi.kindSchema(target.info);
    let result: unknown;
    try {
      result = jsonPatch(target.current(), body, { maxCopyBytes: limits.maxRequestBodyBytes });
    } catch {
      result = undefined; // no object, or a bad patch: the handler answers it
    }
    if (isRecord(result)) {
      const found = pruneUnknownFields(result, schema, components, "object");
      const errors = fieldErrors(text, found.unknown, duplicateFields(text), false);
      if (mode === "Strict" && errors.length > 0) strictError(target, kind, errors);
      if (mode === "Warn") warnings.push(...errors);
      if (found.pointers.length > 0) {
        body = [...body, ...found.pointers.map((path) => ({ op: "remove", path }))];
        changed = true;
      }
    }
  }
  if (target.subresource !== "scale" && kind !== "json-patch" && isRecord(body)) {
    const { schema, components } = openapi.kindSchema(target.info);
    const found = pruneUnknownFields(
      body,
      schema,
      components,
      kind === "merge" ? "patch" : "object",
    );
    // A built-in kind's typed conversion refuses unknown fields whatever fieldValidation says;
    // for a custom resource the simulator keeps that to Strict (Warn and Ignore drop them).
    if (
      kind === "apply" && found.applyPaths.length > 0 &&
      (target.info.builtin || mode === "Strict")
    ) {
      applyError(request, target, body, found.applyPaths);
    }
    const duplicates = yaml || (kind === "apply" && !/^\s*[{[]/.test(text))
      ? []
      : duplicateFields(text);
    const errors = [
      ...yamlDuplicateError(yamlDuplicates),
      ...fieldErrors(text, found.unknown, duplicates, target.info.builtin),
    ];
    if (mode === "Strict" && errors.length > 0) strictError(target, kind, errors);
    if (mode === "Warn") warnings.push(...errors);
    if (found.value !== body) {
      body = found.value;
      changed = true;
    }
  }
  if (view !== undefined) {
    if (kind === "object" && isRecord(body)) {
      view.check?.(body, target.name ?? nameOf(body), target.verb === "create");
    }
    body = kind === "json-patch"
      ? storedJsonPatch(body, view.storedField)
      : isRecord(body)
      ? view.stored(body)
      : body;
    changed = true;
  }
  return {
    request: changed ? rebuild(request, JSON.stringify(body), yaml) : rebuild(request, text),
    warnings,
  };
}

function nameOf(body: Record<string, unknown>): string {
  const metadata = body.metadata;
  return isRecord(metadata) && typeof metadata.name === "string" ? metadata.name : "";
}

/** `request` with `text` as its body (the original was read), JSON when `json`. */
function rebuild(request: Request, text: string, json = false): Request {
  const headers = new Headers(request.headers);
  headers.delete("content-length");
  if (json) headers.set("content-type", "application/json");
  return new Request(request.url, {
    method: request.method,
    headers,
    body: text,
    signal: request.signal,
  });
}
