// SECURITY.md keeps its promises checkable: every claim (a list item below "What kinformer
// trusts") ends with pointers to the tests that check it, written `tests/<path>_test.ts: "test
// name"` (single quotes when the name holds a double quote). This test fails when a claim has no
// pointer, or a pointer names a file that does not exist or a test (`test`, `it` or `describe`,
// its first argument as written in the source, `${...}` included) that the file does not hold.
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { ROOT } from "../_runtime_process.ts";

/** A pointer from SECURITY.md to a test. */
interface Pointer {
  /** The test file, relative to the repository root. */
  file: string;
  /** The test's name as written in the file (whitespace runs read as one space). */
  name: string;
  /** 1-based line of SECURITY.md where the pointer starts. */
  line: number;
}

/** One space for every run of whitespace (the document wraps lines inside names). */
const squash = (text: string): string => text.replace(/\s+/g, " ").trim();

/** Every `tests/..._test.ts: "name"` (or `'name'`) in `markdown`. */
export function pointersOf(markdown: string): Pointer[] {
  // A test of the library (`tests/...`) or of a workspace package (`packages/<name>/tests/...`).
  const pattern =
    /((?:packages\/[A-Za-z0-9_-]+\/)?tests\/[A-Za-z0-9_./-]+_test\.ts):\s+(?:"([^"]+)"|'([^']+)')/g;
  const pointers: Pointer[] = [];
  for (const match of markdown.matchAll(pattern)) {
    pointers.push({
      file: match[1]!,
      name: squash(match[2] ?? match[3]!),
      line: markdown.slice(0, match.index).split("\n").length,
    });
  }
  return pointers;
}

/** The names of the `test(...)`, `it(...)` and `describe(...)` calls in `source`, as written. */
export function testNamesOf(source: string): Set<string> {
  const pattern = /\b(?:test|it|describe)\(\s*(["'`])((?:\\[\s\S]|(?!\1)[^\\])*)\1/g;
  const names = new Set<string>();
  for (const match of source.matchAll(pattern)) names.add(squash(match[2]!));
  return names;
}

/** A list item of SECURITY.md: where it starts and its text. */
interface Claim {
  line: number;
  text: string;
}

/**
 * The claims of `markdown`: its list items, except those of the sections before "What kinformer
 * trusts" (how to report, how to read). An item runs to the next item, blank line or heading.
 */
export function claimsOf(markdown: string): Claim[] {
  const claims: Claim[] = [];
  let counted = false;
  let current: Claim | undefined;
  markdown.split("\n").forEach((text, i) => {
    if (/^#{1,6} /.test(text)) {
      current = undefined;
      if (/^## /.test(text)) counted = /^## What kinformer trusts/.test(text) || counted;
      return;
    }
    if (/^\s*[-*] /.test(text)) {
      current = { line: i + 1, text };
      if (counted) claims.push(current);
    } else if (text.trim() === "") current = undefined;
    else if (current !== undefined) current.text += `\n${text}`;
  });
  return claims;
}

describe("the SECURITY.md checker", () => {
  test("reads pointers wrapped over lines, in double or single quotes, several per claim", () => {
    const markdown = 'x (tests/a/b_test.ts: "one\n  two"; tests/c_test.ts: \'say "hi"\').\n';
    assert.deepEqual(pointersOf(markdown), [
      { file: "tests/a/b_test.ts", name: "one two", line: 1 },
      { file: "tests/c_test.ts", name: 'say "hi"', line: 2 },
    ]);
  });

  test("reads pointers into a workspace package's tests whole", () => {
    assert.deepEqual(pointersOf('(packages/simulator/tests/server/x_test.ts: "refused")'), [
      { file: "packages/simulator/tests/server/x_test.ts", name: "refused", line: 1 },
    ]);
  });

  test("reads test names as written: quotes of every kind, templates, a name on the next line", () => {
    const source = [
      'test("plain", () => {});',
      "  test('it\\'s', () => {});",
      "test(`${what} is refused`, () => {});",
      'describe("a group", () => {',
      '  it(\n    "on the next line",',
      "  test(name, () => {});", // not a literal: not a name
    ].join("\n");
    assert.deepEqual(
      [...testNamesOf(source)].sort(),
      ["${what} is refused", "a group", "it\\'s", "on the next line", "plain"].sort(),
    );
  });

  test("finds the claims below 'What kinformer trusts', each list item with its lines", () => {
    const markdown = [
      "## Reporting a vulnerability",
      "- not a claim",
      "## What kinformer trusts, and what it does not",
      "- first claim",
      "  goes on",
      "- second claim",
      "",
      "Prose is not a claim.",
      "### Sub",
      "- third",
    ].join("\n");
    assert.deepEqual(claimsOf(markdown), [
      { line: 4, text: "- first claim\n  goes on" },
      { line: 6, text: "- second claim" },
      { line: 10, text: "- third" },
    ]);
  });
});

describe("SECURITY.md", () => {
  test("every claim points to at least one test", async () => {
    const markdown = await readFile(join(ROOT, "SECURITY.md"), "utf8");
    const claims = claimsOf(markdown);
    assert.ok(claims.length >= 50, `only ${claims.length} claims found: is the parser lost?`);
    const bare = claims.filter((c) => pointersOf(c.text).length === 0);
    assert.deepEqual(
      bare.map((c) => `line ${c.line}: ${c.text.slice(0, 80)}`),
      [],
      "claims without a test",
    );
  });

  test("every pointer names a test file that holds a test of that name", async () => {
    const markdown = await readFile(join(ROOT, "SECURITY.md"), "utf8");
    const pointers = pointersOf(markdown);
    assert.ok(pointers.length >= 100, `only ${pointers.length} pointers found`);
    const names = new Map<string, Set<string>>();
    const missing: string[] = [];
    for (const p of pointers) {
      const path = join(ROOT, p.file);
      if (!existsSync(path)) {
        missing.push(`line ${p.line}: ${p.file} does not exist`);
        continue;
      }
      let known = names.get(p.file);
      if (known === undefined) names.set(p.file, known = testNamesOf(await readFile(path, "utf8")));
      if (!known.has(p.name)) missing.push(`line ${p.line}: ${p.file} has no test "${p.name}"`);
    }
    assert.deepEqual(missing, [], "pointers to tests that do not exist");
  });
});
