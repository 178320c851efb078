/**
 * JSON merge patch (RFC 7386) for the simulated cluster's PATCH
 * (`application/merge-patch+json`). Strategic merge patches are applied as merge patches too
 * (lists are replaced, not merged by key): close enough for metadata, labels, annotations and
 * status patches.
 *
 * Patches are hostile input: keys are read and written as own data properties, so a
 * `__proto__` key is data, never a prototype.
 * @module
 */
import { isRecord } from "../../util/values.ts";
import { getOwn, setOwn } from "../store/own_properties.ts";

/** Applies a JSON merge patch to `target` (not mutated) and returns the result. */
export function mergePatch(target: unknown, patch: unknown): unknown {
  if (!isRecord(patch)) return patch;
  const out: Record<string, unknown> = isRecord(target) ? { ...target } : {};
  for (const [k, v] of Object.entries(patch)) {
    if (v === null) delete out[k];
    else setOwn(out, k, mergePatch(getOwn(out, k), v));
  }
  return out;
}
