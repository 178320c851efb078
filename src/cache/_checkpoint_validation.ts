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
import { isPathSegmentName } from "../util/dns_names.ts";
import { describeKind, isRecord } from "../util/values.ts";
import {
  checkpointHeaderProblem,
  type InformerCheckpoint,
  type InformerSelection,
  typeMetaOf,
} from "./checkpoint.ts";
import { CheckpointError, type CheckpointProblem } from "./checkpoint_error.ts";
import { keyOf } from "./object_key.ts";

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

const SPEC_STATUS = ["spec", "status"];
const CORE_EVENT = [
  "involvedObject",
  "reason",
  "message",
  "source",
  "firstTimestamp",
  "lastTimestamp",
  "count",
  "type",
  "eventTime",
  "series",
  "action",
  "related",
  "reportingComponent",
  "reportingInstance",
];
const EVENT_V1 = [
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

/**
 * The top-level fields (besides `apiVersion`, `kind` and `metadata`) the objects of the built-in
 * kinds have, by `apiVersion/kind`: an object of one of these kinds with another top-level field
 * (a Secret's `data` and `type` on a Pod) is refused. Custom resources, whose fields the informer
 * cannot know, are not checked here. tests/cache/checkpoint_builtin_fields_test.ts keeps this
 * table and the simulated cluster's OpenAPI in step.
 */
export const BUILTIN_FIELDS: ReadonlyMap<string, ReadonlySet<string>> = new Map(
  ([
    ["v1/Pod", SPEC_STATUS],
    ["v1/Service", SPEC_STATUS],
    ["v1/Namespace", SPEC_STATUS],
    ["v1/Node", SPEC_STATUS],
    ["v1/PersistentVolume", SPEC_STATUS],
    ["v1/PersistentVolumeClaim", SPEC_STATUS],
    ["v1/ReplicationController", SPEC_STATUS],
    ["apps/v1/Deployment", SPEC_STATUS],
    ["apps/v1/ReplicaSet", SPEC_STATUS],
    ["apps/v1/StatefulSet", SPEC_STATUS],
    ["apps/v1/DaemonSet", SPEC_STATUS],
    ["batch/v1/Job", SPEC_STATUS],
    ["batch/v1/CronJob", SPEC_STATUS],
    ["networking.k8s.io/v1/Ingress", SPEC_STATUS],
    ["apiextensions.k8s.io/v1/CustomResourceDefinition", SPEC_STATUS],
    ["coordination.k8s.io/v1/Lease", ["spec"]],
    ["v1/ConfigMap", ["data", "binaryData", "immutable"]],
    ["v1/Secret", ["data", "stringData", "type", "immutable"]],
    ["v1/ServiceAccount", ["secrets", "imagePullSecrets", "automountServiceAccountToken"]],
    ["v1/Endpoints", ["subsets"]],
    ["v1/Event", CORE_EVENT],
    ["events.k8s.io/v1/Event", EVENT_V1],
    ["meta.k8s.io/v1/PartialObjectMetadata", []],
  ] as const).map(([k, fields]) => [k, new Set(["apiVersion", "kind", "metadata", ...fields])]),
);

/** The longest `metadata.name` (a DNS subdomain) and `metadata.namespace` (a DNS label). */
const MAX_NAME_LENGTH = 253;
const MAX_NAMESPACE_LENGTH = 63;

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
  /** The informer's transform, if it has one: its objects need not look like the kind's. */
  transform?: unknown;
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
  const bytes = 128 + cp.resourceVersion.length + cp.resource.length + cp.namespace.length +
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
  const walker = new JsonWalker(maxBytes - bytes);
  const keys = new Set<string>();
  for (let index = 0; index < objects.length; index++) {
    const object: unknown = objects[index];
    // Not an object: Selection.check says so.
    if (typeof object === "object" && object !== null) {
      const found = walker.walk(object);
      if (found === "too-large") return tooLarge();
      if (found !== undefined) return new CheckpointError({ ...found, index });
    }
    const finding = selection.check(object);
    if (finding !== undefined) return new CheckpointError({ ...finding, index });
    const meta = (object as KubeObject).metadata;
    const key = keyOf(meta.namespace, meta.name!);
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

/**
 * The most levels of objects and arrays an object in a checkpoint may nest, counting itself as
 * one. kube-apiserver's decoder accepts up to 10,000; a checkpoint holding anything deeper than
 * this is refused (the informer lists instead), which keeps the check a plain recursion that
 * fits every runtime's stack, and finds a cycle (which JSON cannot hold).
 */
const CHECKPOINT_MAX_DEPTH = 1_000;

/**
 * One linear pass over an object and everything in it: it sums the object's size as JSON
 * (estimated: what `JSON.stringify` would write, a container reached twice counted twice) and
 * finds a forbidden key, a value JSON cannot hold, or a nesting deeper than
 * {@linkcode CHECKPOINT_MAX_DEPTH}, with the path to it. It allocates nothing unless it finds a
 * problem (the path is gathered while the recursion unwinds), so it costs a fraction of the
 * `JSON.parse` that made the checkpoint; it stops once the size passes the budget, so a
 * container shared many times (2^40 leaves as JSON in 41 objects) ends it early.
 */
class JsonWalker {
  /** Bytes counted so far, over every object walked. */
  #bytes = 0;
  readonly #budget: number;
  /** The problem found; undefined after a walk that stopped means the budget ran out. */
  #finding: Finding | undefined;
  /** The path to the problem, innermost key first. */
  readonly #route: (string | number)[] = [];

  constructor(budget: number) {
    this.#budget = budget;
  }

  /** Walks `object`: undefined, a problem in it, or "too-large" once the budget ran out. */
  walk(object: object): Finding | "too-large" | undefined {
    if (!this.#container(object, 1)) return this.#bytes > this.#budget ? "too-large" : undefined;
    // A problem ends the check: the walker is not used again.
    const finding = this.#finding;
    if (finding === undefined) return "too-large";
    let path = "";
    for (let i = this.#route.length - 1; i >= 0; i--) {
      const part = this.#route[i]!;
      path += typeof part === "number" ? `[${part}]` : path === "" ? part : `.${part}`;
    }
    return path === "" ? finding : { ...finding, path };
  }

  /** True when it found a problem or ran out of budget. */
  #container(container: object, depth: number): boolean {
    if (this.#bytes > this.#budget) return true;
    if (depth > CHECKPOINT_MAX_DEPTH) {
      this.#finding = {
        problem: "malformed",
        detail: `nests deeper than ${CHECKPOINT_MAX_DEPTH} levels (or holds a cycle)`,
      };
      return true;
    }
    this.#bytes += 2;
    if (Array.isArray(container)) {
      const n = container.length;
      this.#bytes += n;
      for (let i = 0; i < n; i++) {
        if (this.#value(container[i], depth)) {
          this.#route.push(i);
          return true;
        }
      }
      return false;
    }
    // for-in reads the object's enumeration cache without allocating (Object.keys allocates);
    // an inherited enumerable key is walked too, which only makes the estimate larger.
    for (const key in container) {
      if (key === "__proto__" || key === "constructor" || key === "prototype") {
        this.#finding = { problem: "forbidden-key", detail: `has a key named ${key}` };
        this.#route.push(key);
        return true;
      }
      this.#bytes += key.length + 4;
      if (this.#value((container as Record<string, unknown>)[key], depth)) {
        this.#route.push(key);
        return true;
      }
    }
    return false;
  }

  /** Counts one value; true when it found a problem or ran out of budget. */
  #value(value: unknown, depth: number): boolean {
    switch (typeof value) {
      case "string":
        this.#bytes += value.length + 2;
        return false;
      case "number":
      case "boolean":
      case "undefined":
        this.#bytes += 8;
        return false;
      case "object":
        if (value !== null) return this.#container(value, depth + 1);
        this.#bytes += 4;
        return false;
    }
    this.#finding = {
      problem: "malformed",
      detail: `holds ${describeKind(value)}, which JSON cannot hold`,
    };
    return true;
  }
}

/** The metadata fields every cached object has, as non-empty strings. */
const REQUIRED_METADATA = ["name", "uid", "resourceVersion"] as const;

/**
 * Why `value` cannot be a name the API server gave: a path segment kube-apiserver
 * refuses (`.`, `..`, a `/` or `%`), or longer than `max`.
 */
function nameProblem(value: string, max: number): string | undefined {
  if (!isPathSegmentName(value)) return "the API server refuses (., .., or holding / or %)";
  if (value.length > max) return `is longer than ${max} characters`;
  return undefined;
}

/** Metadata fields that, when present, must have these shapes. */
const METADATA_SHAPES: readonly (readonly [string, (value: unknown) => boolean, string])[] = [
  ["labels", isStringMap, "a map of strings"],
  ["annotations", isStringMap, "a map of strings"],
  ["finalizers", (v) => Array.isArray(v) && v.every((f) => typeof f === "string"), "strings"],
  ["ownerReferences", (v) => Array.isArray(v) && v.every(isRecord), "a list of objects"],
  ["managedFields", (v) => Array.isArray(v) && v.every(isRecord), "a list of objects"],
];

/** Whether `value` is an object whose own values are all strings (labels, annotations). */
function isStringMap(value: unknown): boolean {
  if (!isRecord(value)) return false;
  for (const key of Object.keys(value)) if (typeof value[key] !== "string") return false;
  return true;
}

/** What belongs to an informer: its resource, namespace and selectors, ready to check. */
class Selection {
  readonly #o: InformerSelection;
  readonly #apiVersion: string;
  readonly #kind: string;
  /** The top-level fields of the informer's kind, when it is a built-in one and untransformed. */
  readonly #fieldsOfKind: ReadonlySet<string> | undefined;
  readonly #labels: LabelSelector | undefined;
  readonly #fields: FieldSelector | undefined;

  constructor(
    o: InformerSelection & { transform?: unknown },
    labels: LabelSelector | undefined,
    fields: FieldSelector | undefined,
  ) {
    const { apiVersion, kind } = typeMetaOf(o.resource);
    this.#o = o;
    this.#apiVersion = apiVersion;
    this.#kind = kind;
    // A transform shapes the cached objects (and so a checkpoint's) as it likes: the kind's own
    // fields say nothing then.
    this.#fieldsOfKind = o.transform === undefined
      ? BUILTIN_FIELDS.get(`${apiVersion}/${kind}`)
      : undefined;
    this.#labels = labels;
    this.#fields = fields;
  }

  /** The first problem of `object` (already walked: no forbidden key), or undefined. */
  check(object: unknown): Finding | undefined {
    if (!isRecord(object)) {
      return { problem: "malformed", detail: `is ${describeKind(object)}, not a JSON object` };
    }
    const { apiVersion, kind } = object;
    let allowed: ReadonlySet<string> | undefined;
    let why = "";
    if (apiVersion === undefined && kind === undefined) {
      // As a LIST's items come (checkpoint() writes both): such an object cannot say what it
      // is, so it passes only with the fields most kinds have (metadata, spec, status); a
      // Secret's data and type in a pods checkpoint are refused.
      allowed = UNTYPED_FIELDS;
      why =
        "has no apiVersion and kind, and a top-level field other than metadata, spec and status";
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
    } else {
      allowed = this.#fieldsOfKind;
      why = `has a top-level field that a ${kind} does not have`;
    }
    if (allowed !== undefined) {
      for (const key in object) {
        if (Object.hasOwn(object, key) && !allowed.has(key)) {
          return { problem: "resource", detail: why, path: key };
        }
      }
    }
    const meta = object.metadata;
    if (!isRecord(meta)) {
      return {
        problem: "metadata",
        detail: `has metadata that is ${describeKind(meta)}`,
        path: "metadata",
      };
    }
    for (const field of REQUIRED_METADATA) {
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
    const badName = nameProblem(meta.name as string, MAX_NAME_LENGTH);
    if (badName !== undefined) {
      return { problem: "metadata", detail: `has a name that ${badName}`, path: "metadata.name" };
    }
    const badNamespace = namespace ? nameProblem(namespace, MAX_NAMESPACE_LENGTH) : undefined;
    if (badNamespace !== undefined) {
      return {
        problem: "metadata",
        detail: `has a namespace that ${badNamespace}`,
        path: "metadata.namespace",
      };
    }
    for (const [field, ok, what] of METADATA_SHAPES) {
      const value = meta[field];
      if (value !== undefined && !ok(value)) {
        return {
          problem: "metadata",
          detail: `has ${field} that are not ${what}`,
          path: `metadata.${field}`,
        };
      }
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
function compileSelection(
  o: InformerSelection & { transform?: unknown },
): Selection | CheckpointErrorOptionsLike {
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
