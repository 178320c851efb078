// The esbuild options shared by scripts/build.mjs and the benchmark (scripts/bench.mjs and its
// bundle-size scenario), so that what the bench measures is what the package ships.
import { workspaceTarget } from "./_workspace.mjs";

/**
 * The library for every runtime: bundled ESM, ES2022, no runtime assumed (`platform: neutral`);
 * `node:*` imports (only in the runtime adapters) are left to the runtime, and imports of the
 * other package of this repository (`@kinformer/simulator` from the library's deprecated
 * `./testing` re-export, `@kinformer/kinformer/*` from the simulator) to the installed package.
 */
export const LIBRARY = Object.freeze({
  bundle: true,
  format: "esm",
  platform: "neutral",
  target: "es2022",
  external: ["node:*", "@kinformer/kinformer", "@kinformer/simulator"], // subpaths too
  // Class and function names survive bundling: without it esbuild renames a class that refers
  // to itself (`KubeApiError` printed as `_KubeApiError`) and a function whose name another
  // module also uses (`isConflict2`). Measured: kinformer.min.js 99.1 KB -> 105.0 KB raw,
  // 31.7 KB -> 34.0 KB gzipped (+7%); dist/*.js +5%. Renaming sources to dodge esbuild's rules
  // would cost nothing but break again with the next self-reference; minified output would
  // still say `e`. scripts/package_smoke.mjs checks every export's name on the packed tarball.
  keepNames: true,
  logLevel: "warning",
});

/** `dist/kinformer.min.js`: the root module as one minified file (the size the README quotes). */
export const MINIFIED_LIBRARY = Object.freeze({
  ...LIBRARY,
  minify: true,
  legalComments: "none",
});

/**
 * Bundles this repository's two packages (`@kinformer/kinformer`, `@kinformer/simulator`, which
 * import each other by name) from their sources (scripts/_workspace.mjs), and leaves every other
 * package import (and `node:*`) to node_modules.
 */
const WORKSPACE_SOURCES = Object.freeze({
  name: "workspace-sources",
  setup(build) {
    build.onResolve({ filter: /^[^./]/ }, (args) => {
      const path = workspaceTarget(args.path);
      return path === undefined ? { path: args.path, external: true } : { path };
    });
  },
});

/**
 * A program run by Node from a bundle (the bench server and client processes): dependencies are
 * loaded from node_modules, not bundled; the workspace's packages are bundled from their
 * sources.
 */
export const NODE_PROGRAM = Object.freeze({
  bundle: true,
  platform: "node",
  format: "esm",
  plugins: [WORKSPACE_SOURCES],
  target: "node20",
  logLevel: "warning",
});
