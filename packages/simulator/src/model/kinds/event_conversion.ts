/**
 * `events.k8s.io/v1` Events and core `v1` Events are one resource on the API server, stored
 * once and converted per request: `regarding` is `involvedObject`, `note` is `message`,
 * `reportingController` is `reportingComponent`, and the `deprecated*` fields are the core
 * `source`, `firstTimestamp`, `lastTimestamp` and `count`. The simulated cluster stores the
 * core form and converts with these functions.
 * @module
 */
import type { KubeObject } from "@kinformer/kinformer/client";
import { isRecord } from "@kinformer/kinformer/internal";
import { getOwn, setOwn } from "../../core/own_properties.ts";

/** events.k8s.io/v1 field name -> core/v1 field name, where they differ. */
const TO_CORE: Readonly<Record<string, string>> = Object.freeze({
  regarding: "involvedObject",
  note: "message",
  reportingController: "reportingComponent",
  deprecatedSource: "source",
  deprecatedFirstTimestamp: "firstTimestamp",
  deprecatedLastTimestamp: "lastTimestamp",
  deprecatedCount: "count",
});

const TO_EVENTS: Readonly<Record<string, string>> = Object.freeze(
  Object.fromEntries(Object.entries(TO_CORE).map(([k, v]) => [v, k])),
);

/** The fields of an events.k8s.io/v1 Event, in the order the API server writes them. */
const EVENTS_ORDER = [
  "metadata",
  "eventTime",
  "series",
  "reportingController",
  "reportingInstance",
  "action",
  "reason",
  "regarding",
  "related",
  "note",
  "type",
  "deprecatedSource",
  "deprecatedFirstTimestamp",
  "deprecatedLastTimestamp",
  "deprecatedCount",
];

/** The core/v1 field name of an events.k8s.io/v1 field (unchanged when they agree). */
export function coreEventField(name: string): string {
  return Object.hasOwn(TO_CORE, name) ? TO_CORE[name]! : name;
}

function renameFieldsV1(
  metadata: unknown,
  names: Readonly<Record<string, string>>,
  apiVersion: string,
): unknown {
  if (!isRecord(metadata) || !Array.isArray(metadata.managedFields)) return metadata;
  const managedFields = metadata.managedFields.map((entry: unknown) => {
    if (!isRecord(entry)) return entry;
    const fields = entry.fieldsV1;
    const out: Record<string, unknown> = { ...entry, apiVersion };
    if (isRecord(fields)) {
      const renamed: Record<string, unknown> = {};
      for (const key of Object.keys(fields)) {
        const bare = key.startsWith("f:") ? key.slice(2) : undefined;
        const name = bare !== undefined && Object.hasOwn(names, bare) ? `f:${names[bare]}` : key;
        setOwn(renamed, name, fields[key]);
      }
      out.fieldsV1 = renamed;
    }
    return out;
  });
  return { ...metadata, managedFields };
}

/** A stored core/v1 Event (list item form, no kind/apiVersion) as an events.k8s.io/v1 Event. */
export function toEventsV1(item: KubeObject): KubeObject {
  const src = item as unknown as Record<string, unknown>;
  const renamed: Record<string, unknown> = {};
  for (const key of Object.keys(src)) {
    if (key === "kind" || key === "apiVersion") continue;
    const name = Object.hasOwn(TO_EVENTS, key) ? TO_EVENTS[key]! : key;
    setOwn(renamed, name, src[key]);
  }
  renamed.metadata = renameFieldsV1(renamed.metadata, TO_EVENTS, "events.k8s.io/v1");
  const out: Record<string, unknown> = {};
  for (const key of EVENTS_ORDER) if (Object.hasOwn(renamed, key)) out[key] = renamed[key];
  for (const key of Object.keys(renamed)) {
    if (!Object.hasOwn(out, key)) setOwn(out, key, getOwn(renamed, key));
  }
  return out as unknown as KubeObject;
}

/**
 * An events.k8s.io/v1 Event, or a merge patch or apply configuration of one, in core/v1 terms:
 * fields renamed, `apiVersion`/`kind` (when present) those of core Events.
 */
export function toCoreEvent(obj: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(obj)) setOwn(out, coreEventField(key), obj[key]);
  if (Object.hasOwn(out, "apiVersion")) out.apiVersion = "v1";
  if (Object.hasOwn(out, "kind")) out.kind = "Event";
  if (Object.hasOwn(out, "metadata")) out.metadata = renameFieldsV1(out.metadata, TO_CORE, "v1");
  return out;
}
