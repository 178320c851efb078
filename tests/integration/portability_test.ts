import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import process from "node:process";
import { bin, ROOT, runProcess, withTempDir } from "../_runtime_process.ts";

const CONFIG = join(ROOT, "scripts", "tsconfig.portable.json");
const TSC = bin(process.platform === "win32" ? "tsc.cmd" : "tsc");

/** Runs tsc with `args`; resolves its exit code and combined output. */
async function tsc(args: string[]): Promise<{ code: number | null; output: string }> {
  const r = await runProcess(TSC, args, { killAfterMs: 60_000 });
  return { code: r.code, output: r.stdout + r.stderr };
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
    const adapters = files.filter((f) => f.includes("/src/adapters/"));
    assert.deepEqual(adapters, [], "core code imports runtime adapters (src/adapters/)");
    assert.ok(!files.some((f) => f.includes("/@types/node/")), "@types/node is in the program");
  });

  test("the guard rejects runtime globals and node: imports", { skip: missing }, async () => {
    await withTempDir("portability", async (dir) => {
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
    });
  });
});
