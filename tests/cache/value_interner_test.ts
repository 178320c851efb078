import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { ValueInterner } from "../../src/cache/value_interner.ts";
import { podFixture } from "../../src/testing/fixtures.ts";

/** A served pod as JSON text: the fixture plus a uid and resource version of its own. */
function podText(i: number, rv = 1000 + i): string {
  const pod = podFixture(i);
  pod.metadata.uid = `uid-${i}-0000-0000-0000-000000000000`;
  pod.metadata.resourceVersion = String(rv);
  return JSON.stringify(pod);
}

type Pod = ReturnType<typeof podFixture> & {
  spec?: { volumes?: unknown; containers?: { env?: unknown }[] };
};

describe("ValueInterner", () => {
  test("an interned object reads, compares and serializes exactly as the decoded one", () => {
    const interner = new ValueInterner();
    for (let i = 0; i < 50; i++) {
      const text = podText(i);
      const interned = interner.intern(JSON.parse(text));
      assert.deepEqual(interned, JSON.parse(text));
      assert.equal(JSON.stringify(interned), text);
    }
  });

  test("identical subtrees of different objects become one shared, frozen object", () => {
    const interner = new ValueInterner();
    const spec = { containers: [{ name: "web", image: "registry.example.com/web:v1" }] };
    const a = interner.intern({ metadata: { uid: "u-1" }, spec: structuredClone(spec) });
    assert.ok(!Object.isFrozen(a.spec), "not frozen while nothing shares it");
    const b = interner.intern({ metadata: { uid: "u-2" }, spec: structuredClone(spec) });
    assert.equal(b.spec, a.spec);
    assert.ok(Object.isFrozen(a.spec));
    assert.ok(Object.isFrozen(a.spec.containers[0]), "frozen all the way down");
    assert.throws(() => {
      (b.spec.containers[0] as { image: string }).image = "evil";
    }, TypeError);
    assert.ok(!Object.isFrozen(b), "the top-level object is not frozen");
    assert.ok(!Object.isFrozen(b.metadata), "a part holding a unique value is not shared");
  });

  test("repeated strings of 10 or more characters become one string", () => {
    const interner = new ValueInterner();
    const a = interner.intern(JSON.parse('{"a":"registry.example.com/x","uid":"1"}'));
    const b = interner.intern(JSON.parse('{"b":"registry.example.com/x","uid":"2"}'));
    assert.equal(a.a, b.b);
  });

  // `===` compares strings by content: what shows that a later copy is replaced by the first
  // is the write of it in its place.
  test("a later copy of a string of 10 or more characters is replaced in place by the first", () => {
    const interner = new ValueInterner();
    interner.intern(JSON.parse('{"a":"registry.example.com/x","n":["node-name-1",1]}'));
    const { value, writes } = recorded(
      '{"b":"registry.example.com/x","c":"short","n":["node-name-1"]}',
    );
    interner.intern(value);
    // Short strings are shared by the engine. A node is written once walked (when it is kept,
    // not when an equal one replaces it), so the array's item before the top level's key.
    assert.deepEqual(writes, ["0", "b"]);
  });

  test("a new version takes the previous version's copy of each equal string", () => {
    const interner = new ValueInterner();
    const previous = interner.intern(JSON.parse('{"uid":"3f1e0c2a-uid","rv":"1","spec":{"n":1}}'));
    const { value, writes } = recorded('{"uid":"3f1e0c2a-uid","rv":"2","spec":{"n":1}}');
    interner.internLike(value, previous);
    assert.deepEqual(writes, ["uid", "spec"]);
  });

  test("a frozen part (a transform kept a shared part of another object) is left as it is", () => {
    const interner = new ValueInterner();
    interner.intern(JSON.parse('{"image":"registry.example.com/x"}'));
    const frozen = Object.freeze(JSON.parse('{"image":"registry.example.com/x","tag":[]}'));
    const object = { spec: frozen, list: Object.freeze(["registry.example.com/x"]) };
    assert.doesNotThrow(() => interner.intern(object));
    assert.doesNotThrow(() => interner.internLike(structuredClone(object), object));
    assert.equal(object.spec, frozen);
  });

  test("a part replaced by an earlier equal one is not written into: only kept parts are", () => {
    const interner = new ValueInterner();
    interner.intern(JSON.parse('{"spec":{"image":"registry.example.com/x","ports":[{"p":1}]}}'));
    const { value, writes } = recorded(
      '{"spec":{"image":"registry.example.com/x","ports":[{"p":1}]},"uid":"uid-0000000001"}',
    );
    const out = interner.intern(value);
    assert.deepEqual(writes, ["spec"]); // not the image, port or ports of the replaced spec
    assert.ok(Object.isFrozen(out.spec));
  });

  test("random JSON: equal subtrees become one object, frozen exactly when seen twice", () => {
    const random = seeded(33);
    const interner = new ValueInterner();
    const texts = Array.from({ length: 400 }, () => JSON.stringify(randomJson(random, 0)));
    const tops = texts.map((text) => interner.intern({ top: JSON.parse(text), id: 1 }));
    tops.forEach((top, i) => assert.equal(JSON.stringify(top.top), texts[i]));
    // Every subtree under the top level, by content (key order included): its objects and
    // how many places hold it.
    const found = new Map<string, { nodes: Set<object>; places: number }>();
    const walk = (v: unknown): void => {
      if (typeof v !== "object" || v === null) return;
      const key = JSON.stringify(v);
      const entry = found.get(key) ?? { nodes: new Set<object>(), places: 0 };
      entry.nodes.add(v);
      entry.places++;
      found.set(key, entry);
      for (const item of Object.values(v)) walk(item);
    };
    for (const top of tops) {
      assert.ok(!Object.isFrozen(top));
      walk(top.top);
    }
    assert.ok(found.size > 100, `${found.size} distinct subtrees`);
    for (const [key, { nodes, places }] of found) {
      assert.equal(nodes.size, 1, `one object for ${key}`);
      const [node] = nodes;
      assert.equal(Object.isFrozen(node), places > 1, `frozen iff shared: ${key}`);
    }
    // A new version of each: every part equal to the same part of the previous one is it.
    for (const previous of tops.slice(0, 100)) {
      const text = JSON.stringify(previous);
      const next = JSON.parse(text.replace(/"k[0-3]"/, '"k9"'));
      const expected = JSON.stringify(next);
      interner.internLike(next, previous);
      assert.equal(JSON.stringify(next), expected);
      const same = (a: unknown, b: unknown): void => {
        if (typeof a !== "object" || a === null || typeof b !== "object" || b === null) return;
        if (JSON.stringify(a) === JSON.stringify(b) && a !== next) assert.equal(a, b);
        const items = b as Record<string, unknown>;
        for (const [k, item] of Object.entries(a)) {
          if (Object.hasOwn(items, k)) same(item, items[k]);
        }
      };
      same(next, previous);
    }
  });

  test("a transform's getter that throws fails that call only: the interner goes on sharing", () => {
    const interner = new ValueInterner();
    const bad = { spec: { image: "registry.example.com/x" } };
    Object.defineProperty(bad.spec, "broken", {
      enumerable: true,
      get(): never {
        throw new Error("getter failed");
      },
    });
    assert.throws(() => interner.intern(bad), /getter failed/);
    const a = interner.intern({ uid: "a", spec: { image: "registry.example.com/x" } });
    const b = interner.intern({ uid: "b", spec: { image: "registry.example.com/x" } });
    assert.equal(a.spec, b.spec);
  });

  test("key order is part of a subtree's identity", () => {
    const interner = new ValueInterner();
    interner.intern({ x: { a: "1", b: "2" } });
    const other = interner.intern({ x: { b: "2", a: "1" } });
    assert.deepEqual(Object.keys(other.x), ["b", "a"]);
  });

  test("arrays, objects, numbers, booleans and null of equal look stay apart", () => {
    const interner = new ValueInterner();
    const values = [[], {}, [0], ["0"], [false], [null], { a: 1 }, { a: "1" }, { a: true }];
    for (const v of values) interner.intern({ v: structuredClone(v) });
    for (const v of values) {
      assert.deepEqual(interner.intern({ v: structuredClone(v) }), { v });
    }
  });

  test("a subtree changed in place before it was shared is not shared by later equals", () => {
    const interner = new ValueInterner();
    const first = interner.intern({ uid: "a", labels: { app: "web-frontend" } });
    first.labels.app = "changed-in-place";
    const second = interner.intern({ uid: "b", labels: { app: "web-frontend" } });
    assert.notEqual(second.labels, first.labels);
    assert.equal(second.labels.app, "web-frontend");
  });

  test("sharing 500 pods keeps fewer distinct objects than decoding them", () => {
    const interner = new ValueInterner();
    const pods = Array.from({ length: 500 }, (_, i) => interner.intern(JSON.parse(podText(i))));
    const volumes = new Set(pods.map((p: Pod) => p.spec?.volumes));
    assert.equal(volumes.size, 1, "every pod has the same volumes: one list");
    const env = new Set(pods.map((p: Pod) => p.spec?.containers?.[0]?.env));
    assert.equal(env.size, 8, "one env list per app");
    const own = pods.map(() => interner.lastBytes);
    assert.ok(own.every((n) => n > 0));
  });

  test("lastBytes counts only what could not be shared", () => {
    const interner = new ValueInterner();
    interner.intern(JSON.parse(podText(1)));
    const first = interner.lastBytes;
    interner.intern(JSON.parse(podText(1, 5000))); // the same pod, another version
    assert.ok(interner.lastBytes < first / 2, `${interner.lastBytes} vs ${first}`);
  });

  test("internLike shares every part equal to the previous version", () => {
    const interner = new ValueInterner();
    const before = interner.intern(JSON.parse(podText(7)) as Pod);
    const after = JSON.parse(podText(7, 9999)) as Pod;
    const expected = structuredClone(after);
    interner.internLike(after, before);
    assert.deepEqual(after, expected);
    assert.equal(after.spec, before.spec);
    assert.equal(after.status, before.status);
    assert.equal(after.metadata.labels, before.metadata.labels);
    assert.notEqual(after.metadata, before.metadata); // its resourceVersion differs
    assert.ok(Object.isFrozen(before.spec));
    assert.ok(!Object.isFrozen(before.metadata));
  });

  test("internLike keeps added, removed and reordered keys and items", () => {
    const interner = new ValueInterner();
    const before = interner.intern({ a: { x: "1", y: "2" }, list: ["p", "q"], gone: { k: "v" } });
    const after = interner.internLike(
      { a: { y: "2", x: "1" }, list: ["p", "q", "r"], added: { k: "v" } },
      before,
    );
    assert.deepEqual(after, { a: { y: "2", x: "1" }, list: ["p", "q", "r"], added: { k: "v" } });
    assert.deepEqual(Object.keys(after.a), ["y", "x"]);
    assert.notEqual(after.a, before.a);
  });

  test("an object nested deeper than any Kubernetes object is kept as is, without overflow", () => {
    const interner = new ValueInterner();
    let deep: Record<string, unknown> = { leaf: "a-long-string-value" };
    for (let i = 0; i < 100_000; i++) deep = { a: deep };
    const out = interner.intern({ spec: deep });
    assert.equal(out.spec, deep);
  });

  test("the tables stay bounded by their capacity", () => {
    const interner = new ValueInterner({ capacity: 100 }); // 128 entries per table
    for (let i = 0; i < 2_000; i++) interner.intern({ name: `a-unique-name-${i}`, n: { i } });
    assert.ok(interner.size <= 256, `${interner.size} entries`);
    // Values seen again recently are still shared.
    const a = interner.intern({ v: { s: "shared-value-xyz" } });
    const b = interner.intern({ v: { s: "shared-value-xyz" } });
    assert.equal(a.v, b.v);
  });

  test("a value seen regularly stays shared while many new values pass through a full table", () => {
    const interner = new ValueInterner({ capacity: 256 });
    const seen = new Set<unknown>();
    for (let i = 0; i < 20_000; i++) {
      const o = interner.intern({
        uid: `unique-value-${i}`,
        own: { i },
        zone: { name: "europe-west1-b" },
      });
      if (i % 16 === 0) seen.add(o.zone);
    }
    assert.equal(seen.size, 1, "the repeated subtree is one object throughout");
    assert.ok(interner.size <= 512, `${interner.size} entries`);
  });

  test("the tables grow from small ones without forgetting what they hold", () => {
    const interner = new ValueInterner();
    const seen = new Set<unknown>();
    // Enough new subtrees and strings to double both tables several times.
    for (let i = 0; i < 40_000; i++) {
      const o = interner.intern({
        n: { i },
        s: `another-string-${i}`,
        a: { spec: "kept-while-growing" },
      });
      if (i % 64 === 0) seen.add(o.a);
    }
    assert.ok(interner.size > 40_000, `${interner.size} entries: the tables grew`);
    assert.equal(seen.size, 1, "the repeated subtree is one object throughout");
  });

  test("a transform's class instances (a Date, a Map) are kept as they are, never shared", () => {
    const interner = new ValueInterner();
    interner.intern({ spec: { empty: {} }, labels: new Map() });
    const created = new Date("2026-01-01T00:00:00Z");
    const first = interner.intern({ seen: { at: created }, names: new Map([["a", 1]]) });
    assert.equal(first.seen.at, created);
    assert.ok(first.names instanceof Map);
    // A new version: its Date differs from the previous one's, though neither has keys.
    const later = new Date("2026-02-01T00:00:00Z");
    const next = interner.internLike({ seen: { at: later }, names: new Map() }, first);
    assert.equal(next.seen.at, later);
    assert.equal(next.names.size, 0);
  });

  test("a bad capacity is a RangeError naming it", () => {
    assert.throws(() => new ValueInterner({ capacity: 0 }), /capacity/);
  });

  test("a transform's object with a getter or a read-only property is shared around it, without a throw", () => {
    const interner = new ValueInterner();
    /** What a transform might return: a view with a computed (getter-only) field. */
    const view = (name: string): Record<string, unknown> => {
      const o: Record<string, unknown> = {
        metadata: { name, labels: { app: "a-long-label-value" } },
        get node() {
          return "node-pool-a-0001";
        },
      };
      Object.defineProperty(o, "zone", { value: "europe-west1-b", enumerable: true });
      return o;
    };
    const a = interner.intern(view("web-0001"));
    const b = interner.intern(view("web-0002"));
    const c = interner.internLike(view("web-0002"), b);
    for (const o of [a, b, c]) {
      assert.equal(o.node, "node-pool-a-0001");
      assert.equal(o.zone, "europe-west1-b");
    }
    assert.equal(
      (b.metadata as { labels: unknown }).labels,
      (a.metadata as { labels: unknown }).labels,
    );
  });
});

/** `text` parsed, each object and array of it recording the keys written to it (in `writes`). */
function recorded(text: string): { value: Record<string, unknown>; writes: string[] } {
  const writes: string[] = [];
  const wrap = (v: unknown): unknown => {
    if (typeof v !== "object" || v === null) return v;
    const node = v as Record<string, unknown>;
    for (const key of Object.keys(node)) node[key] = wrap(node[key]);
    return new Proxy(node, {
      set(target, key, item): boolean {
        writes.push(String(key));
        target[key as string] = item;
        return true;
      },
    });
  };
  return { value: wrap(JSON.parse(text)) as Record<string, unknown>, writes };
}

/** A seeded generator of numbers in [0, 1) (mulberry32): the same trees on every run. */
function seeded(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state + 0x6d2b79f5) | 0;
    let t = Math.imul(state ^ (state >>> 15), 1 | state);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** A random JSON value from a small vocabulary, so that equal subtrees and strings recur. */
function randomJson(random: () => number, depth: number): unknown {
  const pick = <T>(list: readonly T[]): T => list[Math.floor(random() * list.length)]!;
  const kind = depth >= 4 ? Math.floor(random() * 4) : Math.floor(random() * 7);
  switch (kind) {
    case 0:
      return pick(["a", "short", "", "registry.example.com/web:v1", "node-pool-a-0001"]);
    case 1:
      return pick([0, 1, -1, 2.5, 8080, 1e21]);
    case 2:
      return pick([true, false, null]);
    case 3:
      return `a-rarer-string-${Math.floor(random() * 40)}`;
    case 4:
      return Array.from({ length: Math.floor(random() * 3) }, () => randomJson(random, depth + 1));
    default: {
      const object: Record<string, unknown> = {};
      const keys = ["k0", "k1", "k2", "k3"].sort(() => random() - 0.5);
      for (const key of keys.slice(0, Math.floor(random() * 4))) {
        object[key] = randomJson(random, depth + 1);
      }
      return object;
    }
  }
}
