/**
 * WATCH: one JSON line per event on a chunked body, the resourceVersion semantics of the real
 * API server (synthetic ADDEDs, resumption strictly after an RV, 410 ERROR for compacted
 * history), bookmarks, `timeoutSeconds`, streaming lists (`sendInitialEvents`) and selector
 * transitions (an object leaving the selector is DELETED, one entering it ADDED).
 * @module
 */
import { isTable, type Rendering } from "./content_negotiation.ts";
import type { ServedView } from "./served_view.ts";
import {
  columnsJson,
  rowJson,
  tableHead,
  type TableRequest,
  tableRequest,
} from "../../model/tables/table_rendering.ts";
import type { KubeObject, Status } from "@kinformer/kinformer/client";
import { onAbort } from "@kinformer/kinformer/internal";
import type { TimerHandle } from "@kinformer/kinformer/cache";
import { BodyChannel, networkError } from "./response_body.ts";
import type { HandlerContext } from "./handler_context.ts";
import {
  forbidden,
  invalidOptions,
  notNewerThan,
  notSupported,
  parseSelectors,
  selected,
  type Selectors,
} from "./list_options.ts";
import { type ChangeType, Version } from "../../store/object_version.ts";
import {
  type ChangeListener,
  namespaceRange,
  type ResourceState,
  type StoredEvent,
} from "../../store/resource_state.ts";
import { badRequest, COMMON_HEADERS, fail, type FieldProblem, status } from "../../core/status.ts";
import { acceptedHandshake, checkHandshake } from "./websocket_handshake.ts";
import { describeValue } from "@kinformer/kinformer/internal";

/** A watch request, parsed from the URL. */
export interface WatchRequest {
  /** The resource as served, over its storage. */
  readonly view: ServedView;
  /** Namespace from the path. */
  readonly namespace: string | undefined;
  /** Query parameters. */
  readonly query: URLSearchParams;
  /** The request's signal: aborting it ends the watch. */
  readonly signal: AbortSignal | undefined;
  /** Objects as sent: whole, as `PartialObjectMetadata` (`Accept: ...;as=...`), or Tables. */
  readonly rendering?: Rendering;
  /**
   * The (authenticated) WebSocket handshake, when the watch was asked for over one: its Origin
   * and protocols are checked once the watch request is valid, and the answer accepts it.
   */
  readonly handshake?: Request | undefined;
}

/** One open watch. */
class Watch implements ChangeListener {
  readonly #ctx: HandlerContext;
  readonly #view: ServedView;
  readonly #state: ResourceState;
  /** Set for a Table watch; `headers` turns false once the first event carried the columns. */
  readonly #table: { request: TableRequest; headers: boolean } | undefined;
  readonly #namespace: string | undefined;
  readonly #selectors: Selectors;
  readonly #everything: boolean;
  readonly channel: BodyChannel;
  readonly #bookmarks: boolean;
  #bookmarkTimer: TimerHandle | undefined;
  #timeoutTimer: TimerHandle | undefined;
  #endAfter: { events: number; clean: boolean } | undefined;
  #sent = 0;
  #disposed = false;
  /** Stops listening to the request's signal. */
  #stopListening: () => void;

  readonly #metadata: boolean;

  constructor(ctx: HandlerContext, req: WatchRequest, selectors: Selectors, bookmarks: boolean) {
    this.#ctx = ctx;
    this.#view = req.view;
    this.#state = req.view.state;
    const rendering = req.rendering ?? "object";
    this.#table = isTable(rendering)
      ? { request: tableRequest(rendering.apiVersion, req.query), headers: true }
      : undefined;
    this.#namespace = req.namespace;
    this.#selectors = selectors;
    this.#everything = selectors.label.isEverything() && selectors.field.isEverything() &&
      !req.namespace;
    this.#bookmarks = bookmarks;
    this.#metadata = rendering === "metadata";
    const faults = ctx.takeWatchFaults(this.#state);
    this.#endAfter = faults.endAfter;
    this.channel = new BodyChannel(ctx.env, () => this.#dispose());
    if (faults.corruptLine !== undefined) this.channel.push(faults.corruptLine);
    ctx.track(this.channel);
    ctx.addWatch(this);
    const signal = req.signal;
    this.#stopListening = onAbort(signal, () => {
      this.channel.fail(signal?.reason ?? networkError("request aborted"), true);
    });
  }

  #matches(v: Version): boolean {
    return this.#everything || selected(v, this.#namespace, this.#selectors, this.#view.item(v));
  }

  /** The event line of `v` as `type`, rendered as the watch asked (whole, metadata, Table). */
  #line(type: ChangeType | "BOOKMARK", v: Version): string {
    const table = this.#table;
    if (table === undefined) {
      return type === "BOOKMARK"
        ? `{"type":"BOOKMARK","object":${this.#view.json(v)}}\n`
        : this.#view.line(type, v, this.#metadata);
    }
    const info = this.#view.info;
    const columns = table.headers ? columnsJson(info.table) : null;
    table.headers = false;
    const row = rowJson(
      info.table,
      {
        stored: v.item,
        served: () => this.#view.json(v),
        metadataV1: () => v.metadataJson,
      },
      // The end of a streaming list's initial events always carries its metadata.
      type === "BOOKMARK" && table.request.includeObject === "Object" &&
        v.item.metadata?.annotations?.["k8s.io/initial-events-end"] === "true"
        ? { ...table.request, includeObject: "Metadata" }
        : table.request,
      this.#ctx.env.clock.now(),
    );
    const meta = `{"resourceVersion":${JSON.stringify(v.item.metadata?.resourceVersion ?? "")}}`;
    return `{"type":"${type}","object":${tableHead(table.request, meta, columns)}${row}]}}\n`;
  }

  #send(line: string): void {
    if (this.#disposed) return;
    this.channel.push(line);
    this.#sent++;
    const end = this.#endAfter;
    if (end !== undefined && this.#sent >= end.events) {
      if (end.clean) this.close();
      else this.drop();
    } else if (this.channel.buffered > this.#ctx.maxWatchBufferBytes) {
      // The real server closes watchers that cannot keep up; clients re-watch from their RV.
      this.close();
    }
  }

  /** Delivers one change, translated through the selectors (and through an armed fault). */
  offer(event: StoredEvent): void {
    const type = this.#translate(event);
    if (type === undefined || this.#disposed) return;
    const fault = this.#ctx.takeEventFault(this.#state, type);
    if (fault === "lose") return; // later events and bookmarks move the client past it
    if (fault === "old-version" && event.prev !== undefined) {
      this.#send(this.#line("MODIFIED", event.prev));
    } else if (fault === "wrong-uid") {
      const v = event.version;
      const item = { ...v.item, metadata: { ...v.item.metadata, uid: `corrupted-${event.rv}` } };
      this.#send(this.#line(type, new Version(v.info, v.key, v.rv, item)));
    } else this.#send(this.#line(type, event.version));
  }

  /** What this watch sees of a change: an object entering its selectors is ADDED, ... */
  #translate(event: StoredEvent): "ADDED" | "MODIFIED" | "DELETED" | undefined {
    const now = this.#matches(event.version);
    if (event.type === "ADDED") return now ? "ADDED" : undefined;
    const before = event.prev !== undefined && this.#matches(event.prev);
    if (event.type === "DELETED") return before ? "DELETED" : undefined;
    if (before && now) return "MODIFIED";
    return now ? "ADDED" : before ? "DELETED" : undefined;
  }

  /** Synthetic ADDEDs for the current state. */
  sendInitial(snapshot: readonly Version[]): void {
    const [from, to] = namespaceRange(snapshot, this.#namespace);
    for (let i = from; i < to && !this.#disposed; i++) {
      const v = snapshot[i]!;
      if (this.#matches(v)) this.#send(this.#line("ADDED", v));
    }
  }

  /** A BOOKMARK at `rv`, optionally the end-of-initial-events marker. */
  bookmark(rv: number, initialEventsEnd = false): void {
    const metadata: KubeObject["metadata"] = { resourceVersion: String(rv) };
    if (initialEventsEnd) metadata.annotations = { "k8s.io/initial-events-end": "true" };
    const info = this.#view.info;
    this.#send(this.#line("BOOKMARK", new Version(info, "", rv, { metadata } as KubeObject)));
  }

  /** Sends one ERROR event and ends the watch. */
  error(s: Status): void {
    this.#send(`{"type":"ERROR","object":${JSON.stringify(s)}}\n`);
    this.close();
  }

  /** Starts receiving live changes, periodic bookmarks and the timeout. */
  start(timeoutMs: number | undefined): void {
    if (this.#disposed) return;
    this.#state.listeners.add(this);
    if (this.#bookmarks) this.#scheduleBookmark();
    if (timeoutMs !== undefined) {
      this.#timeoutTimer = this.#ctx.env.clock.setTimeout(() => {
        this.#timeoutTimer = undefined;
        if (this.#bookmarks) this.bookmark(this.#ctx.store.rv);
        this.close();
      }, timeoutMs);
    }
  }

  #scheduleBookmark(): void {
    this.#bookmarkTimer = this.#ctx.env.clock.setTimeout(() => {
      this.#bookmarkTimer = undefined;
      if (this.#disposed) return;
      this.bookmark(this.#ctx.store.rv);
      if (!this.#disposed) this.#scheduleBookmark();
    }, this.#ctx.bookmarkIntervalMs);
  }

  /** Ends the watch cleanly (after what is queued). */
  close(): void {
    this.channel.end();
    this.#dispose();
  }

  /** Drops the connection: the client sees a network error after what is queued. */
  drop(): void {
    this.channel.fail(networkError("connection reset"));
    this.#dispose();
  }

  /** Cluster shutdown. */
  shutdown(): void {
    this.channel.shutdown();
    this.#dispose();
  }

  #dispose(): void {
    if (this.#disposed) return;
    this.#disposed = true;
    this.#state.listeners.delete(this);
    const clock = this.#ctx.env.clock;
    if (this.#bookmarkTimer !== undefined) clock.clearTimeout(this.#bookmarkTimer);
    if (this.#timeoutTimer !== undefined) clock.clearTimeout(this.#timeoutTimer);
    this.#bookmarkTimer = undefined;
    this.#timeoutTimer = undefined;
    this.#stopListening();
    this.#ctx.removeWatch(this);
  }
}

/** Validates a watch request, opens it and returns the streaming response. */
export function handleWatch(ctx: HandlerContext, req: WatchRequest): Response {
  const { view, query } = req;
  const state = view.state;
  const store = ctx.store;
  const rvText = query.get("resourceVersion") ?? "";
  const match = query.get("resourceVersionMatch") ?? "";
  const sendInitial = query.get("sendInitialEvents");
  const problems: FieldProblem[] = [];
  if (sendInitial !== null) {
    if (sendInitial !== "true" && sendInitial !== "false") {
      fail(badRequest(`invalid sendInitialEvents: ${describeValue(sendInitial)}`));
    }
    if (match !== "NotOlderThan") {
      problems.push(forbidden(
        "resourceVersionMatch",
        "sendInitialEvents requires setting resourceVersionMatch to NotOlderThan",
      ));
    }
    if (!ctx.watchListEnabled) {
      problems.push(forbidden(
        "sendInitialEvents",
        "sendInitialEvents is forbidden for watch unless the WatchList feature gate is enabled",
      ));
    }
  }
  if (match !== "") {
    if (sendInitial === null) {
      problems.push(forbidden(
        "resourceVersionMatch",
        "resourceVersionMatch is forbidden for watch unless sendInitialEvents is provided",
      ));
    }
    if (match !== "NotOlderThan") {
      problems.push(notSupported("resourceVersionMatch", match, ["NotOlderThan"]));
    }
  }
  if (problems.length > 0) invalidOptions(problems);
  const selectors = parseSelectors(view.info, query);
  const timeoutText = query.get("timeoutSeconds");
  let timeoutMs: number | undefined;
  if (timeoutText !== null && timeoutText !== "") {
    if (!/^[0-9]+$/.test(timeoutText)) {
      fail(badRequest(`invalid timeoutSeconds: ${describeValue(timeoutText)}`));
    }
    if (Number(timeoutText) > 0) timeoutMs = Number(timeoutText) * 1000;
  }
  const bookmarks = query.get("allowWatchBookmarks") === "true";
  const fromRv = notNewerThan(rvText, store.rv);
  const protocol = req.handshake === undefined ? undefined : checkHandshake(req.handshake);

  const watch = new Watch(ctx, req, selectors, bookmarks);
  if (sendInitial === "true") {
    // Streaming list: the state "not older than" the RV asked for is the current state.
    const snapshotRv = store.rv;
    watch.sendInitial(state.snapshotAt(snapshotRv)!);
    if (bookmarks && !ctx.omitInitialEventsEnd) {
      watch.bookmark(snapshotRv, true);
      if (ctx.takeCloseAfterInitialEventsEnd(state)) watch.close();
    }
    watch.start(timeoutMs);
  } else if (fromRv === undefined) {
    if (sendInitial === null) watch.sendInitial(state.snapshotAt(store.rv)!);
    watch.start(timeoutMs);
  } else {
    const events = state.eventsAfter(fromRv);
    if (events === undefined) {
      watch.error(status(410, "Expired", `too old resource version: ${fromRv} (${state.floor})`));
    } else {
      for (const e of events) watch.offer(e);
      watch.start(timeoutMs);
    }
  }
  if (req.handshake !== undefined) return acceptedHandshake(watch.channel.stream, protocol);
  return new Response(watch.channel.stream, {
    status: 200,
    headers: { ...COMMON_HEADERS, "Content-Type": "application/json" },
  });
}
