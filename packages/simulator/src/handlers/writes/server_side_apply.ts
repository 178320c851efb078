/**
 * Server-side apply in the simulated cluster: merge an applied configuration into the live
 * object, record the applier's fields, remove the fields it applied before and leaves out
 * now, and refuse (409 Conflict, `FieldManagerConflict` causes) to change a field another
 * manager owns, unless forced.
 *
 * Every step walks the field sets beside the objects (see `field_set.ts`), so an apply takes
 * time linear in the sizes of the object, the configuration and the managed fields.
 * @module
 */
import { describeValue, isRecord } from "@kinformer/kinformer/internal";
import {
  ABSENT,
  type Beside,
  besideRoot,
  childValue,
  FieldNode,
  type FieldPath,
  FieldSet,
  related,
  sameFields,
  sameJson,
  step,
  union,
} from "./field_set.ts";
import {
  leafPaths,
  type ManagedEntry,
  sameOwner,
  type Scope,
  type Writer,
} from "./managed_fields.ts";
import { getOwn, setOwn } from "../../core/own_properties.ts";
import { fail, status } from "../../core/status.ts";
import { structuredCloneJson } from "../../store/object_store.ts";
import { spend } from "./work_meter.ts";

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

/**
 * Sets the applied fields (`node`'s members) of `config` into `target`, making (or replacing
 * non-map) intermediate maps.
 */
function overlay(target: Record<string, unknown>, config: unknown, node: FieldNode): void {
  for (const [key, child] of node.children) {
    spend();
    const value = childValue(config, key);
    if (child.member) {
      setOwn(target, key, structuredCloneJson(value));
      continue;
    }
    let next = getOwn(target, key);
    if (!isRecord(next)) {
      next = {};
      setOwn(target, key, next);
    }
    overlay(next as Record<string, unknown>, value, child);
  }
}

/**
 * Removes from `target` the fields of `previous` (the applier's old set) that neither the new
 * configuration nor another manager relates to, then each map it leaves empty below the top
 * level that no one owns as such. Returns whether anything under `target` went.
 */
function prune(
  target: unknown,
  previous: FieldNode,
  applied: Beside,
  others: Beside,
  depth: number,
): boolean {
  let removed = false;
  for (const [key, child] of previous.children) {
    spend();
    if (!isRecord(target) || !Object.hasOwn(target, key)) continue;
    const a = step(applied, key);
    const o = step(others, key);
    if (child.member && !related(a) && !related(o)) {
      delete target[key];
      removed = true;
      continue;
    }
    if (!prune(target[key], child, a, o, depth + 1)) continue;
    removed = true;
    const value = target[key];
    const owned = a.node?.member === true || o.node?.member === true;
    if (depth >= 1 && isRecord(value) && Object.keys(value).length === 0 && !owned) {
      delete target[key];
    }
  }
  return removed;
}

/** How the API server names a manager in a conflict. */
function describeManager(e: ManagedEntry): string {
  let text = describeValue(e.manager);
  if (e.subresource !== undefined) text += ` with subresource ${describeValue(e.subresource)}`;
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
      const list = byManager.get(name);
      if (list === undefined) byManager.set(name, [field(c.path)]);
      else list.push(field(c.path));
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
 * The fields of `owner` the apply relates to whose value it changes: walks the owner's set
 * beside the applied set and the live and merged objects.
 */
function conflictsOf(
  owner: ManagedEntry,
  applied: FieldSet,
  live: unknown,
  merged: unknown,
): FieldPath[] {
  const out: FieldPath[] = [];
  const path: string[] = [];
  const walk = (node: FieldNode, a: Beside, l: unknown, m: unknown): void => {
    spend();
    if (node.member && related(a) && !sameJson(l, m)) out.push([...path]);
    for (const [k, c] of node.children) {
      path.push(k);
      walk(c, step(a, k), childValue(l, k), childValue(m, k));
      path.pop();
    }
  };
  walk(owner.fields.root, besideRoot(applied), live ?? ABSENT, merged);
  return out;
}

/**
 * The fields of an entry that stay after an apply: those still in `merged`, and not `taken`
 * (by force) nor inside or around a taken one.
 */
function kept(fields: FieldSet, merged: unknown, taken: FieldSet): FieldSet {
  const none = taken.root.children.size === 0;
  const walk = (node: FieldNode, v: unknown, t: Beside): FieldNode | undefined => {
    spend();
    const out = new FieldNode();
    out.member = node.member && v !== ABSENT && (none || !related(t));
    for (const [k, c] of node.children) {
      const child = walk(c, childValue(v, k), step(t, k));
      if (child !== undefined) out.children.set(k, child);
    }
    return out.member || out.children.size > 0 ? out : undefined;
  };
  return new FieldSet(walk(fields.root, merged, besideRoot(taken)) ?? new FieldNode());
}

/**
 * Applies `config` to `live`. Throws a 409 `KubeApiError` when it would change a field another
 * manager owns (unless `force`, which takes those fields over).
 */
export function applyConfiguration(input: ApplyInput): ApplyResult {
  const { live, config, writer } = input;
  const applied = leafPaths(config, input.scope);
  const merged: Record<string, unknown> = live === undefined ? {} : structuredCloneJson(live);
  overlay(merged, config, applied.root);

  const others = input.entries.filter((e) => e.manager !== writer.manager);
  const previous = input.entries.find((e) => sameOwner(e, writer));
  const othersSet = union(others.map((e) => e.fields));
  // Fields this manager applied before and leaves out now go, unless someone else has them.
  if (previous !== undefined) {
    prune(merged, previous.fields.root, besideRoot(applied), besideRoot(othersSet), 0);
  }

  const conflicts: { owner: ManagedEntry; path: FieldPath }[] = [];
  for (const owner of others) {
    for (const path of conflictsOf(owner, applied, live, merged)) conflicts.push({ owner, path });
  }
  if (conflicts.length > 0 && !input.force) fail(conflictStatus(conflicts));

  // An apply that changes nothing keeps the entry as it was (its time too): a no-op stays one.
  const unchanged = previous !== undefined && sameJson(live, merged) &&
    sameFields(previous.fields, applied);
  const mine: ManagedEntry = unchanged ? previous : { ...writer, fields: applied };
  const entries: ManagedEntry[] = [];
  for (const e of input.entries) {
    if (e === previous) {
      entries.push(mine);
      continue;
    }
    const taken = new FieldSet();
    for (const c of conflicts) if (c.owner === e) taken.add(c.path);
    entries.push({ ...e, fields: kept(e.fields, merged, taken) });
  }
  if (previous === undefined) entries.push(mine);
  return { object: merged, entries };
}
