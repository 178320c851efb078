/**
 * Content negotiation of the simulated API server: plain JSON, or the metadata-only
 * `PartialObjectMetadata(List)` transformation (`Accept: application/json;as=...;g=meta.k8s.io;
 * v=v1`). Other transformations (`as=Table`, what kubectl asks for by default) are skipped in
 * favour of the next acceptable type; nothing acceptable is a 406, as on a real server.
 * @module
 */
import { fail, status } from "../serving/status.ts";

/** How to render objects: whole, or as `PartialObjectMetadata`. */
export type Rendering = "object" | "metadata";

/** The rendering a request asks for with `Accept` (`list`: the LIST form is wanted). */
export function negotiate(accept: string | null, list: boolean): Rendering {
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
    if (as === wanted && p.get("g") === "meta.k8s.io" && (p.get("v") ?? "v1") === "v1") {
      return "metadata";
    }
    // Another transformation (Table, another version): try the next range.
  }
  fail(status(
    406,
    "NotAcceptable",
    `only the following media types are accepted: application/json, application/json;as=${wanted};g=meta.k8s.io;v=v1`,
  ));
}
