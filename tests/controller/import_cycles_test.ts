// No import cycle runs through the controller, queue or metrics layers (issue 24, item 5): every
// relative import of src/ (type-only ones too) is followed, and no strongly connected component
// of the graph may contain a file of src/controller, src/queue or src/metrics.
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { readdir, readFile } from "node:fs/promises";
import { dirname, join, relative, resolve } from "node:path";
import { ROOT } from "../_runtime_process.ts";

const IMPORT = /(?:^|\n)\s*(?:import|export)\s[^;]*?\sfrom\s+["'](\.{1,2}\/[^"']+)["']/g;

/** Relative imports of every .ts file below `src` (paths relative to `root`). */
export async function importGraph(root: string): Promise<Map<string, string[]>> {
  const graph = new Map<string, string[]>();
  const files = (await readdir(join(root, "src"), { recursive: true }))
    .map((f) => String(f).split("\\").join("/"))
    .filter((f) => f.endsWith(".ts"))
    .map((f) => `src/${f}`);
  for (const file of files) {
    const text = await readFile(join(root, file), "utf8");
    const targets: string[] = [];
    for (const m of text.matchAll(IMPORT)) {
      targets.push(relative(root, resolve(root, dirname(file), m[1]!)).split("\\").join("/"));
    }
    graph.set(file, targets);
  }
  return graph;
}

/**
 * The strongly connected components with more than one file (or a file importing itself): each
 * of their files lies on an import cycle (Tarjan's algorithm).
 */
export function cycles(graph: Map<string, string[]>): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const onStack = new Set<string>();
  const stack: string[] = [];
  const out: string[][] = [];
  let counter = 0;
  const visit = (node: string): void => {
    index.set(node, counter);
    low.set(node, counter++);
    stack.push(node);
    onStack.add(node);
    for (const next of graph.get(node) ?? []) {
      if (!graph.has(next)) continue;
      if (!index.has(next)) {
        visit(next);
        low.set(node, Math.min(low.get(node)!, low.get(next)!));
      } else if (onStack.has(next)) low.set(node, Math.min(low.get(node)!, index.get(next)!));
    }
    if (low.get(node) !== index.get(node)) return;
    const component: string[] = [];
    for (let top = stack.pop()!;; top = stack.pop()!) {
      onStack.delete(top);
      component.push(top);
      if (top === node) break;
    }
    if (component.length > 1 || (graph.get(node) ?? []).includes(node)) out.push(component.sort());
  };
  for (const node of [...graph.keys()].sort()) if (!index.has(node)) visit(node);
  return out;
}

const MINE = /^src\/(controller|queue|metrics)\//;

describe("import cycles", () => {
  test("no cycle runs through src/controller, src/queue or src/metrics", async () => {
    const graph = await importGraph(ROOT);
    assert.ok(graph.has("src/controller/run_controller.ts"));
    const mine = cycles(graph).filter((c) => c.some((f) => MINE.test(f)));
    assert.deepEqual(mine.map((c) => c.join(", ")), []);
  });

  test("the cycle finder finds a cycle", () => {
    const graph = new Map([["a", ["b"]], ["b", ["c"]], ["c", ["a"]], ["d", ["a"]]]);
    assert.deepEqual(cycles(graph), [["a", "b", "c"]]);
    assert.deepEqual(cycles(new Map([["a", ["a"]], ["b", []]])), [["a"]]);
  });
});
