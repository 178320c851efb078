// The root module's list (mod.ts): exactly the 1.0 names, written out (no `export *`), at most
// 60. A name added to or removed from the root fails here until this list says so: growth is
// deliberate. (`node scripts/docs.mjs --check` counts what `deno doc` sees in the root, too.)
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { readFile } from "node:fs/promises";
import * as root from "../mod.ts";

/** The values of the root module. */
const VALUES = [
  // client
  "KubeClient",
  "KubeApiError",
  "KubeNetworkError",
  "isStatus",
  "defineResource",
  "metadataOnly",
  // built-in descriptors
  "pods",
  "configmaps",
  "secrets",
  "services",
  "namespaces",
  "nodes",
  "deployments",
  "replicasets",
  "statefulsets",
  "daemonsets",
  "jobs",
  "cronjobs",
  "leases",
  "coreEvents",
  "endpoints",
  "ingresses",
  "persistentvolumes",
  "persistentvolumeclaims",
  "serviceaccounts",
  "customresourcedefinitions",
  // selectors
  "LabelSelector",
  "FieldSelector",
  "SelectorParseError",
  // informers
  "createInformer",
  "SharedInformer",
  "SharedInformerFactory",
  "Lister",
  "watcher",
  // errors an informer reports
  "WatchDecodeError",
  "DriftError",
  "CheckpointError",
  // a start after a stop
  "LifecycleError",
];

/** The types of the root module. */
const TYPES = [
  "KubeClientOptions",
  "Status",
  "KubeObject",
  "KubeObjectLike",
  "ObjectMeta",
  "KubeList",
  "ResourceDescriptor",
  "PartialObjectMetadata",
  "ErrorKind",
  "InformerOptions",
  "InformerEvent",
  "EventHandler",
  "HandlerRegistration",
  "EventsOptions",
  "InformerHealth",
  "WatcherEvent",
  "WatcherOptions",
  "ErrorContext",
  "OnError",
  "LifecycleState",
];

/** Names in mod.ts's `export { ... } from` and `export type { ... } from` lists. */
function exportedNames(source: string): { values: string[]; types: string[] } {
  const code = source.replace(/\/\*[\s\S]*?\*\//g, "").replace(/\/\/.*$/gm, "");
  const values: string[] = [];
  const types: string[] = [];
  for (const m of code.matchAll(/export\s+(type\s+)?\{([^}]*)\}\s*from\s*"[^"]+";/g)) {
    for (const raw of m[2]!.split(",")) {
      const part = raw.trim();
      if (part === "") continue;
      const typeOnly = m[1] !== undefined || part.startsWith("type ");
      const name = part.replace(/^type\s+/, "").split(/\s+as\s+/).at(-1)!;
      (typeOnly ? types : values).push(name);
    }
  }
  return { values, types };
}

const sorted = (names: Iterable<string>): string[] => [...names].sort();

describe("root module (mod.ts): the 1.0 list", () => {
  test("exports exactly these values", () => {
    assert.deepEqual(sorted(Object.keys(root)), sorted(VALUES));
  });

  test("lists exactly these names, with no `export *`, at most 60", async () => {
    const source = await readFile(new URL("../mod.ts", import.meta.url), "utf8");
    const code = source.replace(/\/\*[\s\S]*?\*\//g, "").replace(/\/\/.*$/gm, "");
    assert.doesNotMatch(code, /export\s+\*/, "mod.ts lists its names one by one");
    const { values, types } = exportedNames(source);
    assert.deepEqual(sorted(values), sorted(VALUES));
    assert.deepEqual(sorted(types), sorted(TYPES));
    const all = new Set([...values, ...types]);
    assert.equal(all.size, values.length + types.length, "no name is listed twice");
    assert.ok(all.size <= 60, `the root exports ${all.size} names (at most 60)`);
  });
});
