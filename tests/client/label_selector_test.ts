import { describe, test } from "node:test";
import assert from "node:assert/strict";
import {
  labelSelectorFromObject,
  parseLabelSelector,
  SelectorParseError,
} from "../../src/client/label_selector.ts";

function parseError(text: string): SelectorParseError {
  try {
    parseLabelSelector(text);
  } catch (error) {
    assert.ok(error instanceof SelectorParseError, `expected SelectorParseError, got ${error}`);
    return error;
  }
  assert.fail(`expected ${JSON.stringify(text)} to be rejected`);
}

describe("parseLabelSelector", () => {
  test("the empty selector (and whitespace) selects everything, also objects without labels", () => {
    for (const text of ["", "  "]) {
      const s = parseLabelSelector(text);
      assert.equal(s.isEverything(), true);
      assert.equal(s.matches(undefined), true);
      assert.equal(s.matches({ a: "b" }), true);
      assert.equal(s.toString(), "");
    }
  });

  test("= and == require the key with exactly that value", () => {
    for (const text of ["app=web", "app==web", " app = web "]) {
      const s = parseLabelSelector(text);
      assert.equal(s.matches({ app: "web" }), true, text);
      assert.equal(s.matches({ app: "api" }), false, text);
      assert.equal(s.matches({}), false, text);
      assert.equal(s.matches(undefined), false, text);
    }
  });

  test("!= matches a different value or an absent key", () => {
    const s = parseLabelSelector("app!=web");
    assert.equal(s.matches({ app: "api" }), true);
    assert.equal(s.matches({}), true);
    assert.equal(s.matches({ app: "web" }), false);
  });

  test("an empty value after = selects the empty label value", () => {
    const s = parseLabelSelector("app=");
    assert.equal(s.matches({ app: "" }), true);
    assert.equal(s.matches({}), false);
  });

  test("in requires the key with one of the values; notin matches an absent key", () => {
    const inSel = parseLabelSelector("tier in (web, api)");
    assert.equal(inSel.matches({ tier: "api" }), true);
    assert.equal(inSel.matches({ tier: "db" }), false);
    assert.equal(inSel.matches({}), false);
    const notin = parseLabelSelector("tier notin (web,api)");
    assert.equal(notin.matches({ tier: "db" }), true);
    assert.equal(notin.matches({}), true);
    assert.equal(notin.matches({ tier: "web" }), false);
  });

  test("a bare key requires the key to exist; !key requires it to be absent", () => {
    const exists = parseLabelSelector("canary");
    assert.equal(exists.matches({ canary: "" }), true);
    assert.equal(exists.matches({}), false);
    const absent = parseLabelSelector("! canary");
    assert.equal(absent.matches({}), true);
    assert.equal(absent.matches({ canary: "x" }), false);
  });

  test("> and < compare integer label values", () => {
    const s = parseLabelSelector("replicas>2,replicas<10");
    assert.equal(s.matches({ replicas: "3" }), true);
    assert.equal(s.matches({ replicas: "2" }), false);
    assert.equal(s.matches({ replicas: "x" }), false);
    assert.equal(s.matches({}), false);
  });

  test("comma-separated requirements must all hold", () => {
    const s = parseLabelSelector("app=web,tier in (api),!canary");
    assert.equal(s.matches({ app: "web", tier: "api" }), true);
    assert.equal(s.matches({ app: "web", tier: "api", canary: "1" }), false);
    assert.equal(s.matches({ app: "web" }), false);
  });

  test("prefixed keys are accepted", () => {
    const s = parseLabelSelector("app.kubernetes.io/name=web,example.com/team in (a.b,c_d)");
    assert.equal(s.matches({ "app.kubernetes.io/name": "web", "example.com/team": "c_d" }), true);
  });

  test("toString is canonical: sorted by key, set values sorted and deduplicated", () => {
    const s = parseLabelSelector("z in (b,a,b), a!=1, !m, k, n==2");
    assert.equal(s.toString(), "a!=1,k,!m,n==2,z in (a,b)");
    assert.equal(parseLabelSelector(s.toString()).toString(), s.toString());
    assert.deepEqual(s.requirements.map((r) => r.operator), ["!=", "exists", "!", "==", "in"]);
  });

  test("a key longer than 63 characters is rejected", () => {
    const e = parseError(`${"a".repeat(64)}=x`);
    assert.equal(e.position, 0);
    assert.match(e.message, /63 characters/);
  });

  test("a value longer than 63 characters or with bad characters is rejected at its position", () => {
    assert.equal(parseError(`app=${"v".repeat(64)}`).position, 4);
    const e = parseError("app=-web");
    assert.equal(e.position, 4);
    assert.equal(e.selector, "app=-web");
    assert.equal(e.name, "SelectorParseError");
  });

  test("bad prefixes and names are rejected", () => {
    for (const text of ["Example.com/x=1", "/x=1", "a/=1", "a/b/c=1", "-a=1", "a_=1"]) {
      parseError(text);
    }
  });

  test("syntax errors report where they happen", () => {
    assert.equal(parseError("app in (web").position, 11);
    assert.equal(parseError("app in web").position, 7);
    assert.equal(parseError("app in ()").position, 8);
    assert.equal(parseError("app=web,").position, 8);
    assert.equal(parseError(",app").position, 0);
    assert.equal(parseError("app=a=b").position, 5);
    assert.equal(parseError("app>x").position, 4);
    assert.equal(parseError("app web").position, 4);
  });

  test("non-string input is a TypeError", () => {
    assert.throws(() => parseLabelSelector(3 as unknown as string), TypeError);
  });
});

describe("labelSelectorFromObject", () => {
  test("matchLabels and matchExpressions combine with AND", () => {
    const s = labelSelectorFromObject({
      matchLabels: { app: "web" },
      matchExpressions: [
        { key: "tier", operator: "In", values: ["api", "web"] },
        { key: "env", operator: "NotIn", values: ["dev"] },
        { key: "team", operator: "Exists" },
        { key: "canary", operator: "DoesNotExist" },
      ],
    });
    assert.equal(s.toString(), "app=web,!canary,env notin (dev),team,tier in (api,web)");
    assert.equal(s.matches({ app: "web", tier: "api", team: "x" }), true);
    assert.equal(s.matches({ app: "web", tier: "api", team: "x", env: "dev" }), false);
  });

  test("an empty object selects everything", () => {
    assert.equal(labelSelectorFromObject({}).isEverything(), true);
  });

  test("invalid operators, missing values and bad keys are rejected", () => {
    const bad = [
      { matchExpressions: [{ key: "a", operator: "In" as const, values: [] }] },
      { matchExpressions: [{ key: "a", operator: "Exists" as const, values: ["x"] }] },
      { matchExpressions: [{ key: "a", operator: "Gt" as unknown as "In", values: ["1"] }] },
      { matchLabels: { "bad key": "x" } },
      { matchLabels: { a: "bad value" } },
    ];
    for (const selector of bad) {
      assert.throws(() => labelSelectorFromObject(selector), (e: unknown) => {
        assert.ok(e instanceof SelectorParseError);
        assert.equal(e.position, -1);
        return true;
      });
    }
  });
});
