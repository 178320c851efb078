#!/usr/bin/env node
// Fails when a module under src/ imports itself through a chain of other modules (an import
// cycle), type-only imports included: a cycle is a tangle in the design whether or not it runs.
// It reads the `import`/`export ... from` specifiers of every .ts file (no TypeScript needed:
// every import in src/ is a relative path with its extension), finds the strongly connected
// components of the graph (Tarjan), and prints each cycle with one path through it.
//
// It also fails when a module outside src/adapters/ imports one inside: the runtime adapters
// (Deno, Bun, Node APIs) sit on top of the portable core, never under it.
//
//   node scripts/import_cycles.mjs          # exit 1 on any cycle or core -> adapter import
import { readdir, readFile } from "node:fs/promises";
import { dirname, join, relative, resolve, sep } from "node:path";
import { root } from "./_run.mjs";

const src = join(root, "src");

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

const files = await sources(src);
const known = new Set(files);
/** module -> modules it imports (only modules under src/). */
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

/** Strongly connected components with more than one module, or a module importing itself. */
function cycles() {
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

/** One cycle through `component`, starting at its first module, e.g. `a.ts -> b.ts -> a.ts`. */
function pathThrough(component) {
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
  return path.reverse().map((f) => relative(src, f).split("\\").join("/")).join(" -> ");
}

const name = (component) => component.map((f) => relative(src, f).split("\\").join("/"));
let failures = 0;
for (const component of cycles()) {
  failures++;
  console.error(`import cycle: ${pathThrough(component)} (modules: ${name(component).join(" ")})`);
}
const adapters = join(src, "adapters");
const isAdapter = (f) => f.startsWith(adapters + sep);
let layering = 0;
for (const [file, deps] of graph) {
  if (isAdapter(file)) continue;
  for (const dep of deps.filter(isAdapter)) {
    layering++;
    console.error(
      `core module imports a runtime adapter: ${name([file])[0]} -> ${name([dep])[0]}`,
    );
  }
}
console.log(
  failures === 0
    ? `no import cycles among ${files.length} modules in src/`
    : `${failures} import cycle(s) in src/`,
);
console.log(
  layering === 0
    ? "no module outside src/adapters/ imports one inside"
    : `${layering} import(s) of src/adapters/ from outside it`,
);
process.exit(failures === 0 && layering === 0 ? 0 : 1);
