// How Node and Bun find this repository's two packages by name when they run its TypeScript
// sources (tests, examples): `@kinformer/kinformer[/<subpath>]` and
// `@kinformer/simulator[/<subpath>]` resolve to the source file that the package's deno.json
// `exports` names for that subpath, in this checkout. (Deno does the same from the deno.json
// `workspace`.) Resolving here, not through node_modules/@kinformer/ (the links npm's
// workspaces make), keeps a checkout whose node_modules is another checkout's (a git worktree
// linked to the main one) on its own sources.
//
// Node: `node --import ./scripts/_workspace_node.mjs` installs it as a resolution hook
// (scripts/_run.mjs's WORKSPACE_ENV, which the tests run under); esbuild bundles (the bench) use
// it as a plugin (scripts/esbuild_options.mjs). Bun and tsc read the same mapping from
// tsconfig.json's `paths`.
import { readFileSync } from "node:fs";
import { join, relative, resolve, sep } from "node:path";
import { fileURLToPath } from "node:url";

const root = resolve(import.meta.dirname, "..");

/** Package name -> its folder. */
const PACKAGES = new Map([
  ["@kinformer/kinformer", root],
  ["@kinformer/simulator", join(root, "packages", "simulator")],
]);

/** Matches a specifier of either package: the name, then an optional subpath. */
export const WORKSPACE_SPECIFIER = /^(@kinformer\/(?:kinformer|simulator))(\/.+)?$/;

const exportsOf = new Map();

/** The absolute path of the source file a specifier names, or undefined if it names none. */
export function workspaceTarget(specifier) {
  const m = WORKSPACE_SPECIFIER.exec(specifier);
  if (m === null) return undefined;
  const dir = PACKAGES.get(m[1]);
  if (!exportsOf.has(dir)) {
    exportsOf.set(dir, JSON.parse(readFileSync(join(dir, "deno.json"), "utf8")).exports);
  }
  const file = exportsOf.get(dir)[`.${m[2] ?? ""}`];
  return file === undefined ? undefined : join(dir, file);
}

/**
 * Whether a module at `parentURL` belongs to this checkout (not to its node_modules): only its
 * imports of the workspace's packages go to the sources. The entry point (no parent) does too.
 */
export function importedFromCheckout(parentURL) {
  if (parentURL === undefined) return true;
  if (!parentURL.startsWith("file:")) return false;
  const parts = relative(root, fileURLToPath(parentURL)).split(sep);
  return parts[0] !== ".." && !parts.includes("node_modules");
}
