#!/usr/bin/env node
// Fails when the modules of either package (the library's src/, the simulator's
// packages/simulator/src/) import each other in a circle, at the level of files or of folders:
//
// - a module that imports itself through a chain of other modules (a file cycle), type-only
//   imports included: a cycle is a tangle in the design whether or not it runs;
// - a folder that imports a folder that imports it back, directly or through others (a folder
//   cycle), at every depth: `store/` and `model/`, and `model/kinds/` and `model/tables/`.
//   Files directly in a folder belong to it, not to its parent;
// - a module outside `adapters/` that imports one inside: the runtime adapters (Deno, Bun, Node
//   APIs) sit on top of the portable code, never under it;
// - in a package that declares its layers (LAYERS below), a module that imports one of a later
//   layer: each top-level folder may import only itself and the folders listed before it.
//
// It reads the `import`/`export ... from` specifiers of every .ts file (no TypeScript needed:
// every import inside a package is a relative path with its extension; imports by package name
// or into the other package are edges between packages, not checked here), finds the strongly
// connected components of each graph (Tarjan), and prints each cycle with one path through it.
//
//   node scripts/import_cycles.mjs          # exit 1 on any cycle, core -> adapter or layer break
import { readdir, readFile } from "node:fs/promises";
import { dirname, join, relative, resolve, sep } from "node:path";
import { root } from "./_run.mjs";

/** The packages' source folders, with the order of their layers where they declare one. */
const PACKAGES = [
  { name: "src/", src: join(root, "src") },
  {
    name: "packages/simulator/src/",
    src: join(root, "packages", "simulator", "src"),
    // packages/simulator/ARCHITECTURE.md explains them.
    layers: ["core", "model", "store", "handlers", "server", "cluster", "command", "adapters"],
  },
];

/** Every .ts file below `dir`, as absolute paths. */
async function sources(dir) {
  const names = await readdir(dir, { recursive: true });
  return names.filter((n) => n.endsWith(".ts")).map((n) => join(dir, n));
}

/** Relative import specifiers of one module (`import`, `export ... from`, `import("...")`). */
function specifiers(text) {
  const out = [];
  // Comments may quote imports (JSDoc examples): drop them first.
  const code = text.replace(/\/\*[\s\S]*?\*\//g, "").replace(/(^|[^:"'`])\/\/.*$/gm, "$1");
  const patterns = [
    /\b(?:import|export)\s+(?:type\s+)?[^'"`;]*?\bfrom\s*["']([^"']+)["']/g,
    /\bimport\s*["']([^"']+)["']/g,
    /\bimport\s*\(\s*["']([^"']+)["']\s*\)/g,
  ];
  for (const re of patterns) for (const m of code.matchAll(re)) out.push(m[1]);
  return out.filter((s) => s.startsWith("."));
}

/** module -> modules it imports, only modules below `src`. */
async function moduleGraph(src) {
  const files = await sources(src);
  const known = new Set(files);
  const graph = new Map();
  for (const file of files) {
    const text = await readFile(file, "utf8");
    const deps = new Set();
    for (const spec of specifiers(text)) {
      const target = resolve(dirname(file), spec);
      if (known.has(target)) deps.add(target);
    }
    graph.set(file, [...deps].sort());
  }
  return graph;
}

/** Strongly connected components with more than one node, or a node with an edge to itself. */
function cycles(graph) {
  let index = 0;
  const indices = new Map();
  const low = new Map();
  const stack = [];
  const onStack = new Set();
  const found = [];
  const visit = (v) => {
    indices.set(v, index);
    low.set(v, index);
    index++;
    stack.push(v);
    onStack.add(v);
    for (const w of graph.get(v)) {
      if (!indices.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v), low.get(w)));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v), indices.get(w)));
    }
    if (low.get(v) !== indices.get(v)) return;
    const component = [];
    let w;
    do {
      w = stack.pop();
      onStack.delete(w);
      component.push(w);
    } while (w !== v);
    if (component.length > 1 || graph.get(v).includes(v)) found.push(component.sort());
  };
  for (const v of [...graph.keys()].sort()) if (!indices.has(v)) visit(v);
  return found;
}

/** One cycle through `component`, starting at its first node: `[a, b, a]`. */
function pathThrough(graph, component) {
  const inside = new Set(component);
  const start = component[0];
  // Breadth-first from start's successors back to start, inside the component.
  const previous = new Map();
  const queue = graph.get(start).filter((w) => inside.has(w));
  for (const w of queue) previous.set(w, start);
  while (queue.length > 0) {
    const v = queue.shift();
    if (v === start) break;
    for (const w of graph.get(v)) {
      if (!inside.has(w) || previous.has(w)) continue;
      previous.set(w, v);
      queue.push(w);
    }
  }
  const path = [start];
  for (let v = previous.get(start); v !== undefined && v !== start; v = previous.get(v)) {
    path.push(v);
  }
  path.push(start);
  return path.reverse();
}

/**
 * The folder graph at `depth`: each module stands for its folder's first `depth` path segments
 * below src/ ("." for src/ itself), and a folder imports another when one of its modules does.
 * `via` keeps one module import behind each folder edge, to show where a cycle comes from.
 */
function folderGraph(graph, folderOf) {
  const folders = new Map();
  const via = new Map();
  for (const [file, deps] of graph) {
    const from = folderOf(file);
    if (!folders.has(from)) folders.set(from, new Set());
    for (const dep of deps) {
      const to = folderOf(dep);
      if (to === from) continue;
      folders.get(from).add(to);
      if (!via.has(`${from} ${to}`)) via.set(`${from} ${to}`, [file, dep]);
    }
  }
  for (const to of [...folders.values()].flatMap((s) => [...s])) {
    if (!folders.has(to)) folders.set(to, new Set());
  }
  return { graph: new Map([...folders].map(([k, s]) => [k, [...s].sort()])), via };
}

let failures = 0;
const fail = (message) => {
  failures++;
  console.error(message);
};

for (const pkg of PACKAGES) {
  const graph = await moduleGraph(pkg.src);
  const rel = (f) => relative(pkg.src, f).split(sep).join("/");
  const before = failures;

  for (const component of cycles(graph)) {
    fail(
      `${pkg.name}: import cycle: ${pathThrough(graph, component).map(rel).join(" -> ")} ` +
        `(modules: ${component.map(rel).join(" ")})`,
    );
  }

  const maxDepth = Math.max(...[...graph.keys()].map((f) => rel(f).split("/").length - 1));
  const reported = new Set();
  for (let depth = 1; depth <= maxDepth; depth++) {
    const folderOf = (f) => rel(f).split("/").slice(0, -1).slice(0, depth).join("/") || ".";
    const folders = folderGraph(graph, folderOf);
    for (const component of cycles(folders.graph)) {
      const path = pathThrough(folders.graph, component);
      const key = path.join(" ");
      if (reported.has(key)) continue; // the same loop seen at a lower depth
      reported.add(key);
      const edges = path.slice(1).map((to, i) => {
        const [a, b] = folders.via.get(`${path[i]} ${to}`);
        return `${rel(a)} -> ${rel(b)}`;
      });
      fail(
        `${pkg.name}: folder cycle: ${path.map((f) => `${f}/`).join(" -> ")} ` +
          `(through ${edges.join(", ")})`,
      );
    }
  }

  const adapters = join(pkg.src, "adapters");
  const isAdapter = (f) => f.startsWith(adapters + sep);
  for (const [file, deps] of graph) {
    if (isAdapter(file)) continue;
    for (const dep of deps.filter(isAdapter)) {
      fail(`${pkg.name}: core module imports a runtime adapter: ${rel(file)} -> ${rel(dep)}`);
    }
  }

  if (pkg.layers !== undefined) {
    const layerOf = (f) => pkg.layers.indexOf(rel(f).split("/")[0]);
    for (const [file, deps] of graph) {
      if (layerOf(file) < 0) fail(`${pkg.name}: ${rel(file)} is in no layer (${pkg.layers})`);
      for (const dep of deps.filter((d) => layerOf(d) > layerOf(file))) {
        fail(`${pkg.name}: a layer imports a later one: ${rel(file)} -> ${rel(dep)}`);
      }
    }
  }

  console.log(
    failures === before
      ? `${pkg.name}: ${graph.size} modules, no import cycle between files or folders` +
        (pkg.layers ? `, layers one way (${pkg.layers.join(" -> ")})` : "") +
        ", no import of adapters/ from outside it"
      : `${pkg.name}: ${failures - before} problem(s)`,
  );
}
process.exit(failures === 0 ? 0 : 1);
