// src/config has no import cycles (type-only imports count too): kubeconfig.ts and
// resolve_kubeconfig.ts, and the YAML parser's files, used to import each other.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readdir, readFile } from "node:fs/promises";
import { dirname, join, relative, resolve } from "node:path";
import { FIXTURES } from "../fixtures/kubeconfig/helpers.ts";

const ROOT = resolve(FIXTURES, "..", "..", "..", "src", "config");

async function graph(): Promise<Map<string, string[]>> {
  const edges = new Map<string, string[]>();
  for (const name of await readdir(ROOT, { recursive: true })) {
    if (!name.endsWith(".ts")) continue;
    const file = join(ROOT, name);
    const source = await readFile(file, "utf8");
    const deps = [...source.matchAll(/^(?:import|export)\b[^;]*?\bfrom\s+"(\.[^"]+)"/gms)]
      .map((m) => resolve(dirname(file), m[1]!))
      .filter((dep) => dep.startsWith(ROOT));
    edges.set(file, deps);
  }
  return edges;
}

test("src/config has no import cycles", async () => {
  const edges = await graph();
  assert.ok(edges.size > 20, "the config files were found");
  const state = new Map<string, "open" | "done">();
  const stack: string[] = [];
  const cycles: string[] = [];
  const visit = (file: string): void => {
    state.set(file, "open");
    stack.push(file);
    for (const dep of edges.get(file) ?? []) {
      if (state.get(dep) === "open") {
        cycles.push(stack.slice(stack.indexOf(dep)).map((f) => relative(ROOT, f)).join(" -> "));
      } else if (state.get(dep) === undefined) visit(dep);
    }
    stack.pop();
    state.set(file, "done");
  };
  for (const file of edges.keys()) if (state.get(file) === undefined) visit(file);
  assert.deepEqual(cycles, []);
});
