/**
 * LIST: selectors, `limit`/`continue` paging from a stable snapshot, and the
 * `resourceVersion` / `resourceVersionMatch` semantics of the real API server. Bodies are built
 * by concatenating each object's cached JSON (or, for a Table, each row as it is printed) and
 * streamed in large batches.
 * @module
 */
import { isTable, type Rendering } from "./content_negotiation.ts";
import type { ServedView } from "./served_view.ts";
import {
  columnsJson,
  rowJson,
  tableHead,
  tableRequest,
} from "../../model/tables/table_rendering.ts";
import { decodeContinue, encodeContinue } from "./continue_token.ts";
import type { HandlerContext } from "./handler_context.ts";
import {
  forbidden,
  invalidOptions,
  notNewerThan,
  notSupported,
  parseSelectors,
  selected,
} from "./list_options.ts";
import { BodyChannel } from "./response_body.ts";
import type { Version } from "../../store/object_version.ts";
import { lowerBound, namespaceRange } from "../../store/resource_state.ts";
import { badRequest, COMMON_HEADERS, expired, fail, type FieldProblem } from "../../core/status.ts";
import { describeValue } from "@kinformer/kinformer/internal";

/** A list request, parsed from the URL. */
export interface ListRequest {
  /** The resource as served, over its storage. */
  readonly view: ServedView;
  /** Namespace from the path. */
  readonly namespace: string | undefined;
  /** Query parameters. */
  readonly query: URLSearchParams;
  /** Items as sent: whole, as `PartialObjectMetadata` (`Accept: ...;as=...List`), or a Table. */
  readonly rendering?: Rendering;
}

/** Computes the list (throws KubeApiError for error answers) and streams it. */
export function handleList(ctx: HandlerContext, req: ListRequest): Response {
  const { view, namespace, query } = req;
  const state = view.state;
  const info = view.info;
  const store = ctx.store;
  const rvText = query.get("resourceVersion") ?? "";
  const match = query.get("resourceVersionMatch") ?? "";
  const cont = query.get("continue") ?? "";
  const limitText = query.get("limit") ?? "";
  let limit = 0;
  if (limitText !== "") {
    if (!/^-?[0-9]+$/.test(limitText)) {
      fail(badRequest(`invalid limit: ${describeValue(limitText)}`));
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
    const n = notNewerThan(rvText, store.rv)!;
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
    if (!everything && !selected(v, undefined, selectors, view.item(v))) continue;
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
  const rendering = req.rendering ?? "object";
  const metadata = rendering === "metadata";
  let head: string | undefined;
  let itemJson: (v: Version) => string;
  if (isTable(rendering)) {
    const table = tableRequest(rendering.apiVersion, query);
    const now = ctx.env.clock.now();
    head = tableHead(table, meta, columnsJson(info.table));
    itemJson = (v) =>
      rowJson(
        info.table,
        {
          stored: v.item,
          served: () => view.json(v),
          metadataV1: () => v.metadataJson,
        },
        table,
        now,
      );
  } else {
    head = metadata
      ? `{"kind":"PartialObjectMetadataList","apiVersion":"meta.k8s.io/v1","metadata":${meta},"items":[`
      : `{"kind":"${info.listKind}","apiVersion":"${info.apiVersion}","metadata":${meta},"items":[`;
    itemJson = metadata ? (v) => v.metadataJson : (v) => view.itemJson(v);
  }
  let index = 0;
  const source = (): string | undefined => {
    if (head === undefined && index > items.length) return undefined;
    let out = head ?? "";
    head = undefined;
    while (index < items.length && out.length < 128 * 1024) {
      const json = itemJson(items[index]!);
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
