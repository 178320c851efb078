/**
 * The JSON of server-side Tables (`meta.k8s.io/v1` `Table`), as kube-apiserver writes them for
 * lists, single objects and watch events: `metadata` (the list's or the object's
 * resourceVersion), `columnDefinitions` (`null` on every watch event after the first), and
 * `rows` of `cells` plus the row's `object`, as `includeObject` asks: `Metadata` (the default, a
 * `PartialObjectMetadata`), `Object` (the whole object) or `None` (`null`).
 * @module
 */
import type { KubeObject } from "@kinformer/kinformer/client";
import { badRequest, fail } from "../../core/status.ts";
import type { TableConvertor } from "./table_convertor.ts";
import { describeValue } from "@kinformer/kinformer/internal";

/** What a Table request asks for. */
export interface TableRequest {
  /** `meta.k8s.io/v1` or `meta.k8s.io/v1beta1`. */
  readonly apiVersion: string;
  /** What each row carries as its `object`. */
  readonly includeObject: "None" | "Metadata" | "Object";
}

/** The Table options of a request (`includeObject`; anything else there is a 400). */
export function tableRequest(apiVersion: string, query: URLSearchParams): TableRequest {
  const include = query.get("includeObject") ?? "";
  if (include !== "" && include !== "None" && include !== "Metadata" && include !== "Object") {
    fail(badRequest(
      `Unable to convert to Table as requested: includeObject: Invalid value: ${
        describeValue(include)
      }: must be 'Metadata', 'Object', 'None', or empty`,
    ));
  }
  return { apiVersion, includeObject: include === "" ? "Metadata" : include };
}

const COLUMNS = new WeakMap<TableConvertor, string>();

/** The `columnDefinitions` JSON of a convertor (made once). */
export function columnsJson(convertor: TableConvertor): string {
  let json = COLUMNS.get(convertor);
  if (json === undefined) {
    json = JSON.stringify(convertor.columns.map((c) => ({
      name: c.name,
      type: c.type,
      format: c.format,
      description: c.description,
      priority: c.priority,
    })));
    COLUMNS.set(convertor, json);
  }
  return json;
}

/** What a row needs of one object. */
export interface RowSource {
  /** The stored object (printed; the printers read the stored form). */
  readonly stored: KubeObject;
  /** The whole served object's JSON (for `includeObject=Object`). */
  served(): string;
  /** Its `PartialObjectMetadata` JSON in `meta.k8s.io/v1` (reused when the Table is v1). */
  metadataV1(): string;
}

/** The JSON of one row. */
export function rowJson(
  convertor: TableConvertor,
  source: RowSource,
  request: TableRequest,
  now: number,
): string {
  const printed = convertor.row(source.stored, now);
  let object: string;
  switch (request.includeObject) {
    case "None":
      object = "null";
      break;
    case "Object":
      object = source.served();
      break;
    case "Metadata":
      object = request.apiVersion === "meta.k8s.io/v1"
        ? source.metadataV1()
        : `{"kind":"PartialObjectMetadata","apiVersion":${
          JSON.stringify(request.apiVersion)
        },"metadata":${JSON.stringify(source.stored.metadata ?? {})}}`;
  }
  const conditions = printed.conditions === undefined
    ? ""
    : `,"conditions":${JSON.stringify(printed.conditions)}`;
  return `{"cells":${JSON.stringify(printed.cells)}${conditions},"object":${object}}`;
}

/** The start of a Table's JSON, up to and including `"rows":[`. */
export function tableHead(
  request: TableRequest,
  metadataJson: string,
  columns: string | null,
): string {
  return `{"kind":"Table","apiVersion":${
    JSON.stringify(request.apiVersion)
  },"metadata":${metadataJson},"columnDefinitions":${columns ?? "null"},"rows":[`;
}
