// The esbuild options shared by scripts/build.mjs and the benchmark (scripts/bench.mjs and its
// bundle-size scenario), so that what the bench measures is what the package ships.

/**
 * The library for every runtime: bundled ESM, ES2022, no runtime assumed (`platform: neutral`);
 * `node:*` imports (only in the runtime adapters) are left to the runtime.
 */
export const LIBRARY = Object.freeze({
  bundle: true,
  format: "esm",
  platform: "neutral",
  target: "es2022",
  external: ["node:*"],
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
