/**
 * A compact notation for the OpenAPI v3 schemas of built-in types, so the simulated cluster can
 * describe pods, workloads and services field by field without megabytes of JSON. A type is a
 * table of `field: spec` where `spec` is one of:
 *
 * - a scalar: `string`, `int32`, `int64`, `bool`, `number`, `byte` (base64 string);
 * - a shared type: `Time`, `MicroTime` (RFC 3339 strings), `Quantity` (string or number),
 *   `IntOrString`, `LabelSelector`, `Condition` (meta/v1);
 * - `open`: an object whose fields are not described (any field accepted, never reported);
 * - `{X}`: a map with values of `X` (`additionalProperties`);
 * - `[X]`: an atomic list; `[X@a,b]`: a map list keyed by `a` and `b` (merge key `a`);
 *   `[X#]`: a set;
 * - another type's short name (`PodSpec`), which becomes a `$ref` to its component.
 *
 * Internal.
 * @module
 */
/** An OpenAPI v3 schema object (JSON). */
export type Schema = Record<string, unknown>;

/** Component schemas by name. */
export type Components = Record<string, Schema>;

/** A type: its package (`core.v1`, `apps.v1`, ...), description and fields. */
export interface TypeDef {
  /** Package and version segment of the component name (`core.v1`). */
  readonly pkg: string;
  /** What the type is (shown by `kubectl explain`). */
  readonly description?: string;
  /** Field specs by field name. */
  readonly fields: Readonly<Record<string, string>>;
}

/** The package of the apimachinery meta types in component names. */
export const META = "io.k8s.apimachinery.pkg.apis.meta.v1";

/** Component names of the shared types of the notation. */
const SHARED: Readonly<Record<string, string>> = {
  Time: `${META}.Time`,
  MicroTime: `${META}.MicroTime`,
  LabelSelector: `${META}.LabelSelector`,
  Condition: `${META}.Condition`,
  ObjectMeta: `${META}.ObjectMeta`,
  Quantity: "io.k8s.apimachinery.pkg.api.resource.Quantity",
  IntOrString: "io.k8s.apimachinery.pkg.util.intstr.IntOrString",
};

/** The shared components every described kind may use. */
export function sharedComponents(): Components {
  return {
    [SHARED.Quantity!]: {
      description:
        "Quantity is a fixed-point representation of a number (`100m`, `1.5Gi`, `2`), written as a string or a number.",
      oneOf: [{ type: "string" }, { type: "number" }],
    },
    [SHARED.IntOrString!]: {
      description: "IntOrString is a type that can hold an int32 or a string.",
      format: "int-or-string",
      oneOf: [{ type: "integer" }, { type: "string" }],
      "x-kubernetes-int-or-string": true,
    },
    [`${META}.LabelSelector`]: {
      type: "object",
      description:
        "A label selector is a label query over a set of resources. The result of matchLabels and matchExpressions are ANDed. An empty label selector matches all objects. A null label selector matches no objects.",
      properties: {
        matchExpressions: {
          type: "array",
          description:
            "matchExpressions is a list of label selector requirements. The requirements are ANDed.",
          items: ref(`${META}.LabelSelectorRequirement`, { default: {} }),
          "x-kubernetes-list-type": "atomic",
        },
        matchLabels: {
          type: "object",
          description: "matchLabels is a map of {key,value} pairs.",
          additionalProperties: { type: "string", default: "" },
        },
      },
      "x-kubernetes-map-type": "atomic",
    },
    [`${META}.LabelSelectorRequirement`]: {
      type: "object",
      properties: {
        key: { type: "string", default: "" },
        operator: { type: "string", default: "" },
        values: {
          type: "array",
          items: { type: "string", default: "" },
          "x-kubernetes-list-type": "atomic",
        },
      },
      required: ["key", "operator"],
    },
    [`${META}.Condition`]: {
      type: "object",
      description:
        "Condition contains details for one aspect of the current state of this API Resource.",
      properties: {
        lastTransitionTime: ref(`${META}.Time`),
        message: { type: "string", default: "" },
        observedGeneration: { type: "integer", format: "int64" },
        reason: { type: "string", default: "" },
        status: { type: "string", default: "" },
        type: { type: "string", default: "" },
      },
      required: ["type", "status", "lastTransitionTime", "reason", "message"],
    },
  };
}

/** A reference to component `name`, as kube-apiserver writes them (`allOf` with `$ref`). */
export function ref(name: string, extra: Schema = {}): Schema {
  return { allOf: [{ $ref: `#/components/schemas/${name}` }], ...extra };
}

const SCALARS: Readonly<Record<string, Schema>> = {
  string: { type: "string" },
  int32: { type: "integer", format: "int32" },
  int64: { type: "integer", format: "int64" },
  bool: { type: "boolean" },
  number: { type: "number", format: "double" },
  byte: { type: "string", format: "byte" },
  open: { type: "object", "x-kubernetes-preserve-unknown-fields": true },
};

/** Compiles type tables into components, resolving short names to full component names. */
export class SchemaCompiler {
  readonly #types: ReadonlyMap<string, TypeDef>;
  readonly #docs: (type: string, field: string) => string | undefined;

  /**
   * @param types Types by short name.
   * @param docs The description of a field, if any.
   */
  constructor(
    types: ReadonlyMap<string, TypeDef>,
    docs: (type: string, field: string) => string | undefined,
  ) {
    this.#types = types;
    this.#docs = docs;
  }

  /** The full component name of a short type name (`PodSpec` -> `io.k8s.api.core.v1.PodSpec`). */
  componentName(short: string): string {
    if (Object.hasOwn(SHARED, short)) return SHARED[short]!;
    const t = this.#types.get(short);
    if (t === undefined) throw new Error(`no type ${short}`);
    return `io.k8s.api.${t.pkg}.${short}`;
  }

  /** The schema of one field spec. */
  spec(spec: string, description?: string): Schema {
    const d = description === undefined ? {} : { description };
    if (Object.hasOwn(SCALARS, spec)) return { ...SCALARS[spec], ...d };
    if (spec.startsWith("{") && spec.endsWith("}")) {
      const inner = this.spec(spec.slice(1, -1));
      return {
        type: "object",
        ...d,
        additionalProperties: inner.type === "string" ? { ...inner, default: "" } : inner,
      };
    }
    if (spec.startsWith("[") && spec.endsWith("]")) {
      let inner = spec.slice(1, -1);
      const extra: Schema = { "x-kubernetes-list-type": "atomic" };
      const at = inner.indexOf("@");
      if (at >= 0) {
        const keys = inner.slice(at + 1).split(",");
        inner = inner.slice(0, at);
        extra["x-kubernetes-list-map-keys"] = keys;
        extra["x-kubernetes-list-type"] = "map";
        extra["x-kubernetes-patch-merge-key"] = keys[0];
        extra["x-kubernetes-patch-strategy"] = "merge";
      } else if (inner.endsWith("#")) {
        inner = inner.slice(0, -1);
        extra["x-kubernetes-list-type"] = "set";
      }
      const items = this.spec(inner);
      const item = items.allOf !== undefined
        ? { ...items, default: {} }
        : items.type === "string"
        ? { ...items, default: "" }
        : items;
      return { type: "array", ...d, items: item, ...extra };
    }
    return ref(this.componentName(spec), d);
  }

  /** The component of type `short`. */
  component(short: string): Schema {
    const t = this.#types.get(short);
    if (t === undefined) throw new Error(`no type ${short}`);
    const properties: Record<string, Schema> = {};
    for (const [field, spec] of Object.entries(t.fields)) {
      properties[field] = this.spec(spec, this.#docs(short, field));
    }
    return {
      type: "object",
      ...(t.description === undefined ? {} : { description: t.description }),
      properties,
    };
  }

  /** The short names `short` uses, directly or not (itself included). */
  closure(short: string, into: Set<string> = new Set()): Set<string> {
    if (into.has(short) || Object.hasOwn(SHARED, short)) return into;
    const t = this.#types.get(short);
    if (t === undefined) throw new Error(`no type ${short}`);
    into.add(short);
    for (const spec of Object.values(t.fields)) {
      const name = spec.replace(/^[[{]/, "").replace(/(@.*|#)?[\]}]$/, "");
      if (!Object.hasOwn(SCALARS, name)) this.closure(name, into);
    }
    return into;
  }

  /** The components of `short` and everything it uses. */
  components(short: string): Components {
    const out: Components = {};
    for (const name of this.closure(short)) out[this.componentName(name)] = this.component(name);
    return out;
  }
}
