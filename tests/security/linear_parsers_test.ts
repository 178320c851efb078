// Parsers of untrusted text run in linear time (SECURITY.md "What the library guarantees"):
// label and field selectors, server and proxy URLs, and the redaction of an exec plugin's
// stderr, each fed 400 KB inputs built to make a backtracking regex or a quadratic loop take
// minutes. Only outcomes are asserted (no wall-clock bound): a quadratic parser makes the test
// time out instead. The kubeconfig parser's own cases are in tests/config/kubeconfig_yaml_test.ts.
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import {
  KubeClient,
  parseFieldSelector,
  parseLabelSelector,
  SelectorParseError,
} from "../../src/client/mod.ts";
import {
  type ConfigHost,
  createConfigLoader,
  ExecCredentialError,
  ExecCredentialSource,
} from "../../src/config/mod.ts";
import { kubeconfigJson } from "./_canary.ts";

const N = 400_000;

/** "parsed" or "refused" (with a SelectorParseError), whichever `parse` does with `text`. */
function outcome(parse: (text: string) => unknown, text: string): "parsed" | "refused" {
  try {
    parse(text);
    return "parsed";
  } catch (error) {
    assert.ok(error instanceof SelectorParseError, `not a SelectorParseError: ${error}`);
    return "refused";
  }
}

describe("selectors parse in linear time", () => {
  test("label selectors: long runs of spaces, operators, values and requirements", () => {
    const rows: [string, "parsed" | "refused"][] = [
      [`a${" ".repeat(N)}b`, "refused"],
      [`a in (${"x, ".repeat(N / 3)}`, "refused"],
      [`a notin (${"v,".repeat(N / 2)}v)`, "parsed"],
      [`${"a=b,".repeat(N / 4)}a`, "parsed"],
      [`a=${"b".repeat(N)}`, "refused"],
      [`a${"=".repeat(N)}`, "refused"],
      [",".repeat(N), "refused"],
      ["!".repeat(N), "refused"],
      [`a.b/${"c".repeat(N)}`, "refused"],
      [`${"a.".repeat(N / 2)}b/c`, "refused"],
      [`a in (x)${" ".repeat(N)},b`, "parsed"],
    ];
    for (const [text, expected] of rows) {
      assert.equal(outcome(parseLabelSelector, text), expected, text.slice(0, 40));
    }
  });

  test("field selectors: long runs of escapes, operators and requirements", () => {
    const rows: [string, "parsed" | "refused"][] = [
      [`a=${"\\".repeat(N)}`, "parsed"],
      [`a=${"\\".repeat(N - 1)}`, "refused"],
      [`a=${"\\,".repeat(N / 2)}`, "parsed"],
      [`${"a=b,".repeat(N / 4)}c=d`, "parsed"],
      [`a${"!".repeat(N)}`, "refused"],
      ["=".repeat(N), "refused"],
      [`metadata.name=${"x".repeat(N)}`, "parsed"],
      [`${"a.".repeat(N / 2)}b=c`, "parsed"],
      [`a=${"=".repeat(N)}`, "refused"],
    ];
    for (const [text, expected] of rows) {
      assert.equal(outcome(parseFieldSelector, text), expected, text.slice(0, 40));
    }
  });
});

describe("URLs are checked and redacted in linear time", () => {
  test("server URLs: a run of @, /, ? or : is refused or kept, never backtracked over", () => {
    const refused = [
      `http://${"@".repeat(N)}h`,
      `http://u:${"/".repeat(N)}@h`,
      `http://h${"?".repeat(N)}`,
      `http://h/${"#".repeat(N)}`,
      "a".repeat(N),
      `${"a:".repeat(N / 2)}//h`,
    ];
    for (const server of refused) {
      assert.throws(() => new KubeClient({ server }), TypeError, server.slice(0, 20));
    }
    const kept = `http://h/${"/".repeat(N)}x`;
    assert.doesNotThrow(() => new KubeClient({ server: kept }));
  });

  test("proxy URLs in a kubeconfig: a password full of / or @ is refused at load", async () => {
    for (
      const proxy of [
        `http://u:${"/".repeat(N)}@h`,
        `http://u:${"@".repeat(N)}@h`,
        `http://${"u:".repeat(N / 2)}@h`,
        `http://u:p@${"[".repeat(N)}`,
      ]
    ) {
      const text = kubeconfigJson({ server: "https://h", "proxy-url": proxy }, { token: "t" });
      const host: ConfigHost = {
        runtime: "TestRuntime",
        readFile: () => Promise.resolve(text),
        isNotFound: () => false,
        env: () => undefined,
        pathListSeparator: ":",
      };
      await assert.rejects(
        createConfigLoader(host).loadKubeconfig({ path: "/k" }),
        (error: Error) => /proxy-url/.test(error.message) && error.message.length < 1_000,
      );
    }
  });
});

describe("an exec plugin's stderr is redacted in linear time", () => {
  test("64 KiB and more of text built against each redaction pattern", async () => {
    const stderrs = [
      "-----BEGIN ".repeat(N / 11),
      `-----BEGIN X-----${"-".repeat(N)}`,
      `token${` "'`.repeat(N / 3)},`,
      "token=".repeat(N / 6),
      `eyJ${"a".repeat(N)}`,
      `${"a".repeat(31)}!`.repeat(N / 32),
      `${"eyJa.".repeat(N / 5)}`,
      "x".repeat(N),
    ];
    for (const stderr of stderrs) {
      const source = new ExecCredentialSource({
        exec: {
          command: "plugin",
          apiVersion: "client.authentication.k8s.io/v1",
          interactiveMode: "Never",
        },
        isNotFound: () => false,
        run: (command) => {
          command.onStderr(new TextEncoder().encode(stderr));
          return Promise.resolve({ exitCode: 1, stdout: "" });
        },
      });
      await assert.rejects(
        source.token(),
        (error: unknown) =>
          error instanceof ExecCredentialError && error.code === "Failed" &&
          (error.stderr ?? "").length <= 520,
      );
    }
  });
});
