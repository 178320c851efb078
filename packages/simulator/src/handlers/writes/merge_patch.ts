/**
 * JSON merge patch (RFC 7386) for the simulated cluster's PATCH
 * (`application/merge-patch+json`) and its control API's `patch`.
 *
 * Patches are hostile input: keys are read and written as own data properties, so a
 * `__proto__` key is data, never a prototype.
 * @module
 */
import { isRecord } from "@kinformer/kinformer/internal";
import { getOwn, setOwn } from "../../core/own_properties.ts";
import { spend } from "./work_meter.ts";

/** Applies a JSON merge patch to `target` (not mutated) and returns the result. */
export function mergePatch(target: unknown, patch: unknown): unknown {
  spend();
  if (!isRecord(patch)) return patch;
  const out: Record<string, unknown> = isRecord(target) ? { ...target } : {};
  for (const [k, v] of Object.entries(patch)) {
    spend();
    if (v === null) delete out[k];
    else setOwn(out, k, mergePatch(getOwn(out, k), v));
  }
  return out;
}
