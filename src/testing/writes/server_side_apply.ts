/**
 * Server-side apply in the simulated cluster: merge an applied configuration into the live
 * object, record the applier's fields, remove the fields it applied before and leaves out
 * now, and refuse (409 Conflict, `FieldManagerConflict` causes) to change a field another
 * manager owns, unless forced.
 * @module
 */
import { isRecord } from "../../util/values.ts";
import {
  ABSENT,
  type FieldPath,
  FieldSet,
  leafPaths,
  type ManagedEntry,
  related,
  sameJson,
  sameOwner,
  type Scope,
  valueAt,
  type Writer,
} from "./managed_fields.ts";
import { getOwn, setOwn } from "../store/own_properties.ts";
import { fail, status } from "../serving/status.ts";
import { structuredCloneJson } from "../store/object_store.ts";

/** What an apply starts from. */
export interface ApplyInput {
  /** The stored object (item form), or undefined when the apply creates it. */
  live: Record<string, unknown> | undefined;
  /** The applied configuration. */
  config: Record<string, unknown>;
  /** The live object's ownership. */
  entries: readonly ManagedEntry[];
  /** The applier (operation `Apply`). */
  writer: Writer;
  /** Take over conflicting fields instead of failing. */
  force: boolean;
  /** The part of the object this apply covers. */
  scope: Scope;
}

/** The merged object and its ownership. */
export interface ApplyResult {
  object: Record<string, unknown>;
  entries: ManagedEntry[];
}

/** Sets `value` at `path`, making (or replacing non-map) intermediate maps. */
function setAt(root: Record<string, unknown>, path: FieldPath, value: unknown): void {
  let node = root;
  for (const key of path.slice(0, -1)) {
    let child = getOwn(node, key);
    if (!isRecord(child)) {
      child = {};
      setOwn(node, key, child);
    }
    node = child as Record<string, unknown>;
  }
  setOwn(node, path[path.length - 1]!, structuredCloneJson(value));
}

/**
 * Deletes the field at `path`, then each parent map it leaves empty that `keep` does not
 * protect (top-level fields stay).
 */
function removeAt(
  root: Record<string, unknown>,
  path: FieldPath,
  keep: (path: FieldPath) => boolean,
): void {
  const parents: Record<string, unknown>[] = [];
  let node: unknown = root;
  for (const key of path.slice(0, -1)) {
    if (!isRecord(node) || !Object.hasOwn(node, key)) return;
    parents.push(node);
    node = node[key];
  }
  if (!isRecord(node)) return;
  delete node[path[path.length - 1]!];
  for (let depth = path.length - 1; depth > 1; depth--) {
    const parent = parents[depth - 1]!;
    const key = path[depth - 1]!;
    const child = parent[key];
    if (!isRecord(child) || Object.keys(child).length > 0 || keep(path.slice(0, depth))) return;
    delete parent[key];
  }
}

/** How the API server names a manager in a conflict. */
function describeManager(e: ManagedEntry): string {
  let text = JSON.stringify(e.manager);
  if (e.subresource !== undefined) text += ` with subresource ${JSON.stringify(e.subresource)}`;
  if (e.operation === "Update") {
    text += ` using ${e.apiVersion}`;
    if (e.time !== "") text += ` at ${e.time}`;
  }
  return text;
}

/** The 409 Conflict of an apply, worded and shaped as the API server's. */
function conflictStatus(conflicts: readonly { owner: ManagedEntry; path: FieldPath }[]) {
  const field = (path: FieldPath): string => path.map((k) => `.${k}`).join("");
  const causes = conflicts.map((c) => ({
    reason: "FieldManagerConflict",
    message: `conflict with ${describeManager(c.owner)}`,
    field: field(c.path),
  }));
  let message: string;
  if (conflicts.length === 1) {
    const c = conflicts[0]!;
    message = `Apply failed with 1 conflict: conflict with ${describeManager(c.owner)}: ${
      field(c.path)
    }`;
  } else {
    const byManager = new Map<string, string[]>();
    for (const c of conflicts) {
      const name = describeManager(c.owner);
      byManager.set(name, [...(byManager.get(name) ?? []), field(c.path)]);
    }
    const lines: string[] = [];
    for (const name of [...byManager.keys()].sort()) {
      lines.push(`conflicts with ${name}:`, ...byManager.get(name)!.map((f) => `- ${f}`));
    }
    message = `Apply failed with ${conflicts.length} conflicts: ${lines.join("\n")}`;
  }
  return status(409, "Conflict", message, { causes });
}

/**
 * Applies `config` to `live`. Throws a 409 `KubeApiError` when it would change a field another
 * manager owns (unless `force`, which takes those fields over).
 */
export function applyConfiguration(input: ApplyInput): ApplyResult {
  const { live, config, writer } = input;
  const applied = leafPaths(config, input.scope);
  const merged: Record<string, unknown> = live === undefined ? {} : structuredCloneJson(live);
  for (const p of applied) setAt(merged, p, valueAt(config, p));

  const others = input.entries.filter((e) => e.manager !== writer.manager);
  const previous = input.entries.find((e) => sameOwner(e, writer));
  // Fields this manager applied before and leaves out now go, unless someone else has them.
  for (const p of previous?.fields ?? []) {
    const stillWanted = [...applied].some((a) => related(a, p));
    const ownedElsewhere = others.some((e) => [...e.fields].some((q) => related(q, p)));
    if (stillWanted || ownedElsewhere) continue;
    removeAt(
      merged,
      p,
      (parent) => others.some((e) => e.fields.has(parent)) || applied.has(parent),
    );
  }

  const conflicts: { owner: ManagedEntry; path: FieldPath }[] = [];
  for (const owner of others) {
    for (const q of owner.fields) {
      if (![...applied].some((p) => related(p, q))) continue;
      if (!sameJson(valueAt(live, q), valueAt(merged, q))) conflicts.push({ owner, path: q });
    }
  }
  if (conflicts.length > 0 && !input.force) fail(conflictStatus(conflicts));

  // An apply that changes nothing keeps the entry as it was (its time too): a no-op stays one.
  const unchanged = previous !== undefined && sameJson(live, merged) &&
    previous.fields.size === applied.size && [...applied].every((p) => previous.fields.has(p));
  const mine: ManagedEntry = unchanged ? previous : { ...writer, fields: new FieldSet(applied) };
  const entries: ManagedEntry[] = [];
  for (const e of input.entries) {
    if (e === previous) {
      entries.push(mine);
      continue;
    }
    const taken = conflicts.filter((c) => c.owner === e).map((c) => c.path);
    entries.push({
      ...e,
      fields: e.fields.without((q) =>
        valueAt(merged, q) === ABSENT || taken.some((t) => related(t, q))
      ),
    });
  }
  if (previous === undefined) entries.push(mine);
  return { object: merged, entries };
}
