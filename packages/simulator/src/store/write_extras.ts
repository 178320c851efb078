/**
 * What a write to the simulated cluster's store carries besides the object: who writes, a dry
 * run, and how field ownership (`metadata.managedFields`) is tracked.
 * @module
 */
import type { KubeObject } from "@kinformer/kinformer/client";

/** Who is writing: the HTTP API follows the server's rules, the control API may set status. */
export type Writer = "http" | "control";

/**
 * Computes `metadata.managedFields` of a write from the object before (undefined on create)
 * and the object about to be stored; an empty list removes the field.
 */
export type FieldTracker = (before: KubeObject | undefined, after: KubeObject) => unknown[];

/** What create and update share: a dry run stores nothing; `fields` tracks ownership. */
export interface WriteExtras {
  /** The namespace the request addressed, if any. */
  namespace?: string | undefined;
  /** Who writes. */
  writer: Writer;
  /** Take ownership of the input instead of copying it. */
  adopt?: boolean;
  /** Skip name and label validation (internal writers that only write valid objects). */
  trusted?: boolean;
  /** Answer what would be stored, and store nothing. */
  dryRun?: boolean | undefined;
  /** Ownership tracking (HTTP writes). */
  fields?: FieldTracker | undefined;
}

/** Sets (or, when nothing is owned, removes) `metadata.managedFields` of a write. */
export function setManagedFields(
  item: KubeObject,
  fields: FieldTracker | undefined,
  before?: KubeObject,
): void {
  if (fields === undefined) return;
  const entries = fields(before, item);
  if (entries.length === 0) delete item.metadata.managedFields;
  else (item.metadata as Record<string, unknown>).managedFields = entries;
}
