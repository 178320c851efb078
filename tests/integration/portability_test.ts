import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import process from "node:process";
import { fileURLToPath } from "node:url";

/** The repository root: next to this file, or the working directory for a bundled test. */
const ROOT: string = (() => {
  const candidates = [process.cwd()];
  try {
    candidates.unshift(fileURLToPath(new URL("../..", import.meta.url)));
  } catch {
    // Not a file URL (bundled); the working directory remains.
  }
  return candidates.find((dir) => existsSync(join(dir, "scripts", "tsconfig.portable.json"))) ??
    process.cwd();
})();
const CONFIG = join(ROOT, "scripts", "tsconfig.portable.json");
const TSC = join(ROOT, "node_modules", ".bin", process.platform === "win32" ? "tsc.cmd" : "tsc");
const ADAPTERS = [
  "src/config/deno.ts",
  "src/config/bun.ts",
  "src/config/node.ts",
  "src/config/node_fetch.ts",
  "src/config/_node_proxy.ts",
  "src/config/_node_run_command.ts",
];

/** Runs tsc with `args`; resolves its exit code and combined output. */
function tsc(args: string[]): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(TSC, args, { cwd: ROOT, stdio: ["ignore", "pipe", "pipe"] });
    let output = "";
    child.stdout.setEncoding("utf8");
    child.stderr.setEncoding("utf8");
    child.stdout.on("data", (chunk: string) => (output += chunk));
    child.stderr.on("data", (chunk: string) => (output += chunk));
    child.once("error", reject);
    child.once("close", (code) => resolve({ code, output }));
  });
}

describe("portability guard (scripts/tsconfig.portable.json)", () => {
  const missing = existsSync(TSC) ? undefined : `tsc not found at ${TSC}`;

  test("the core type-checks with Web APIs only: no Deno, Bun, process or node:*", {
    skip: missing,
  }, async () => {
    const { code, output } = await tsc(["-p", CONFIG]);
    assert.equal(code, 0, `tsc -p scripts/tsconfig.portable.json failed:\n${output}`);
  });

  test("no core file pulls a runtime adapter into the portable program", {
    skip: missing,
  }, async () => {
    const { code, output } = await tsc(["-p", CONFIG, "--listFilesOnly"]);
    assert.equal(code, 0, output);
    const files = output.split(/\r?\n/).map((f) => f.replaceAll("\\", "/"));
    assert.ok(files.some((f) => f.endsWith("/src/config/mod.ts")), "src/config/mod.ts is checked");
    for (const adapter of ADAPTERS) {
      assert.ok(
        !files.some((f) => f.endsWith(`/${adapter}`)),
        `${adapter} is imported by core code`,
      );
    }
    assert.ok(!files.some((f) => f.includes("/@types/node/")), "@types/node is in the program");
  });

  test("the guard rejects runtime globals and node: imports", { skip: missing }, async () => {
    const dir = await mkdtemp(join(tmpdir(), "kinformer-portability-"));
    try {
      await writeFile(
        join(dir, "tsconfig.json"),
        JSON.stringify({ extends: CONFIG, include: ["leak.ts"], exclude: [] }),
      );
      await writeFile(
        join(dir, "leak.ts"),
        [
          'import { readFile } from "node:fs/promises";',
          "export const a = readFile;",
          "export const b = Deno.env.get('HOME');",
          "export const c = Bun.file('x');",
          "export const d = process.env.HOME;",
          "export const e = Buffer.from('x');",
        ].join("\n"),
      );
      const { code, output } = await tsc(["-p", join(dir, "tsconfig.json")]);
      assert.notEqual(code, 0, output);
      for (const name of ["node:fs/promises", "'Deno'", "'Bun'", "'process'", "'Buffer'"]) {
        assert.ok(output.includes(name), `expected an error about ${name} in:\n${output}`);
      }
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
