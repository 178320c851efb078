/**
 * Content negotiation of the simulated API server: plain JSON, the metadata-only
 * `PartialObjectMetadata(List)` transformation, or a server-side `Table` (`Accept:
 * application/json;as=Table;g=meta.k8s.io;v=v1`, what kubectl asks for by default; `v1beta1`
 * too), each where the real server offers it. The ranges of `Accept` are tried in order, and a
 * transformation the request cannot have is skipped in favour of the next range; nothing
 * acceptable is a 406, as on a real server.
 * @module
 */
import { fail, status } from "../../core/status.ts";

/** A server-side Table, in `meta.k8s.io/v1` or `v1beta1` (the same shape). */
export interface TableRendering {
  /** Discriminant. */
  readonly kind: "table";
  /** `meta.k8s.io/v1` or `meta.k8s.io/v1beta1`: the Table's (and its rows' metadata) apiVersion. */
  readonly apiVersion: string;
}

/** How to render objects: whole, as `PartialObjectMetadata`, or as a Table. */
export type Rendering = "object" | "metadata" | TableRendering;

/** What the request may be answered with besides plain JSON. */
export interface NegotiateOptions {
  /** Whether a Table may be answered (list, get and watch of a resource). @default false */
  readonly table?: boolean;
}

/** Whether `rendering` is a Table. */
export function isTable(rendering: Rendering | undefined): rendering is TableRendering {
  return typeof rendering === "object";
}

/** The rendering a request asks for with `Accept` (`list`: the LIST form is wanted). */
export function negotiate(
  accept: string | null,
  list: boolean,
  options?: NegotiateOptions,
): Rendering {
  if (accept === null || accept.trim() === "") return "object";
  const wanted = list ? "PartialObjectMetadataList" : "PartialObjectMetadata";
  for (const range of accept.split(",")) {
    const [type = "", ...params] = range.split(";").map((p) => p.trim());
    const media = type.toLowerCase();
    if (media !== "application/json" && media !== "application/*" && media !== "*/*") continue;
    const p = new Map<string, string>();
    for (const param of params) {
      const eq = param.indexOf("=");
      if (eq > 0) p.set(param.slice(0, eq).trim().toLowerCase(), param.slice(eq + 1).trim());
    }
    const as = p.get("as");
    if (as === undefined) return "object";
    if (p.get("g") !== "meta.k8s.io") continue;
    const version = p.get("v") ?? "v1";
    if (as === wanted && version === "v1") return "metadata";
    if (as === "Table" && options?.table && (version === "v1" || version === "v1beta1")) {
      return { kind: "table", apiVersion: `meta.k8s.io/${version}` };
    }
    // Another transformation, or one this request cannot have: try the next range.
  }
  const offered = [
    "application/json",
    `application/json;as=${wanted};g=meta.k8s.io;v=v1`,
    ...(options?.table ? ["application/json;as=Table;g=meta.k8s.io;v=v1"] : []),
  ];
  fail(status(
    406,
    "NotAcceptable",
    `only the following media types are accepted: ${offered.join(", ")}`,
  ));
}
