// scripts/readme_check.mjs: which blocks of README.md it type-checks. A block inside a list item
// is indented; it must be found (its indentation stripped), not silently skipped.
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { typescriptBlocks } from "../../scripts/readme_check.mjs";

describe("readme_check typescriptBlocks", () => {
  test("finds a block fenced at column 0, with its fence's line", () => {
    const markdown = "# Title\n```ts\nconst a = 1;\n```\n";
    assert.deepEqual(typescriptBlocks(markdown), [
      { line: 2, indent: 0, code: "const a = 1;\n", ignored: false },
    ]);
  });

  test("finds an indented block (a list item's) and strips the fence's indentation", () => {
    const markdown = [
      "- **In production**, turn it on:",
      "",
      "  ```ts",
      "  const informer = createInformer(client, {",
      "    resource: pods,",
      "",
      "  });",
      "  ```",
      "",
      "    ```typescript ignore",
      "    declare const x: number;",
      "    ```",
    ].join("\n");
    assert.deepEqual(typescriptBlocks(markdown), [
      {
        line: 3,
        indent: 2,
        code: "const informer = createInformer(client, {\n  resource: pods,\n\n});\n",
        ignored: false,
      },
      { line: 10, indent: 4, code: "declare const x: number;\n", ignored: true },
    ]);
  });

  test("leaves other languages alone, indented or not", () => {
    const markdown = "```sh\nnpm test\n```\n  ```json\n  {}\n  ```\n";
    assert.deepEqual(typescriptBlocks(markdown), []);
  });

  test("an unterminated indented block is an error at its fence's line", () => {
    assert.throws(
      () => typescriptBlocks("text\n\n  ```ts\n  const a = 1;\n"),
      /README\.md:3: unterminated code block/,
    );
  });
});
