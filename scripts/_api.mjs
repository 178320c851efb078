// The public API as `deno doc` sees it, for the docs scripts: the entry points of deno.json's
// `exports`, the symbols each exports, its module doc, and the URLs of the reference pages.
//
// The reference is JSR's (the same JSDoc `npm run docs` renders into docs/api/, which is not
// committed, so guides cannot link there):
//   https://jsr.io/@kinformer/kinformer/doc                           the index (root module)
//   https://jsr.io/@kinformer/kinformer/doc/<subpath>                 a subpath's module doc
//   https://jsr.io/@kinformer/kinformer/doc/~/<Symbol>                a symbol of the root module
//   https://jsr.io/@kinformer/kinformer/doc/<subpath>/~/<Symbol>      a symbol of a subpath
//   .../~/<Class>.prototype.<member>, .../~/<Class>.<static member>, .../~/<Interface>.<member>
// `<subpath>` is a key of deno.json's `exports` without its "./" (`cache`, `config/node`).
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { bin, root, run } from "./_run.mjs";

/** Where the API reference lives: every link into it starts so. */
export const API_DOC_URL = "https://jsr.io/@kinformer/kinformer/doc";

/** The repository on GitHub: module docs link guides as `${REPO_BLOB}docs/<guide>.md`. */
export const REPO_BLOB = "https://github.com/kinformer/kinformer/blob/main/";

/** deno.json's entry points: `{ subpath, file }`, subpath "" for the root (`./mod.ts`). */
export async function entryPoints() {
  const config = JSON.parse(await readFile(join(root, "deno.json"), "utf8"));
  const exports = typeof config.exports === "string" ? { ".": config.exports } : config.exports;
  return Object.entries(exports).map(([key, file]) => ({
    subpath: key === "." ? "" : key.replace(/^\.\//, ""),
    file,
  }));
}

/** The URL of a symbol's reference page (or the module's, without a symbol). */
export function apiUrl(subpath, symbol) {
  const module = subpath === "" ? API_DOC_URL : `${API_DOC_URL}/${subpath}`;
  return symbol === undefined ? module : `${module}/~/${symbol}`;
}

/**
 * Every entry point with what `deno doc --json` says of it: `{ subpath, file, moduleDoc,
 * symbols }`, `symbols` a Map from exported name to its declarations (kind and def, as deno doc
 * gives them). Rejects when deno doc fails or speaks a format this does not know.
 */
export async function apiModules() {
  const entries = await entryPoints();
  const r = await run(bin("deno"), ["doc", "--json", ...entries.map((e) => e.file)]);
  if (r.code !== 0) throw new Error(`deno doc --json failed:\n${r.stderr}`);
  const doc = JSON.parse(r.stdout);
  if (doc.version !== 2 || typeof doc.nodes !== "object") {
    throw new Error(`deno doc --json: unknown format version ${doc.version}`);
  }
  const byFile = new Map(
    Object.entries(doc.nodes).map(([url, node]) => [fileURLToPath(url), node]),
  );
  // A symbol documented under one entry point is a "reference" (to its location) under the
  // others: resolve those to the declaration they point at.
  const where = (l) => `${l.filename}:${l.line}:${l.col}`;
  const declared = new Map();
  for (const node of byFile.values()) {
    for (const s of node.symbols) {
      for (const d of s.declarations) {
        if (d.kind !== "reference") declared.set(where(d.location), d);
      }
    }
  }
  return entries.map((e) => {
    const node = byFile.get(join(root, e.file));
    if (node === undefined) throw new Error(`deno doc --json: nothing for ${e.file}`);
    const symbols = new Map();
    for (const s of node.symbols) {
      symbols.set(
        s.name,
        s.declarations.map((d) =>
          d.kind === "reference" ? declared.get(where(d.def.target)) ?? d : d
        ),
      );
    }
    return {
      ...e,
      file: e.file.replace(/^\.\//, ""),
      moduleDoc: node.module_doc?.doc ?? "",
      symbols,
    };
  });
}

/**
 * Whether `path` (what follows `~/` in a reference URL: `Name`, `Name.prototype.member`,
 * `Name.member`) names something `declarations` (of `Name`) have: an instance member of a
 * class through `prototype`, a static one without it, a member of an interface without it.
 * Returns undefined when it does, else why not.
 */
export function memberProblem(name, rest, declarations) {
  if (rest.length === 0) return undefined;
  const instance = rest[0] === "prototype";
  const member = instance ? rest[1] : rest[0];
  if (member === undefined || rest.length > (instance ? 2 : 1)) {
    return `"${[name, ...rest].join(".")}" is not a symbol or a member of one`;
  }
  for (const d of declarations) {
    const def = d.def ?? {};
    const members = [...(def.methods ?? []), ...(def.properties ?? [])];
    if (d.kind === "class") {
      if (members.some((m) => m.name === member && Boolean(m.isStatic) === !instance)) return;
    } else if (d.kind === "interface" && !instance) {
      if (members.some((m) => m.name === member)) return;
    }
  }
  const kinds = [...new Set(declarations.map((d) => d.kind))].join("/");
  return `${kinds} ${name} has no ${instance ? "instance " : ""}member "${member}"` +
    (declarations.some((d) => d.kind === "class") && !instance
      ? ` (an instance member is ${name}.prototype.${member})`
      : "");
}
