/**
 * LIST: selectors, `limit`/`continue` paging from a stable snapshot, and the
 * `resourceVersion` / `resourceVersionMatch` semantics of the real API server. Bodies are built
 * by concatenating each object's cached JSON and streamed in large batches.
 * @module
 */
import type { Rendering } from "./content_negotiation.ts";
import { type FieldSelector, parseFieldSelector } from "../../client/field_selector.ts";
import {
  type LabelSelector,
  parseLabelSelector,
  SelectorParseError,
} from "../../client/label_selector.ts";
import { BodyChannel } from "./response_body.ts";
import type { HandlerContext } from "./handler_context.ts";
import type { ResourceInfo } from "../store/served_resources.ts";
import type { ResourceState, Version } from "../store/object_store.ts";
import { base64Utf8 } from "../../util/values.ts";
import {
  badRequest,
  COMMON_HEADERS,
  expired,
  fail,
  type FieldProblem,
  invalid,
  resourceVersionTooLarge,
} from "../serving/status.ts";

/** Label and field selector of a request. */
export interface Selectors {
  /** Label selector. */
  readonly label: LabelSelector;
  /** Field selector. */
  readonly field: FieldSelector;
}

/** Parses `labelSelector`/`fieldSelector`; a bad or unsupported one is a 400, as on a real server. */
export function parseSelectors(info: ResourceInfo, query: URLSearchParams): Selectors {
  let label: LabelSelector;
  let field: FieldSelector;
  try {
    label = parseLabelSelector(query.get("labelSelector") ?? "");
  } catch (e) {
    if (e instanceof SelectorParseError) {
      fail(badRequest(`unable to parse requirement: ${e.message}`));
    }
    throw e;
  }
  try {
    field = parseFieldSelector(query.get("fieldSelector") ?? "");
  } catch (e) {
    if (e instanceof SelectorParseError) fail(badRequest(`invalid field selector: ${e.message}`));
    throw e;
  }
  for (const r of field.requirements) {
    if (!info.fieldSelectors.has(r.path)) {
      fail(badRequest(`field label not supported: ${r.path}`));
    }
  }
  return { label, field };
}

/** Parses a decimal resourceVersion; anything else is a 400. */
export function parseResourceVersion(text: string): number {
  if (!/^[0-9]{1,15}$/.test(text)) {
    fail(badRequest(`invalid resource version: ${JSON.stringify(text)}`));
  }
  return Number(text);
}

/** 422 for invalid list/watch options (the server's `ListOptions` validation). */
export function invalidOptions(problems: FieldProblem[]): never {
  fail(invalid("ListOptions", "meta.k8s.io", "", problems));
}

/** Forbidden problem helper. */
export function forbidden(field: string, message: string): FieldProblem {
  return { reason: "FieldValueForbidden", field, message: `Forbidden: ${message}` };
}

/** NotSupported problem helper. */
export function notSupported(field: string, value: string, supported: string[]): FieldProblem {
  return {
    reason: "FieldValueNotSupported",
    field,
    message: `Unsupported value: ${JSON.stringify(value)}: supported values: ${
      supported.map((s) => JSON.stringify(s)).join(", ")
    }`,
  };
}

function base64UrlEncode(text: string): string {
  return base64Utf8(text).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

function base64UrlDecode(token: string): string {
  const b64 = token.replace(/-/g, "+").replace(/_/g, "/");
  const bin = atob(b64 + "=".repeat((4 - (b64.length % 4)) % 4));
  return new TextDecoder("utf-8", { fatal: true }).decode(
    Uint8Array.from(bin, (c) => c.charCodeAt(0)),
  );
}

/** Encodes a continue token: base64url JSON of the snapshot RV and the key to start at. */
export function encodeContinue(rv: number, start: string): string {
  return base64UrlEncode(JSON.stringify({ v: "meta.k8s.io/v1", rv, start }));
}

/** Decodes a continue token, or a 400 when it is not one of ours. */
export function decodeContinue(token: string): { rv: number; start: string } {
  try {
    const parsed = JSON.parse(base64UrlDecode(token)) as {
      v?: unknown;
      rv?: unknown;
      start?: unknown;
    };
    if (
      parsed.v === "meta.k8s.io/v1" && typeof parsed.rv === "number" && parsed.rv > 0 &&
      typeof parsed.start === "string"
    ) {
      return { rv: parsed.rv, start: parsed.start };
    }
  } catch {
    // Falls through to the 400 below: the token is not base64url JSON.
  }
  fail(badRequest(`continue key is not valid: ${JSON.stringify(token)}`));
}

/** First index in `sorted` whose key is >= `key`. */
export function lowerBound(sorted: readonly Version[], key: string): number {
  let lo = 0;
  let hi = sorted.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (sorted[mid]!.key < key) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** The index range of `namespace` (all when undefined) in a key-sorted snapshot. */
export function namespaceRange(
  sorted: readonly Version[],
  namespace: string | undefined,
): [number, number] {
  if (!namespace) return [0, sorted.length];
  // Keys are "namespace/name"; "0" is the character after "/".
  return [lowerBound(sorted, `${namespace}/`), lowerBound(sorted, `${namespace}0`)];
}

/** Whether `v` passes the namespace and selectors. */
export function selected(v: Version, namespace: string | undefined, s: Selectors): boolean {
  const item = v.item;
  if (namespace && item.metadata.namespace !== namespace) return false;
  return s.label.matches(item.metadata.labels) && s.field.matches(item);
}

/** A list request, parsed from the URL. */
export interface ListRequest {
  /** Resource state. */
  readonly state: ResourceState;
  /** Namespace from the path. */
  readonly namespace: string | undefined;
  /** Query parameters. */
  readonly query: URLSearchParams;
  /** Items as sent: whole, or as `PartialObjectMetadata` (`Accept: ...;as=...List`). */
  readonly rendering?: Rendering;
}

/** Computes the list (throws KubeApiError for error answers) and streams it. */
export function handleList(ctx: HandlerContext, req: ListRequest): Response {
  const { state, namespace, query } = req;
  const info = state.info;
  const store = ctx.store;
  const rvText = query.get("resourceVersion") ?? "";
  const match = query.get("resourceVersionMatch") ?? "";
  const cont = query.get("continue") ?? "";
  const limitText = query.get("limit") ?? "";
  let limit = 0;
  if (limitText !== "") {
    if (!/^-?[0-9]+$/.test(limitText)) {
      fail(badRequest(`invalid limit: ${JSON.stringify(limitText)}`));
    }
    limit = Math.max(0, Number(limitText));
  }
  // As the real API server: a list at resourceVersion "0" is served whole from the watch
  // cache, whatever `limit` says (only a server without a watch cache pages it).
  if (rvText === "0" && cont === "" && ctx.watchCache) limit = 0;
  const problems: FieldProblem[] = [];
  if (match !== "") {
    if (rvText === "") {
      problems.push(forbidden(
        "resourceVersionMatch",
        "resourceVersionMatch is forbidden unless resourceVersion is provided",
      ));
    }
    if (cont !== "") {
      problems.push(forbidden(
        "resourceVersionMatch",
        "resourceVersionMatch is forbidden when continue is provided",
      ));
    }
    if (match !== "Exact" && match !== "NotOlderThan") {
      problems.push(notSupported("resourceVersionMatch", match, ["Exact", "NotOlderThan", ""]));
    }
    if (match === "Exact" && rvText === "0") {
      problems.push(forbidden(
        "resourceVersionMatch",
        'resourceVersionMatch "exact" is forbidden for resourceVersion "0"',
      ));
    }
  }
  if (query.has("sendInitialEvents")) {
    problems.push(forbidden("sendInitialEvents", "sendInitialEvents is forbidden for list"));
  }
  if (problems.length > 0) invalidOptions(problems);
  const selectors = parseSelectors(info, query);

  let listRv: number;
  let snapshot: readonly Version[] | undefined;
  let start = 0;
  if (cont !== "") {
    if (rvText !== "" && rvText !== "0") {
      fail(badRequest("specifying resource version is not allowed when using continue"));
    }
    const token = decodeContinue(cont);
    listRv = token.rv;
    snapshot = listRv > store.rv ? undefined : state.snapshotAt(listRv);
    if (snapshot === undefined) {
      fail(expired(
        "The provided continue parameter is too old to display a consistent list result. You can start a new list without the continue parameter.",
      ));
    }
    start = lowerBound(snapshot, token.start);
  } else if (rvText === "" || rvText === "0") {
    listRv = store.rv;
    snapshot = state.snapshotAt(listRv)!;
  } else {
    const n = parseResourceVersion(rvText);
    if (n > store.rv) fail(resourceVersionTooLarge(rvText, store.rv));
    const exact = match === "Exact" || (match === "" && limit > 0);
    if (exact) {
      listRv = n;
      snapshot = state.snapshotAt(n);
      if (snapshot === undefined) {
        fail(expired("The resourceVersion for the provided list is too old."));
      }
    } else {
      listRv = store.rv;
      snapshot = state.snapshotAt(listRv)!;
    }
  }

  const [from, to] = namespaceRange(snapshot, namespace);
  const items: Version[] = [];
  let i = Math.max(from, start);
  let next: string | undefined;
  let remaining: number | undefined;
  const everything = selectors.label.isEverything() && selectors.field.isEverything();
  for (; i < to; i++) {
    const v = snapshot[i]!;
    if (!everything && !selected(v, undefined, selectors)) continue;
    items.push(v);
    if (limit > 0 && items.length === limit) {
      if (i + 1 < to) {
        next = encodeContinue(listRv, v.key + "\u0000");
        if (everything) remaining = to - (i + 1);
      }
      break;
    }
  }

  let meta = `{"resourceVersion":"${listRv}"`;
  if (next !== undefined) meta += `,"continue":"${next}"`;
  if (remaining !== undefined) meta += `,"remainingItemCount":${remaining}`;
  meta += "}";
  const metadata = req.rendering === "metadata";
  let head: string | undefined = metadata
    ? `{"kind":"PartialObjectMetadataList","apiVersion":"meta.k8s.io/v1","metadata":${meta},"items":[`
    : `{"kind":"${info.listKind}","apiVersion":"${info.apiVersion}","metadata":${meta},"items":[`;
  let index = 0;
  const source = (): string | undefined => {
    if (head === undefined && index > items.length) return undefined;
    let out = head ?? "";
    head = undefined;
    while (index < items.length && out.length < 128 * 1024) {
      const v = items[index]!;
      const json = metadata ? v.metadataJson : v.itemJson;
      out += index === 0 ? json : "," + json;
      index++;
    }
    if (index === items.length) {
      out += "]}";
      index++;
    }
    return out;
  };
  const channel: BodyChannel = new BodyChannel(ctx.env, () => ctx.untrack(channel), source);
  ctx.track(channel);
  return new Response(channel.stream, {
    status: 200,
    headers: { ...COMMON_HEADERS, "Content-Type": "application/json" },
  });
}
