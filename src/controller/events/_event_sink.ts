/**
 * Writing recorded events to the API server: `events.k8s.io/v1` Events, or core `v1` Events on
 * servers without that group, created once and patched as their series grows. Internal.
 * @module
 */
import { KubeApiError } from "../../client/errors.ts";
import type { KubeClient } from "../../client/kube_client.ts";
import { coreEvents, eventsV1 } from "../../client/resource.ts";
import { formatMicroTime } from "../../util/micro_time.ts";
import type { EventEntry, ObjectReference } from "./_event_series.ts";

/** Which API the events go to. */
export type EventsApi = "events.k8s.io/v1" | "v1";

/** `metav1.Time`: RFC 3339 in whole seconds. */
function formatTime(ms: number): string {
  return new Date(Math.floor(ms / 1000) * 1000).toISOString().replace(/\.\d{3}Z$/, "Z");
}

function reference(ref: ObjectReference): Record<string, string> {
  const out: Record<string, string> = {
    apiVersion: ref.apiVersion,
    kind: ref.kind,
    name: ref.name,
  };
  if (ref.namespace) out.namespace = ref.namespace;
  if (ref.uid) out.uid = ref.uid;
  if (ref.resourceVersion) out.resourceVersion = ref.resourceVersion;
  if (ref.fieldPath) out.fieldPath = ref.fieldPath;
  return out;
}

/** The body that creates `e` through `api`. */
export function eventBody(e: EventEntry, api: EventsApi): Record<string, unknown> {
  const metadata = { name: e.name, namespace: e.namespace };
  if (api === "events.k8s.io/v1") {
    const body: Record<string, unknown> = {
      apiVersion: "events.k8s.io/v1",
      kind: "Event",
      metadata,
      eventTime: formatMicroTime(e.eventTime),
      reportingController: e.reportingController,
      reportingInstance: e.reportingInstance,
      action: e.action,
      reason: e.reason,
      regarding: reference(e.regarding),
      note: e.note,
      type: e.type,
    };
    if (e.related !== undefined) body.related = reference(e.related);
    if (e.series !== undefined) body.series = seriesOf(e);
    return body;
  }
  // core/v1 the way client-go's tools/record writes it: firstTimestamp, lastTimestamp, count.
  const body: Record<string, unknown> = {
    apiVersion: "v1",
    kind: "Event",
    metadata,
    involvedObject: reference(e.regarding),
    reason: e.reason,
    message: e.note,
    source: { component: e.reportingController },
    firstTimestamp: formatTime(e.eventTime),
    lastTimestamp: formatTime(e.series?.lastObservedTime ?? e.eventTime),
    count: e.series?.count ?? 1,
    type: e.type,
    action: e.action,
    reportingComponent: e.reportingController,
    reportingInstance: e.reportingInstance,
  };
  if (e.related !== undefined) body.related = reference(e.related);
  return body;
}

function seriesOf(e: EventEntry): Record<string, unknown> {
  return { count: e.series!.count, lastObservedTime: formatMicroTime(e.series!.lastObservedTime) };
}

/** The merge patch that brings the stored Event of `e` to its current series. */
function seriesPatch(e: EventEntry, api: EventsApi): Record<string, unknown> {
  // Only the series changes: the rest of an events.k8s.io/v1 Event is immutable.
  if (api === "events.k8s.io/v1") return { series: seriesOf(e) };
  return { count: e.series!.count, lastTimestamp: formatTime(e.series!.lastObservedTime) };
}

/**
 * How one write attempt ended: `ok`; `retry` (network, 5xx, 429, or a series created twice at
 * once); `give-up` (the server refused the event: it would refuse it again).
 */
export type WriteOutcome =
  | { readonly outcome: "ok" }
  | { readonly outcome: "retry" | "give-up"; readonly error: unknown };

function retriable(error: unknown): boolean {
  if (!(error instanceof KubeApiError)) return true;
  return error.code >= 500 || error.code === 429;
}

/**
 * Writes `e` once: a single event is created; a series is patched, and created when its Event
 * is gone (404), as client-go's `recordEvent` does.
 */
export async function writeEvent(
  client: KubeClient,
  api: EventsApi,
  e: EventEntry,
  signal: AbortSignal,
): Promise<WriteOutcome> {
  const resource = api === "events.k8s.io/v1" ? eventsV1 : coreEvents;
  const options = { namespace: e.namespace, signal };
  try {
    if (e.series !== undefined) {
      try {
        await client.patch(resource, e.name, seriesPatch(e, api), options);
        return { outcome: "ok" };
      } catch (error) {
        if (!(error instanceof KubeApiError && error.code === 404)) throw error;
      }
    }
    await client.create(resource, eventBody(e, api) as never, options);
    return { outcome: "ok" };
  } catch (error) {
    if (signal.aborted) return { outcome: "give-up", error };
    const alreadyExists = error instanceof KubeApiError && error.reason === "AlreadyExists";
    if (alreadyExists && e.series !== undefined) return { outcome: "retry", error };
    return { outcome: retriable(error) ? "retry" : "give-up", error };
  }
}

/**
 * Whether the server serves `events.k8s.io/v1` (its discovery document answers); `undefined`
 * when that could not be learned (try again later).
 */
export async function servesEventsV1(
  client: KubeClient,
  signal: AbortSignal,
): Promise<boolean | undefined> {
  try {
    const response = await client.request("/apis/events.k8s.io/v1", { signal });
    await response.body?.cancel();
    return true;
  } catch (error) {
    return error instanceof KubeApiError && error.code === 404 ? false : undefined;
  }
}
