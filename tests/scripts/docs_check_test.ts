// scripts/docs_check.mjs and the Markdown reading it rests on (scripts/_markdown.mjs): which
// blocks it type-checks or runs, the anchors GitHub gives headings, the links it checks, and
// which code spans of a guide name an exported symbol.
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import {
  anchorsOf,
  codeSpans,
  fencedBlocks,
  headingText,
  linksOf,
  proseOf,
  Slugger,
  typescriptBlocks,
} from "../../scripts/_markdown.mjs";
import { checkGuides, denoOnlyProblem, symbolOfCodeSpan } from "../../scripts/docs_check.mjs";
import { memberProblem } from "../../scripts/_api.mjs";

describe("docs_check: TypeScript blocks", () => {
  test("finds a block fenced at column 0, with its fence's line", () => {
    const markdown = "# Title\n```ts\nconst a = 1;\n```\n";
    assert.deepEqual(typescriptBlocks(markdown), [
      { line: 2, indent: 0, code: "const a = 1;\n", mode: "check" },
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
        mode: "check",
      },
      { line: 10, indent: 4, code: "declare const x: number;\n", mode: "ignore" },
    ]);
  });

  test("`ts run` marks a block to run; tildes and longer fences work", () => {
    const markdown = [
      "~~~ts run",
      "console.log(1);",
      "~~~",
      "````ts",
      "const md = `",
      "```ts",
      "`;",
      "````",
    ].join("\n");
    assert.deepEqual(typescriptBlocks(markdown).map((b) => [b.line, b.mode, b.code]), [
      [1, "run", "console.log(1);\n"],
      [4, "check", "const md = `\n```ts\n`;\n"],
    ]);
  });

  test("an unknown word after the language is an error, not a block turned off", () => {
    assert.throws(
      () => typescriptBlocks("text\n```ts runn\nx\n```\n", "docs/a.md"),
      /docs\/a\.md:2: a TypeScript fence takes one of "run" or "ignore".*"runn"/,
    );
    assert.throws(() => typescriptBlocks("```ts run ignore\nx\n```\n"), /"run ignore"/);
  });

  test("leaves other languages alone, indented or not", () => {
    const markdown = "```sh\nnpm test\n```\n  ```json\n  {}\n  ```\n";
    assert.deepEqual(typescriptBlocks(markdown), []);
    assert.deepEqual(fencedBlocks(markdown).map((b) => [b.lang, b.line, b.endLine]), [
      ["sh", 1, 3],
      ["json", 4, 6],
    ]);
  });

  test("an unterminated indented block is an error at its fence's line", () => {
    assert.throws(
      () => typescriptBlocks("text\n\n  ```ts\n  const a = 1;\n", "README.md"),
      /README\.md:3: unterminated code block/,
    );
  });
});

describe("docs_check: Deno-only blocks say so", () => {
  test("a /deno subpath or a Deno API needs a first-line comment naming Deno", () => {
    const loader = 'import { loadFromDefault } from "@kinformer/kinformer/config/deno";\n';
    assert.match(denoOnlyProblem(loader) ?? "", /runs on Deno only/);
    assert.match(denoOnlyProblem("await Deno.writeTextFile('a', 'b');\n") ?? "", /Deno only/);
    assert.equal(
      denoOnlyProblem(`// Deno (Bun, Node: /config/bun, /config/node)\n${loader}`),
      undefined,
    );
    assert.equal(
      denoOnlyProblem("\n  // Deno only: Deno.serve\nDeno.serve(() => new Response());"),
      undefined,
    );
  });

  test("portable blocks, and Deno named only in a comment, need nothing", () => {
    assert.equal(denoOnlyProblem('import { pods } from "@kinformer/kinformer";\n'), undefined);
    assert.equal(denoOnlyProblem("// Deno.serve(handler) works too\nconst x = 1;"), undefined);
    assert.equal(
      denoOnlyProblem('import { loadFromDefault } from "@kinformer/kinformer/config/node";'),
      undefined,
    );
  });
});

describe("docs_check: GitHub's heading anchors", () => {
  const slug = (text: string) => new Slugger().slug(headingText(text));

  test("lower case, punctuation dropped, each space a hyphen", () => {
    assert.equal(slug("Can list+watch lose events?"), "can-listwatch-lose-events");
    assert.equal(
      slug("Building your own informer: the watcher"),
      "building-your-own-informer-the-watcher",
    );
    assert.equal(
      slug("Serverless watchers: checkpoint, resume, catch-up"),
      "serverless-watchers-checkpoint-resume-catch-up",
    );
    assert.equal(slug("a  b"), "a--b");
    assert.equal(slug("1.0 API (decisions)"), "10-api-decisions");
  });

  test("letters of any script and underscores stay; symbols and emoji go", () => {
    assert.equal(slug("Über café"), "über-café");
    assert.equal(slug("snake_case names"), "snake_case-names");
    assert.equal(slug("Fast ⚡ & small"), "fast---small"); // three spaces were left
  });

  test("the rendered text: code spans, links, emphasis and HTML", () => {
    assert.equal(slug("The `events()` iterator"), "the-events-iterator");
    assert.equal(slug("[Guides](docs/README.md) and **more**"), "guides-and-more");
    assert.equal(slug("_Why_ <em>not</em> `__proto__`"), "why-not-__proto__");
  });

  test("repeated headings get -1, -2, ..., counted per original slug", () => {
    const s = new Slugger();
    assert.deepEqual(["Usage", "Usage", "Usage", "Usage-1"].map((t) => s.slug(t)), [
      "usage",
      "usage-1",
      "usage-2",
      "usage-1-1",
    ]);
  });

  test("anchorsOf reads ATX and setext headings and explicit ids, never code blocks", () => {
    const markdown = [
      "# Title #",
      "```sh",
      "# not a heading",
      "```",
      "Second",
      "======",
      "Third",
      "---",
      '<a id="custom-anchor"></a>',
      "## Title",
      "<!-- ## Hidden -->",
      "- item",
      "---",
    ].join("\n");
    assert.deepEqual(anchorsOf(markdown), [
      { anchor: "title", line: 1 },
      { anchor: "second", line: 5 },
      { anchor: "third", line: 7 },
      { anchor: "custom-anchor", line: 9 },
      { anchor: "title-1", line: 10 },
    ]);
  });
});

describe("docs_check: links", () => {
  test("inline links and images, with titles, angle brackets and nested parentheses", () => {
    const markdown = [
      'See [a](docs/a.md#x) and ![pic](docs/p.svg "title") and [b](<docs/b c.md>).',
      "A [wiki](https://en.wikipedia.org/wiki/Foo_(bar)) link, and [split",
      "text](../up.md).",
    ].join("\n");
    assert.deepEqual(linksOf(markdown), [
      { target: "docs/a.md#x", line: 1, kind: "inline" },
      { target: "docs/p.svg", line: 1, kind: "inline" },
      { target: "docs/b c.md", line: 1, kind: "inline" },
      { target: "https://en.wikipedia.org/wiki/Foo_(bar)", line: 2, kind: "inline" },
      { target: "../up.md", line: 3, kind: "inline" },
    ]);
  });

  test("code spans, fenced blocks and comments hold no links", () => {
    const markdown = [
      "`[not](a.md)` and ``[nor](b.md)``",
      "```md",
      "[inside](c.md)",
      "```",
      "<!-- [hidden](d.md) -->",
      "[real](e.md)",
    ].join("\n");
    assert.deepEqual(linksOf(markdown).map((l) => l.target), ["e.md"]);
  });

  test("a stray backtick does not hide the links of the next paragraph", () => {
    const markdown = "A lone ` backtick.\n\n[link](a.md) and `code` and [b](b.md)\n";
    assert.deepEqual(linksOf(markdown).map((l) => l.target), ["a.md", "b.md"]);
  });

  test("reference links: definitions are targets; a label without one is reported", () => {
    const markdown = [
      "[Text][Guide] and [Guide][] and [missing][nowhere]; `x[0][1]` is code.",
      "",
      "[guide]: docs/guide.md",
      '<a href="docs/h.md">h</a> <img src="docs/i.svg" alt="">',
    ].join("\n");
    assert.deepEqual(linksOf(markdown), [
      { target: "nowhere", line: 1, kind: "reference" },
      { target: "docs/guide.md", line: 3, kind: "definition" },
      { target: "docs/h.md", line: 4, kind: "html" },
      { target: "docs/i.svg", line: 4, kind: "html" },
    ]);
  });

  test("code spans: trimmed of one space each side, with their lines", () => {
    const prose = proseOf("Use `createInformer()`\nand `` `x` `` and\n```ts\n`no`\n```\n");
    assert.deepEqual(codeSpans(prose), [
      { line: 1, code: "createInformer()" },
      { line: 2, code: "`x`" },
    ]);
  });
});

describe("docs_check: guides and the API reference", () => {
  const exported = new Map([["createInformer", "cache"], ["KubeClient", "client"], [
    "pods",
    "client",
  ]]);

  test("a code span names a symbol as a name, a call, a constructor or a member", () => {
    assert.equal(symbolOfCodeSpan("createInformer", exported), "createInformer");
    assert.equal(
      symbolOfCodeSpan("createInformer(client, { resource: pods })", exported),
      "createInformer",
    );
    assert.equal(symbolOfCodeSpan("new KubeClient({ server })", exported), "KubeClient");
    assert.equal(symbolOfCodeSpan("KubeClient.list()", exported), "KubeClient");
    assert.equal(symbolOfCodeSpan("informer.start()", exported), undefined);
    assert.equal(symbolOfCodeSpan('{ type: "synced" }', exported), undefined);
    assert.equal(symbolOfCodeSpan("pods, configmaps", exported), undefined);
  });

  test("members: prototype for a class's instance members, none for statics and interfaces", () => {
    const cls = [{
      kind: "class",
      def: { methods: [{ name: "start" }, { name: "from", isStatic: true }], properties: [] },
    }];
    const iface = [{ kind: "interface", def: { methods: [], properties: [{ name: "resource" }] } }];
    assert.equal(memberProblem("C", [], cls), undefined);
    assert.equal(memberProblem("C", ["prototype", "start"], cls), undefined);
    assert.equal(memberProblem("C", ["from"], cls), undefined);
    assert.match(
      memberProblem("C", ["start"], cls) ?? "",
      /no member "start" \(an instance member is C\.prototype\.start\)/,
    );
    assert.match(memberProblem("C", ["prototype", "nope"], cls) ?? "", /no instance member "nope"/);
    assert.equal(memberProblem("I", ["resource"], iface), undefined);
    assert.match(memberProblem("I", ["prototype", "resource"], iface) ?? "", /no instance member/);
  });

  test("a guide's unlinked symbols and the module docs' Guides lists are reported", () => {
    const guide = "docs/no-such-guide.md";
    const text = [
      "# No such guide",
      "Call `createInformer` ([reference](https://jsr.io/@kinformer/kinformer/doc/cache/~/createInformer))",
      "with a `KubeClient` and `createInformer()` again.",
    ].join("\n");
    const modules = [
      {
        subpath: "",
        file: "mod.ts",
        moduleDoc: "",
        symbols: new Map([["createInformer", []], ["KubeClient", []]]),
      },
      {
        subpath: "client",
        file: "src/client/mod.ts",
        moduleDoc: "",
        symbols: new Map([["KubeClient", []]]),
      },
      {
        subpath: "cache",
        file: "src/cache/mod.ts",
        moduleDoc:
          "## Guides\n- [Informers](https://github.com/kinformer/kinformer/blob/main/docs/no-such-guide.md)",
        symbols: new Map([["createInformer", []]]),
      },
    ];
    const result = checkGuides({
      docs: new Map([[guide, { text }]]),
      guides: [guide],
      apiLinks: new Map([[guide, [{ subpath: "cache", name: "createInformer" }]]]),
      modules,
    });
    assert.deepEqual(result.problems, [
      "docs/no-such-guide.md:3: `KubeClient` names KubeClient but the guide never links its " +
      "reference: [`KubeClient`](https://jsr.io/@kinformer/kinformer/doc/client/~/KubeClient)",
      "mod.ts: the module doc's Guides list lacks this guide (the root lists every guide): " +
      "- [No such guide](https://github.com/kinformer/kinformer/blob/main/docs/no-such-guide.md)",
    ]);
    // The cache module's list links a guide that does not exist in this checkout: an error.
    assert.deepEqual(result.errors, [
      "src/cache/mod.ts: its module doc links docs/no-such-guide.md, which does not exist",
    ]);
  });
});
