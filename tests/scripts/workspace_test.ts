// scripts/_workspace.mjs: how the tests' Node resolution hook finds this checkout's packages by
// name, and for whom. Only the checkout's own files get the sources; anything else (an
// application staged in a temp directory with the built packages, a dependency in
// node_modules) resolves the names as installed, even when it inherits the hook.
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { importedFromCheckout, workspaceTarget } from "../../scripts/_workspace.mjs";
import { ROOT } from "../_runtime_process.ts";

const url = (...parts: string[]): string => pathToFileURL(join(...parts)).href;

describe("the workspace resolution hook (scripts/_workspace.mjs)", () => {
  test("maps the packages' names and subpaths to their sources in this checkout", () => {
    assert.equal(workspaceTarget("@kinformer/kinformer"), join(ROOT, "mod.ts"));
    assert.equal(
      workspaceTarget("@kinformer/simulator"),
      join(ROOT, "packages", "simulator", "mod.ts"),
    );
    assert.equal(workspaceTarget("@kinformer/kinformer/no-such-subpath"), undefined);
    assert.equal(workspaceTarget("kinformer"), undefined);
  });

  test("applies to the checkout's files, the entry point and code evaluated in the checkout", () => {
    assert.equal(importedFromCheckout(url(ROOT, "tests", "a_test.ts")), true);
    assert.equal(importedFromCheckout(url(ROOT, "packages", "simulator", "mod.ts")), true);
    assert.equal(importedFromCheckout(url(ROOT, "[eval1]")), true);
    assert.equal(importedFromCheckout(undefined), true);
  });

  test("does not apply outside the checkout or in node_modules: those get the installed packages", () => {
    assert.equal(importedFromCheckout(url("/tmp", "kinformer-node-app-x", "node.mjs")), false);
    assert.equal(importedFromCheckout(url(ROOT, "..", "elsewhere", "mod.ts")), false);
    assert.equal(
      importedFromCheckout(url(ROOT, "node_modules", "@kinformer", "kinformer", "dist", "mod.js")),
      false,
    );
    assert.equal(importedFromCheckout("data:text/javascript,export{}"), false);
    assert.equal(importedFromCheckout("node:fs"), false);
  });
});
