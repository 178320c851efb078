import { describe, test } from "node:test";
import assert from "node:assert/strict";
import YAML from "yaml";
import {
  ClusterConfigError,
  KubeconfigParseError,
  parseKubeconfig,
  resolveKubeconfig,
} from "../../src/config/mod.ts";
import { parseKubeconfigYaml } from "../../src/config/kubeconfig_yaml.ts";
import { fixture } from "../fixtures/kubeconfig/helpers.ts";

/** The error `fn` throws (failing when it returns). */
function thrown(fn: () => unknown): unknown {
  try {
    fn();
  } catch (error) {
    return error;
  }
  assert.fail("expected an error");
}

/** Asserts `text` fails to parse at `line` with a reason matching `reason` (and `key`). */
function assertParseError(text: string, line: number, reason: RegExp, key?: string): void {
  const caught = thrown(() => parseKubeconfigYaml(text));
  assert.ok(caught instanceof KubeconfigParseError, `expected a parse error, got ${caught}`);
  assert.equal(caught.name, "KubeconfigParseError");
  assert.equal(caught.line, line, caught.message);
  assert.match(caught.reason, reason);
  assert.ok(caught.message.startsWith(`kubeconfig:${line}:${caught.column}: `), caught.message);
  if (key !== undefined) assert.equal(caught.key, key, caught.message);
}

/** Asserts that no 8-character piece of `secret` appears in the error's text. */
function assertNoSecret(error: unknown, secret: string): void {
  assert.ok(error instanceof Error, String(error));
  const texts = [error.message, String(error.cause ?? "")];
  if (error instanceof KubeconfigParseError) texts.push(error.reason, error.key ?? "");
  for (let i = 0; i + 8 <= secret.length; i++) {
    const piece = secret.slice(i, i + 8);
    for (const text of texts) assert.ok(!text.includes(piece), `leaks ${piece}: ${text}`);
  }
}

describe("parseKubeconfigYaml", () => {
  test("parses kubectl's YAML exactly as kubectl's JSON output of the same config", async () => {
    for (const name of ["embedded", "quoting"]) {
      const yaml = parseKubeconfigYaml(await fixture(`${name}.yaml`));
      const json = JSON.parse(await fixture(`${name}.json`));
      assert.deepEqual(yaml, json, name);
    }
  });

  test("reads quoting kubectl applies: reserved words, indicators, escapes, unicode", async () => {
    const doc = parseKubeconfigYaml(await fixture("quoting.yaml")) as {
      contexts: { name: string }[];
      "current-context": string;
    };
    const names = doc.contexts.map((c) => c.name);
    for (
      const expected of [
        "123",
        "true",
        "null",
        "~",
        "a: b",
        "#x",
        "x #y",
        "é ünï",
        "tab\tin",
        'quote"d',
        "back\\slash",
        "*star",
        "&amp",
        "!bang",
        "|pipe",
        ">gt",
        "it's",
        " leading",
        "trailing ",
        "0x1F",
        ".inf",
        "2024-01-01",
      ]
    ) {
      assert.ok(names.includes(expected), `missing context name ${JSON.stringify(expected)}`);
    }
    assert.equal(doc["current-context"], "a: b");
  });

  test("reads a hand-edited kubeconfig as the yaml package does", async () => {
    const text = await fixture("hand-edited.yaml");
    assert.deepEqual(parseKubeconfigYaml(text), YAML.parse(text));
    const config = parseKubeconfig(text);
    assert.deepEqual(config.clusters[0], {
      name: "dev",
      server: "https://127.0.0.1:6443",
      insecureSkipTlsVerify: true,
    });
    assert.deepEqual(config.users[1]?.exec, {
      command: "gke-gcloud-auth-plugin",
      args: ["--use_application_default_credentials", "--verbosity=2"],
      env: [{ name: "FOO", value: "bar" }, { name: "EMPTY", value: "" }],
      apiVersion: "client.authentication.k8s.io/v1beta1",
      installHint: "Install the plugin:\n  gcloud components install gke-gcloud-auth-plugin\n",
      provideClusterInfo: true,
    });
    assert.equal(resolveKubeconfig(config).token, "abc.def.ghi");
    const prod = resolveKubeconfig(config, { context: "prod" });
    assert.equal(prod.caData, "-----BEGIN CERTIFICATE-----\nMIIBfake\n-----END CERTIFICATE-----\n");
  });

  test("folds multi-line plain, single-quoted and double-quoted scalars", () => {
    const value = parseKubeconfigYaml([
      "plain: one two",
      "  three",
      "",
      "  four",
      "single: 'it''s",
      "   folded'",
      'double: "a\\',
      "  b  \\t",
      "",
      '  c"',
      'escaped: "x\\',
      "",
      '  y"',
      "after: x",
    ].join("\n"));
    assert.deepEqual(value, {
      plain: "one two three\nfour",
      single: "it's folded",
      double: "ab  \t\nc",
      // YAML 1.2 (and libyaml, so kubectl): the empty line after an escaped break is kept.
      escaped: "x\ny",
      after: "x",
    });
  });

  test("reads flow mappings and sequences, nested and over several lines", () => {
    const value = parseKubeconfigYaml([
      "context: {cluster: c, user: u}",
      "args: [a, 'b c', \"d\", 1, true, null, -x, a:b]",
      "nested: {list: [1, [2, {x: y}]], empty: {}, none: []}",
      'json: {"a":1, "b":[true]}',
      "keys-only: {a, b: }",
      "multi: [",
      "    one,   # a comment",
      "    two",
      "    words,",
      "  ]",
    ].join("\n"));
    assert.deepEqual(value, {
      context: { cluster: "c", user: "u" },
      args: ["a", "b c", "d", 1, true, null, "-x", "a:b"],
      nested: { list: [1, [2, { x: "y" }]], empty: {}, none: [] },
      json: { a: 1, b: [true] },
      "keys-only": { a: null, b: null },
      multi: ["one", "two words"],
    });
    assert.deepEqual(parseKubeconfigYaml("[a, b]\n"), ["a", "b"]);
    assert.deepEqual(parseKubeconfigYaml("{a: 1} # yaml, not JSON\n"), { a: 1 });
    assert.deepEqual(parseKubeconfigYaml("- {a: 1}\n- [b, c,]\n"), [{ a: 1 }, ["b", "c"]]);
  });

  const blockScalars: [string, string, string][] = [
    ["a literal scalar keeps line breaks and clips to one", "a: |\n  x\n   y\n\n", "x\n y\n"],
    ["`|-` strips the final line break", "a: |-\n  x\n  y\n\n", "x\ny"],
    ["`|+` keeps every final line break", "a: |+\n  x\n\n\n", "x\n\n\n"],
    [
      "a folded scalar joins lines with a space",
      "a: >\n  one\n  two\n\n  three\n",
      "one two\nthree\n",
    ],
    [
      "a folded scalar keeps breaks around more-indented lines",
      "a: >\n  x\n    y\n  z\n",
      "x\n  y\nz\n",
    ],
    ["an indentation indicator keeps leading spaces", "a: |2\n    x\n   y\n", "  x\n y\n"],
    ["indicators in either order", "a: >-1\n  x\nb: |1+\n  y\n\n", " x"],
    ["an empty block scalar", "a: |\nb: 1\n", ""],
    ["a block scalar in a sequence", "- |\n  x\n- >-\n  y\n  z\n", "x\n"],
    ["a comment after the header", "a: | # comment\n  # not a comment\n", "# not a comment\n"],

    ["a block scalar at the root", "|\nx\n y\n", "x\n y\n"],
  ];
  test("reads a block scalar that ends the text without a line break as YAML 1.2 says", () => {
    // b-chomped-last: the end of the text stands in for the last line break, so no line feed
    // is added (libyaml and go-yaml, hence kubectl, agree; the yaml package adds one). A
    // `token: |` on the last line without a newline must not gain one.
    assert.deepEqual(parseKubeconfigYaml("token: |\n  abc"), { token: "abc" });
    assert.deepEqual(parseKubeconfigYaml("a: |+\n  x\n\n  "), { a: "x\n\n" });
    assert.deepEqual(parseKubeconfigYaml("a: >\n  x\n  y"), { a: "x y" });
  });

  test("follows YAML 1.2 and libyaml (so kubectl) where the yaml package reads otherwise", () => {
    // A lone CR is a line break (b-break); yaml keeps it as text.
    assert.deepEqual(parseKubeconfigYaml("a: 1\rb: [x,\r  y]\r"), { a: 1, b: ["x", "y"] });
    // With an explicit indentation, spaces past it on a blank-looking line are text.
    assert.deepEqual(parseKubeconfigYaml("a: |2-\n   \nb: 1\n"), { a: " ", b: 1 });
    // Empty lines after an escaped line break are line feeds (l-empty in s-double-escaped).
    assert.deepEqual(parseKubeconfigYaml('a: "x\\\n\n  y"\n'), { a: "x\ny" });
  });

  for (const [what, text, first] of blockScalars) {
    test(`reads block scalars: ${what}`, () => {
      const value = parseKubeconfigYaml(text);
      const got = Array.isArray(value)
        ? value[0]
        : typeof value === "string"
        ? value
        : (value as Record<string, unknown>)["a"];
      assert.equal(got, first);
      assert.deepEqual(value, YAML.parse(text), "the yaml package reads it the same way");
    });
  }

  test("resolves null, booleans and numbers by the YAML 1.2 core schema", () => {
    const value = parseKubeconfigYaml([
      "a: null",
      "b: ~",
      "c:",
      "d: true",
      "e: False",
      "f: 42",
      "g: -1.5e3",
      "h: 0x1F",
      "i: 0o17",
      "j: 12345678901234567890",
      "k: yes",
      "l: '42'",
      'm: ""',
      "n: .inf",
      "o: [1, 0x10, ~, False, '1']",
    ].join("\n"));
    assert.deepEqual(value, {
      a: null,
      b: null,
      c: null,
      d: true,
      e: false,
      f: 42,
      g: -1500,
      h: 31,
      i: 15,
      j: "12345678901234567890",
      k: "yes",
      l: "42",
      m: "",
      n: Infinity,
      o: [1, 16, null, false, "1"],
    });
  });

  test("reads indented and nested sequences, `-` on its own line, comments, --- and CRLF", () => {
    const text = [
      "\ufeff---  # start",
      "# comment",
      "list:",
      "  - a  # trailing comment",
      "  -",
      "    b: 1",
      "    c: 'x # not a comment'",
      "  - - x",
      "    - y",
      "  -",
      "same-level:",
      "- k: v",
      "  other: w",
      "url: https://h:1/p?x=1&y=#frag",
      "empty-map: {}",
      "empty-list: [ ]",
      "tab:\tafter-colon",
      "tab-inside: x\ty",
    ].join("\r\n");
    assert.deepEqual(parseKubeconfigYaml(text), {
      list: ["a", { b: 1, c: "x # not a comment" }, ["x", "y"], null],
      "same-level": [{ k: "v", other: "w" }],
      url: "https://h:1/p?x=1&y=#frag",
      "empty-map": {},
      "empty-list": [],
      tab: "after-colon",
      "tab-inside": "x\ty",
    });
  });

  test("reads an empty document as null and `{}` as an empty mapping", () => {
    assert.equal(parseKubeconfigYaml(""), null);
    assert.equal(parseKubeconfigYaml("# only a comment\n\n"), null);
    assert.deepEqual(parseKubeconfigYaml("{}\n"), {});
  });

  test("keeps a `__proto__` key as an own property", () => {
    for (const text of ["__proto__:\n  polluted: true\n", "{__proto__: {polluted: true}}"]) {
      const value = parseKubeconfigYaml(text) as Record<string, unknown>;
      assert.ok(Object.hasOwn(value, "__proto__"), text);
      assert.equal(({} as Record<string, unknown>)["polluted"], undefined);
    }
  });

  test("reads a JSON kubeconfig (JSON is YAML)", async () => {
    const json = await fixture("embedded.json");
    assert.deepEqual(parseKubeconfigYaml(json), JSON.parse(json));
  });

  test("reports a JSON syntax error with its line and column, not JSON.parse's message", () => {
    const caught = thrown(() => parseKubeconfigYaml('{\n  "a": 1,\n  "b": ]\n}\n'));
    assert.ok(caught instanceof KubeconfigParseError);
    assert.equal(caught.line, 3);
    assert.equal(caught.column, 8);
    assert.equal(caught.cause, undefined);
    assert.match(caught.reason, /cannot start with `]`/);
  });

  const refused: [string, string, number, RegExp, string?][] = [
    ["an anchor", "users:\n- name: &me alice\n", 2, /anchors/, "users[0].name"],
    ["an alias", "a: 1\nb: *x\n", 2, /aliases/],
    ["a tag", "a: !!str 1\n", 1, /tags/],
    ["a tag in a flow collection", "args: [a, !t b]\n", 1, /tags/, "args[1]"],
    ["an anchor on a key", "&k a: 1\n", 1, /anchors/],
    ["a second document", "a: 1\n---\nb: 2\n", 2, /several YAML documents/],
    ["a document end marker", "a: 1\n...\n", 2, /several YAML documents/],
    ["content on the `---` line", "--- a: 1\n", 1, /after `---`/],
    ["a directive", "%YAML 1.2\n---\na: 1\n", 1, /directives/],
    ["tab indentation", "a:\n\tb: 1\n", 2, /tab/],
    ["a tab before a nested mapping", "-\ta: 1\n", 1, /tab/],
    ["a duplicate key", "a: 1\na: 2\n", 2, /duplicate key/],
    [
      "a duplicate key in a flow mapping",
      "user: {token: a, token: b}\n",
      1,
      /duplicate/,
      "user.token",
    ],
    ["a complex key", "? a\n: b\n", 1, /complex mapping keys/],
    ["a flow collection as a key", "{a: 1}: b\n", 1, /complex key/],
    ["a pair inside a flow sequence", "[a: b]\n", 1, /directly inside `\[...\]`/],
    ["an unclosed flow collection", "a: [b,\n  c\n", 1, /never closed/, "<key>"],
    ["a flow line not indented past its key", "a:\n  b: [x,\n  y]\n", 3, /indented more/],
    ["an empty flow entry", "[a, , b]\n", 1, /empty entry/],
    ["text after a flow collection", "a: [b] c\n", 1, /after a flow collection/],
    ["an unclosed quote", "a: 'x\nb: 1\n", 2, /indented more/],
    ["a quoted line indented with a tab", "a:\n  b: 'x\n\t   y'\n", 3, /indented more/],
    ["a flow line indented with a tab", "a:\n  b: [x,\n\t   y]\n", 3, /indented more/],
    ["a quote never closed at the end", "a: 'x\n  y\n", 1, /never closed/],
    ["an unknown escape", 'a: "\\q"\n', 1, /unknown or malformed escape/],
    ["a malformed hex escape", 'a: "\\x4G"\n', 1, /unknown or malformed escape/],
    ["text after a quoted value", "a: 'x' y\n", 1, /after a quoted value/],
    ["a mapping value inside a plain value", "a: b: c\n", 1, /`: `/],
    ["a sequence on its key's line", "a: - x\n", 1, /same line as its key/],
    ["a deeper line inside a mapping", "a: 1\n  b: 2\n", 2, /`: `|indentation/],
    ["a less indented line", "a:\n    b: 1\n  c: 2\n", 3, /indentation/],
    ["a mapping entry after a sequence item", "a:\n  - x\n  y: 1\n", 3, /indentation/],
    ["a reserved indicator", "a: @x\n", 1, /reserved/],
    ["a bad block scalar header", "a: |x\n  y\n", 1, /block scalar header/],
    ["a longer empty line before a block scalar's text", "a: |\n    \n  x\n", 1, /leading empty/],
    ["a tab in a block scalar's indentation", "a:\n b: |2\n    x\n  \ty\n", 4, /tab where/],
    [
      "nesting deeper than 64 levels",
      "a: " + "[".repeat(65) + "x" + "]".repeat(65),
      1,
      /deeper than 64/,
    ],
    ["nested block sequences deeper than 64 levels", "- ".repeat(65) + "x\n", 1, /deeper than 64/],
  ];
  for (const [what, text, line, reason, key] of refused) {
    test(`refuses ${what} with its line number`, () => {
      assertParseError(text, line, reason, key);
    });
  }
});

describe("parseKubeconfigYaml in linear time", () => {
  // The old parser trimmed with /[ \t]+$/-style patterns, which backtrack over every run of
  // spaces: 200 KB took 32 s and these inputs would take minutes. Only the results are
  // asserted; a quadratic parser makes the test time out instead.
  const run = " ".repeat(400_000);
  const cases: [string, string, unknown][] = [
    ["spaces inside a plain value", `a: b${run}c\n`, { a: `b${run}c` }],
    ["spaces inside a plain key", `a${run}b: c\n`, { [`a${run}b`]: "c" }],
    ["spaces before a colon", `a${run}: c\n`, { a: "c" }],
    ["spaces before a comment", `a: b${run}# c${run}\n`, { a: "b" }],
    ["spaces at the end of lines", `a: b${run}\nc: d${run}\n`, { a: "b", c: "d" }],
    ["spaces and tabs", `a: b${"\t ".repeat(200_000)}c\n`, { a: `b${"\t ".repeat(200_000)}c` }],
    ["spaces in a flow sequence", `a: [b${run}c${run}, d${run}]\n`, { a: [`b${run}c`, "d"] }],
    ["spaces in a flow mapping key", `{a${run}b${run}: c}`, { [`a${run}b`]: "c" }],
    [
      "spaces before the line breaks of a quoted value",
      `a: 'x${run}\n  y${run}\n  z'\n`,
      { a: "x y z" },
    ],
    [
      "blank lines of spaces in a plain value",
      `a: b\n${(" ".repeat(4000) + "\n").repeat(100)}  c\n`,
      {
        a: `b${"\n".repeat(100)}c`,
      },
    ],
    ["long lines in a block scalar", `a: |\n${("  x" + " ".repeat(4000) + "\n").repeat(100)}`, {
      a: ("x" + " ".repeat(4000) + "\n").repeat(100),
    }],
    ["a long one-line flow mapping", `{a: b${run}, c: [1${run}, 2]}`, { a: "b", c: [1, 2] }],
  ];
  for (const [what, text, expected] of cases) {
    test(`reads ${what}`, () => {
      assert.deepEqual(parseKubeconfigYaml(text), expected);
    });
  }

  test("refuses broken long inputs in linear time too", () => {
    for (
      const text of [
        `a: b${run}: c\n`,
        `a: "x${run}\\q"\n`,
        `{"token": "abc"${run} x}`,
        `a: ${":".repeat(400_000)}\n`,
        "[".repeat(400_000),
        `a: '${"x\n ".repeat(100_000)}`,
      ]
    ) {
      assert.ok(thrown(() => parseKubeconfigYaml(text)) instanceof KubeconfigParseError);
    }
  });
});

describe("parse errors never show a value", () => {
  const secret = "s3cr3tT0kenQx7Zp9LmW2vB8";

  const cases: [string, string, number, string | undefined][] = [
    [
      "a one-line JSON kubeconfig",
      `{"users":[{"name":"u","user":{"token":"${secret}","client-key-data":"${secret}"}}],"x":]}`,
      1,
      "<key>",
    ],
    [
      "a flow mapping",
      `users: [{name: u, user: {token: ${secret}, password: &p ${secret}}}]\n`,
      1,
      "users[0].user.password",
    ],
    [
      "a folded plain line",
      `users:\n- name: u\n  user:\n    token: ${secret}\n      ${secret}: x\n`,
      5,
      "users[0].user.token",
    ],
    [
      "an exec env value",
      `users:\n- name: u\n  user:\n    exec:\n      env:\n      - name: A\n        value: "${secret}\\q"\n`,
      7,
      "users[0].user.exec.env[0].value",
    ],
    ["`Token` in another case", `Token: ${secret}: x\n`, 1, "Token"],
    ["`TOKEN` quoted with text after it", `TOKEN: '${secret}' ${secret}\n`, 1, "TOKEN"],
    ["an unclosed client-key-data", `client-key-data: "${secret}\n`, 1, "client-key-data"],
    ["a password with a tab-indented line", `password: ${secret}\n\t${secret}: 1\n`, 2, undefined],
    ["a secret where a key should be", `${secret}: 1\n${secret}: 2\n`, 2, "<key>"],
    ["a secret in a block scalar header", `token: |${secret}\n  x\n`, 1, "token"],
    ["a secret in a bad JSON escape", `{"password": "${secret}\\u12"}`, 1, "password"],
    ["a secret in a multi-line key", `"${secret}\n  x": 1\n`, 2, undefined],
  ];
  for (const [what, text, line, key] of cases) {
    test(`in ${what}`, () => {
      const caught = thrown(() => parseKubeconfigYaml(text));
      assert.ok(caught instanceof KubeconfigParseError, String(caught));
      assert.equal(caught.line, line, caught.message);
      assert.equal(caught.key, key, caught.message);
      assertNoSecret(caught, secret);
      assertNoSecret(caught.withPath("/home/me/.kube/config"), secret);
    });
  }

  test("nor do kubeconfig errors about a credential's or a URL's value", () => {
    const config = (cluster: Record<string, unknown>): string =>
      JSON.stringify({
        clusters: [{ name: "c", cluster: { server: "https://h", ...cluster } }],
        contexts: [{ name: "x", context: { cluster: "c" } }],
        "current-context": "x",
      });
    for (
      const text of [
        config({ "insecure-skip-tls-verify": secret }),
        config({ server: `ftp://user:${secret}@h` }),
        config({ server: `https://user:${secret}@h:bad-port` }),
        config({ "certificate-authority-data": `%${secret}` }),
        config({ "certificate-authority-data": btoa(secret) }),
      ]
    ) {
      const caught = thrown(() => resolveKubeconfig(parseKubeconfig(text)));
      assert.ok(caught instanceof ClusterConfigError, String(caught));
      assert.equal(caught.code, "InvalidKubeconfig");
      assertNoSecret(caught, secret);
      assertNoSecret(caught, btoa(secret));
    }
  });
});

describe("KubeconfigParseError", () => {
  test("withPath keeps the line, column and key and names the file", () => {
    const caught = thrown(() => parseKubeconfigYaml("users:\n- name: x\n  user: {token: &t a}\n"));
    assert.ok(caught instanceof KubeconfigParseError);
    const named = caught.withPath("/k/config");
    assert.equal(
      named.message,
      "/k/config:3:17: anchors (`&name`) are not supported (at users[0].user.token)",
    );
    assert.deepEqual([named.line, named.column, named.key, named.path], [
      3,
      17,
      "users[0].user.token",
      "/k/config",
    ]);
  });
});
