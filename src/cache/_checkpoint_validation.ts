/**
 * Resuming from a checkpoint, which is input: everything in it is checked against the informer
 * it is restored into before any of it reaches the cache. Internal.
 * @module
 */
import { FieldSelector, parseFieldSelector } from "../client/field_selector.ts";
import { parseLabelSelector } from "../client/label_selector.ts";
import type { LabelSelector } from "../client/label_selector.ts";
import { isMetadataOnly } from "../client/metadata_only.ts";
import type { KubeObject, KubeObjectLike } from "../client/types.ts";
import { describeKind, isRecord } from "../util/values.ts";
import {
  checkpointHeaderProblem,
  type InformerCheckpoint,
  type InformerSelection,
  typeMetaOf,
} from "./checkpoint.ts";
import { CheckpointError, type CheckpointProblem } from "./checkpoint_error.ts";

/** Objects a checkpoint may hold when `checkpointLimits.maxObjects` is not given. */
export const DEFAULT_CHECKPOINT_MAX_OBJECTS = 500_000;
/**
 * Bytes (of the checkpoint as JSON, estimated while checking it) when `checkpointLimits.maxBytes`
 * is not given: 512 MiB, about the longest string a JavaScript engine holds, so about the
 * largest checkpoint `JSON.stringify` can write.
 */
export const DEFAULT_CHECKPOINT_MAX_BYTES = 512 * 1024 * 1024;

/** The top-level fields an object without `apiVersion` and `kind` may have in a checkpoint. */
const UNTYPED_FIELDS: ReadonlySet<string> = new Set(["metadata", "spec", "status"]);

/** Keys that reach an object's prototype when an object is built from JSON naively. */
const FORBIDDEN_KEYS: ReadonlySet<string> = new Set(["__proto__", "constructor", "prototype"]);

/** What an informer resumes from: a resource version and objects, or a refusal. */
export interface Resume<T> {
  /** Where to watch from; undefined when there is no checkpoint or it was refused. */
  resourceVersion: string | undefined;
  /** The objects to seed the cache with, when the checkpoint has them and was accepted. */
  objects: T[] | undefined;
  /** Why the checkpoint was refused, if it was. */
  refused: CheckpointError | undefined;
}

/** What a resume is checked against: the informer's options. */
export interface ResumeOptions<T extends KubeObjectLike> extends InformerSelection {
  resumeFrom?: InformerCheckpoint<T> | undefined;
  checkpointLimits?: { maxObjects?: number | undefined; maxBytes?: number | undefined } | undefined;
}

const NOTHING: Resume<never> = {
  resourceVersion: undefined,
  objects: undefined,
  refused: undefined,
};

/**
 * The resume an informer with options `o` makes of `o.resumeFrom`, which is input (read back
 * from storage): a value that is not a kinformer checkpoint, one taken for another resource,
 * namespace or selection, and contents that fail the checks (see {@linkcode CheckpointError})
 * are refused, and the informer lists instead.
 */
export function resumeFromCheckpoint<T extends KubeObjectLike>(o: ResumeOptions<T>): Resume<T> {
  const cp = o.resumeFrom;
  if (cp === undefined) return NOTHING;
  const header = checkpointHeaderProblem(cp, o);
  if (header !== undefined) {
    return { resourceVersion: undefined, objects: undefined, refused: new CheckpointError(header) };
  }
  const refused = checkContents(cp, o);
  if (refused !== undefined) return { resourceVersion: undefined, objects: undefined, refused };
  return { resourceVersion: cp.resourceVersion, objects: cp.objects, refused: undefined };
}

/** A problem found in one object. */
interface Finding {
  problem: CheckpointProblem;
  detail: string;
  path?: string;
}

/** Checks everything in `cp` against the informer; the first problem found, or undefined. */
function checkContents<T extends KubeObjectLike>(
  cp: InformerCheckpoint<T>,
  o: ResumeOptions<T>,
): CheckpointError | undefined {
  const maxObjects = o.checkpointLimits?.maxObjects ?? DEFAULT_CHECKPOINT_MAX_OBJECTS;
  const maxBytes = o.checkpointLimits?.maxBytes ?? DEFAULT_CHECKPOINT_MAX_BYTES;
  if (cp.resourceVersion === "") {
    return new CheckpointError({ problem: "malformed", detail: "has an empty resourceVersion" });
  }
  let bytes = 128 + cp.resourceVersion.length + cp.resource.length + cp.namespace.length +
    cp.labelSelector.length + cp.fieldSelector.length;
  const tooLarge = (): CheckpointError =>
    new CheckpointError({
      problem: "too-large",
      detail: `is larger than checkpointLimits.maxBytes (${maxBytes} bytes as JSON)`,
    });
  if (bytes > maxBytes) return tooLarge();
  const objects: unknown = cp.objects;
  if (objects === undefined) return undefined;
  if (!Array.isArray(objects)) {
    return new CheckpointError({
      problem: "malformed",
      detail: `has objects that are ${describeKind(objects)}, not an array`,
    });
  }
  if (objects.length > maxObjects) {
    return new CheckpointError({
      problem: "too-large",
      detail:
        `has ${objects.length} objects, more than checkpointLimits.maxObjects (${maxObjects})`,
    });
  }
  const selection = compileSelection(o);
  if (!(selection instanceof Selection)) return new CheckpointError(selection);
  const keys = new Set<string>();
  for (let index = 0; index < objects.length; index++) {
    const object: unknown = objects[index];
    const walked = walk(object, maxBytes - bytes);
    if (walked === undefined) return tooLarge();
    if (typeof walked !== "number") return new CheckpointError({ ...walked, index });
    bytes += walked;
    const finding = selection.check(object);
    if (finding !== undefined) return new CheckpointError({ ...finding, index });
    const meta = (object as KubeObject).metadata;
    const key = meta.namespace ? `${meta.namespace}/${meta.name}` : meta.name!;
    if (keys.has(key)) {
      return new CheckpointError({
        problem: "duplicate",
        detail: "has the cache key of an earlier object",
        index,
        path: "metadata.name",
      });
    }
    keys.add(key);
  }
  return undefined;
}

/** One container met while walking an object, and how it was reached (for the path). */
interface Step {
  readonly value: object;
  readonly key: string;
  readonly parent: Step | undefined;
}

/** `a.b[2].c` for a step. */
function pathOf(step: Step | undefined, last?: string): string {
  const parts: string[] = last === undefined ? [] : [last];
  for (let s = step; s !== undefined && s.parent !== undefined; s = s.parent) parts.push(s.key);
  let path = "";
  for (let i = parts.length - 1; i >= 0; i--) {
    const part = parts[i]!;
    path += part.startsWith("[") ? part : path === "" ? part : `.${part}`;
  }
  return path;
}

/**
 * Walks every value of `object` with an explicit stack (any depth): its size as JSON
 * (estimated), or a forbidden key or a value JSON cannot hold; undefined once it passes
 * `budget` bytes. A container met twice (shared, or a cycle) is walked once.
 */
function walk(object: unknown, budget: number): number | Finding | undefined {
  if (typeof object !== "object" || object === null) return 0; // checked as an object later
  let bytes = 0;
  const seen = new Set<object>();
  const stack: Step[] = [{ value: object, key: "", parent: undefined }];
  while (stack.length > 0) {
    const step = stack.pop()!;
    if (seen.has(step.value)) continue;
    seen.add(step.value);
    const array = Array.isArray(step.value);
    const entries = array ? (step.value as unknown[]) : Object.keys(step.value);
    bytes += 2 + entries.length;
    for (let i = 0; i < entries.length; i++) {
      let key: string;
      let value: unknown;
      if (array) {
        key = `[${i}]`;
        value = (step.value as unknown[])[i];
      } else {
        key = entries[i] as string;
        if (FORBIDDEN_KEYS.has(key)) {
          return {
            problem: "forbidden-key",
            detail: `has a key named ${key}`,
            path: pathOf(step, key),
          };
        }
        bytes += key.length + 3;
        value = (step.value as Record<string, unknown>)[key];
      }
      switch (typeof value) {
        case "string":
          bytes += value.length + 2;
          break;
        case "number":
        case "boolean":
        case "undefined":
          bytes += 8;
          break;
        case "object":
          if (value === null) bytes += 4;
          else stack.push({ value, key, parent: step });
          break;
        default:
          return {
            problem: "malformed",
            detail: `holds ${describeKind(value)}, which JSON cannot hold`,
            path: pathOf(step, key),
          };
      }
    }
    if (bytes > budget) return undefined;
  }
  return bytes;
}

/** What belongs to an informer: its resource, namespace and selectors, ready to check. */
class Selection {
  readonly #o: InformerSelection;
  readonly #apiVersion: string;
  readonly #kind: string;
  readonly #labels: LabelSelector | undefined;
  readonly #fields: FieldSelector | undefined;

  constructor(
    o: InformerSelection,
    labels: LabelSelector | undefined,
    fields: FieldSelector | undefined,
  ) {
    const { apiVersion, kind } = typeMetaOf(o.resource);
    this.#o = o;
    this.#apiVersion = apiVersion;
    this.#kind = kind;
    this.#labels = labels;
    this.#fields = fields;
  }

  /** The first problem of `object` (already walked: no forbidden key), or undefined. */
  check(object: unknown): Finding | undefined {
    if (!isRecord(object)) {
      return { problem: "malformed", detail: `is ${describeKind(object)}, not a JSON object` };
    }
    const { apiVersion, kind } = object;
    if (apiVersion === undefined && kind === undefined) {
      // As a LIST's items come (checkpoint() writes both): such an object cannot say what it
      // is, so it passes only with the fields most kinds have (metadata, spec, status); a
      // Secret's data and type in a pods checkpoint are refused.
      for (const key in object) {
        if (Object.hasOwn(object, key) && !UNTYPED_FIELDS.has(key)) {
          return {
            problem: "resource",
            detail: "has no apiVersion and kind, and a top-level field other than metadata, " +
              "spec and status",
            path: key,
          };
        }
      }
    } else if (apiVersion !== this.#apiVersion) {
      return {
        problem: "resource",
        detail: apiVersion === undefined
          ? "has a kind but no apiVersion"
          : "has another apiVersion than the informer's resource",
        path: "apiVersion",
      };
    } else if (kind !== this.#kind) {
      return {
        problem: "resource",
        detail: kind === undefined
          ? "has an apiVersion but no kind"
          : "has another kind than the informer's resource",
        path: "kind",
      };
    }
    const meta = object.metadata;
    if (!isRecord(meta)) {
      return {
        problem: "metadata",
        detail: `has metadata that is ${describeKind(meta)}`,
        path: "metadata",
      };
    }
    for (const field of ["name", "uid", "resourceVersion"] as const) {
      const value = meta[field];
      if (typeof value !== "string" || value === "") {
        return {
          problem: "metadata",
          detail: `has a metadata.${field} that is ${
            value === "" ? "empty" : describeKind(value)
          }, not a string`,
          path: `metadata.${field}`,
        };
      }
    }
    const namespace = meta.namespace;
    if (namespace !== undefined && typeof namespace !== "string") {
      return {
        problem: "metadata",
        detail: `has a namespace that is ${describeKind(namespace)}`,
        path: "metadata.namespace",
      };
    }
    const wanted = this.#o.namespace ?? "";
    if (this.#o.resource.namespaced) {
      if (!namespace) {
        return {
          problem: "namespace",
          detail: "has no namespace, but the resource is namespaced",
          path: "metadata.namespace",
        };
      }
      if (wanted !== "" && namespace !== wanted) {
        return {
          problem: "namespace",
          detail: "is in another namespace than the informer's",
          path: "metadata.namespace",
        };
      }
    } else if (namespace) {
      return {
        problem: "namespace",
        detail: "has a namespace, but the resource is cluster-scoped",
        path: "metadata.namespace",
      };
    }
    const labels = meta.labels;
    if (
      labels !== undefined &&
      (!isRecord(labels) || !Object.values(labels).every((v) => typeof v === "string"))
    ) {
      return {
        problem: "metadata",
        detail: "has labels that are not a map of strings",
        path: "metadata.labels",
      };
    }
    if (
      this.#labels !== undefined &&
      !this.#labels.matches(labels as Record<string, string> | undefined)
    ) {
      return {
        problem: "selector",
        detail: "is not selected by the informer's labelSelector",
        path: "metadata.labels",
      };
    }
    if (this.#fields !== undefined && !this.#fields.matches(object as KubeObject)) {
      return { problem: "selector", detail: "is not selected by the informer's fieldSelector" };
    }
    return undefined;
  }
}

/**
 * The informer's selection compiled, or why its selectors cannot check a checkpoint. For a
 * metadata-only informer, only field requirements on `metadata.*` are checked (its objects
 * hold nothing else).
 */
function compileSelection(o: InformerSelection): Selection | CheckpointErrorOptionsLike {
  let labels: LabelSelector | undefined;
  let fields: FieldSelector | undefined;
  try {
    if (o.labelSelector) labels = parseLabelSelector(o.labelSelector);
    if (o.fieldSelector) {
      fields = parseFieldSelector(o.fieldSelector);
      if (isMetadataOnly(o.resource)) {
        fields = new FieldSelector(
          fields.requirements.filter((r) => r.path.startsWith("metadata.")),
        );
      }
    }
  } catch {
    return {
      problem: "selector",
      detail: "cannot be checked: the informer's own selector does not parse",
    };
  }
  return new Selection(o, labels, fields);
}

/** The options of a {@linkcode CheckpointError} not about one object. */
interface CheckpointErrorOptionsLike {
  problem: CheckpointProblem;
  detail: string;
}
