// The esbuild options shared by scripts/build.mjs and the benchmark (scripts/bench.mjs and its
// bundle-size scenario), so that what the bench measures is what the package ships.

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
  logLevel: "warning",
});

/** `dist/kinformer.min.js`: the root module as one minified file (the size the README quotes). */
export const MINIFIED_LIBRARY = Object.freeze({
  ...LIBRARY,
  minify: true,
  legalComments: "none",
});

/**
 * A program run by Node from a bundle (the bench server and client processes): dependencies are
 * loaded from node_modules, not bundled.
 */
export const NODE_PROGRAM = Object.freeze({
  bundle: true,
  platform: "node",
  format: "esm",
  packages: "external",
  target: "node20",
  logLevel: "warning",
});
