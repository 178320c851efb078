import { describe, test } from "node:test";
import assert from "node:assert/strict";
import {
  decodeListBody,
  type ListBodyContext,
  type ListItemIdentity,
} from "../../src/client/list_body.ts";
import { KubeClient } from "../../src/client/kube_client.ts";
import { metadataOnly } from "../../src/client/metadata_only.ts";
import { pods } from "../../src/client/resource.ts";
import { podFixture } from "../../src/testing/fixtures.ts";
import { parseJsonObject } from "../../src/client/response_body.ts";
import type { KubeObjectLike } from "../../src/client/types.ts";

const context: ListBodyContext = {
  request: "GET /api/v1/pods",
  path: "/api/v1/pods",
  status: 200,
  resource: pods,
};

const bytes = (text: string): Uint8Array => new TextEncoder().encode(text);

/** A list body with everything a scanner can trip on, in its items and around them. */
const TRICKY = `\ufeff {"kind" : "PodList","apiVersion":"v1",
  "metadata":{"resourceVersion":"9","continue":"a\\"b}]"},
  "items" : [
    {"metadata":{"namespace":"ns","name":"caf\u00e9-\u65e5\u672c","uid":"u1","resourceVersion":"3"},
     "spec":{"note":"braces } ] { [ inside, \\"quoted\\" and \\\\ a backslash","emoji":"\ud83d\ude80",
       "nested":[[1,2,{"a":[]}],{},[],null,true,false,-1.5e3]}},
    {"spec":{"first":true},"metadata":{"name":"p2","uid":"u\\u0032","resourceVersion":"4","namespace":"ns"}} ,
    {"metadata":{}}
  ],
  "extra":{"x":[1,{"y":"]"}]}
}
`;

/** The client's `list` over a body that arrives in two chunks cut at `at`. */
async function listSplit(text: string, at: number): Promise<unknown> {
  const all = bytes(text);
  const client = new KubeClient({
    server: "http://127.0.0.1:8001",
    fetch: () =>
      Promise.resolve(
        new Response(
          new ReadableStream<Uint8Array>({
            start(controller) {
              controller.enqueue(all.slice(0, at));
              controller.enqueue(all.slice(at));
              controller.close();
            },
          }),
        ),
      ),
  });
  return await client.list(pods);
}

/** What the plain path (one text, one JSON.parse) makes of `text`, or its error. */
function plain(text: string): { value?: unknown; error?: Error } {
  try {
    return {
      value: parseJsonObject(new TextDecoder().decode(bytes(text)), "GET /api/v1/pods", 200),
    };
  } catch (error) {
    return { error: error as Error };
  }
}

/**
 * Asserts that `text`, cut in two at every byte, reads as one `JSON.parse` of it does: the same
 * list, or a TypeError with the same message (`label` names the case).
 */
function readsAsPlainAtEveryCut(text: string, label: string): void {
  const all = bytes(text);
  const whole = plain(text);
  for (let at = 0; at <= all.length; at++) {
    const chunks = [all.subarray(0, at), all.subarray(at)];
    if (whole.error === undefined) {
      assert.deepEqual(decodeListBody(chunks, context), listOfPlain(whole.value), text);
      continue;
    }
    assert.throws(() => decodeListBody(chunks, context), (e: unknown) => {
      assert.ok(e instanceof TypeError, `${label} cut at ${at}: ${e}`);
      assert.equal(e.message, whole.error!.message, `${label} cut at ${at}`);
      return true;
    });
  }
}

describe("decodeListBody: a list body cut into items on its bytes", () => {
  test("a body split at every byte offset decodes to exactly what JSON.parse makes of it", async () => {
    const expected = plain(TRICKY).value;
    const total = bytes(TRICKY).length;
    for (let at = 0; at <= total; at++) {
      assert.deepEqual(await listSplit(TRICKY, at), expected, `split at ${at}`);
    }
  });

  test("escapes, braces in strings and multi-byte characters survive per-item decoding", () => {
    const list = decodeListBody(bytes(TRICKY), context);
    const first = list.items[0] as KubeObjectLike & { spec: { note: string; emoji: string } };
    assert.equal(first.metadata?.name, "caf\u00e9-\u65e5\u672c");
    assert.equal(first.spec.note, 'braces } ] { [ inside, "quoted" and \\ a backslash');
    assert.equal(first.spec.emoji, "\u{1F680}");
    assert.equal(list.metadata.continue, 'a"b}]');
    assert.equal(list.items.length, 3);
  });

  test("a body cut short at any offset fails exactly as parsing it whole fails", () => {
    const all = bytes(TRICKY);
    for (let at = 0; at < all.length - 2; at++) {
      const cut = new TextDecoder().decode(all.slice(0, at));
      const expected = plain(cut);
      if (expected.error === undefined) continue; // a prefix that is whole JSON (none here)
      assert.throws(
        () => decodeListBody(all.slice(0, at), context),
        (e: unknown) => {
          assert.ok(e instanceof TypeError, `cut at ${at}: ${e}`);
          assert.equal(e.message, expected.error!.message, `cut at ${at}`);
          assert.equal(
            (e.cause as Error | undefined)?.constructor,
            (expected.error!.cause as Error | undefined)?.constructor,
          );
          return true;
        },
      );
    }
  });

  test("an HTML page, a top-level array, and trailing garbage fail as a whole parse does", () => {
    for (
      const text of ["<html>proxy login</html>", "[]", '{"items":[]} x', '{"items":[{}]]}', ""]
    ) {
      const expected = plain(text).error!;
      assert.throws(() => decodeListBody(bytes(text), context), (e: unknown) => {
        assert.ok(e instanceof TypeError);
        assert.equal(e.message, expected.message);
        return true;
      });
    }
  });

  test("items that are not an array are a TypeError; null or missing items are none", () => {
    assert.throws(
      () => decodeListBody(bytes('{"items":{"a":1}}'), context),
      /GET \/api\/v1\/pods: list answer has non-array items/,
    );
    assert.deepEqual(decodeListBody(bytes('{"items":null}'), context), { items: [], metadata: {} });
    assert.deepEqual(decodeListBody(bytes("{}"), context), { metadata: {}, items: [] });
  });

  test("bodies JSON.parse reads otherwise than key by key take the plain path", () => {
    // A second "items" wins in JSON.parse; "__proto__" is an own key there.
    const twice = decodeListBody(bytes('{"items":[{"a":1}],"items":[{"b":2}]}'), context);
    assert.deepEqual(twice.items, [{ b: 2 }]);
    const proto = decodeListBody(bytes('{"__proto__":{"x":1},"items":[]}'), context);
    assert.ok(Object.hasOwn(proto, "__proto__"));
    const scalars = decodeListBody(bytes('{"items":[1,"two",null]}'), context);
    assert.deepEqual(scalars.items, [1, "two", null]);
  });

  test("each item goes through the reader in order; undefined drops it", () => {
    const seen: string[] = [];
    const list = decodeListBody(bytes(TRICKY), context, {
      item: (o) => {
        seen.push(o.metadata?.name ?? "-");
        return o.metadata?.name === "p2" ? undefined : o.metadata?.name ?? "-";
      },
    });
    assert.deepEqual(seen, ["caf\u00e9-\u65e5\u672c", "p2", "-"]);
    assert.deepEqual(list.items, ["caf\u00e9-\u65e5\u672c", "-"]);
  });

  test("known: an item's identity is read from its bytes; a known item is not decoded", () => {
    const asked: ListItemIdentity[] = [];
    const decoded: string[] = [];
    const held = { metadata: { name: "held" } };
    const list = decodeListBody(bytes(TRICKY), context, {
      item: (o) => {
        decoded.push(o.metadata?.name ?? "-");
        return o;
      },
      known: (identity) => {
        asked.push(identity);
        return identity.uid === "u1" ? held : undefined;
      },
    });
    assert.deepEqual(asked, [
      { namespace: "ns", name: "caf\u00e9-\u65e5\u672c", uid: "u1", resourceVersion: "3" },
      { namespace: "ns", name: "p2", uid: "u2", resourceVersion: "4" }, // \u0032 decoded
    ]); // the third item has no uid: not asked
    assert.deepEqual(decoded, ["p2", "-"]);
    assert.equal(list.items[0], held);
  });

  test("known: the last of duplicate fields wins, as in JSON.parse; escaped keys are not trusted", () => {
    const asked: ListItemIdentity[] = [];
    const known = (identity: ListItemIdentity) => void asked.push(identity);
    decodeListBody(
      bytes(
        '{"items":[{"metadata":{"uid":"old","resourceVersion":"1"},"metadata":{"uid":"new","resourceVersion":"2","resourceVersion":"3"}}]}',
      ),
      context,
      { item: (o) => o, known },
    );
    assert.deepEqual(asked, [{
      namespace: undefined,
      name: undefined,
      uid: "new",
      resourceVersion: "3",
    }]);
    asked.length = 0;
    // "u\u0069d" is "uid" to JSON.parse: the byte-level reading cannot vouch for it.
    decodeListBody(
      bytes('{"items":[{"metadata":{"uid":"a","resourceVersion":"1","u\\u0069d":"b"}}]}'),
      context,
      { item: (o) => o, known },
    );
    assert.deepEqual(asked, []);
    // A uid or resourceVersion that is not a string is no identity either.
    decodeListBody(bytes('{"items":[{"metadata":{"uid":7,"resourceVersion":"1"}}]}'), context, {
      item: (o) => o,
      known,
    });
    assert.deepEqual(asked, []);
  });

  test("a metadata-only list's items are cut to their metadata before the reader sees them", () => {
    const ctx = { ...context, resource: metadataOnly(pods) };
    const list = decodeListBody(bytes(TRICKY), ctx, { item: (o) => o });
    assert.equal(list.kind, "PartialObjectMetadataList");
    assert.deepEqual(Object.keys(list.items[0]!), ["kind", "apiVersion", "metadata"]);
    assert.equal(list.items[0]!.kind, "PartialObjectMetadata");
    // An item that is not an object is left as it is (the plain path), not a TypeError.
    const odd = decodeListBody(bytes('{"items":[null,{"metadata":{"name":"a"},"spec":{}}]}'), ctx);
    assert.deepEqual(odd.items, [null, {
      kind: "PartialObjectMetadata",
      apiVersion: "meta.k8s.io/v1",
      metadata: { name: "a" },
    }]);
  });

  test("a body in 2 or 3 chunks cut at every pair of offsets reads as in one piece", () => {
    // Short, so every pair of cuts runs: escapes, a two-byte, a three-byte and a four-byte
    // character, an item across the cuts, a scalar and a key across the cuts.
    const text =
      '\ufeff{"kind":"L","n":-12.5e1,"items":[{"metadata":{"name":"\u00e9\u65e5","uid":"a\\"b","resourceVersion":"1"}},{"x":"\\\\\ud83d\ude80]"}],"z":true}';
    const all = bytes(text);
    const expected = listOfPlain(plain(text).value);
    const same = (chunks: Uint8Array[], label: string) => {
      assert.deepEqual(decodeListBody(chunks, context), expected, label);
      const asked: ListItemIdentity[] = [];
      const viaKnown = decodeListBody(chunks, context, {
        item: (o) => o,
        known: (identity) => void asked.push(identity),
      });
      assert.deepEqual(viaKnown, expected, label);
      assert.deepEqual(asked, [
        { namespace: undefined, name: "\u00e9\u65e5", uid: 'a"b', resourceVersion: "1" },
      ], label);
    };
    for (let a = 0; a <= all.length; a++) {
      same([all.subarray(0, a), all.subarray(a)], `cut at ${a}`);
      for (let b = a; b <= all.length; b++) {
        same([all.subarray(0, a), all.subarray(a, b), all.subarray(b)], `cuts at ${a}, ${b}`);
      }
    }
  });

  test("long strings (searched, not stepped): escaped quotes and backslash runs at every cut", () => {
    // Strings past the byte-by-byte prefix: quotes preceded by 1, 2 and 3 backslashes (escaped,
    // not, escaped), a backslash run ending a string, a quote right after the prefix.
    const long = "x".repeat(30);
    const values = [
      `${long}\\"${long}`,
      `${long}\\\\${long}`,
      `${long}\\\\\\"${long}`,
      `${long}\\\\`,
      "y".repeat(24),
      `${"z".repeat(23)}\\"`,
    ];
    const text = `{"kind":"L","items":[${
      values.map((v, i) =>
        `{"metadata":{"name":"${v}","uid":"u${i}","resourceVersion":"1"},"v":["${v}","${long}"]}`
      ).join(",")
    }],"z":"${long}\\\\"}`;
    const all = bytes(text);
    const expected = listOfPlain(plain(text).value);
    assert.equal((expected as { items: unknown[] }).items.length, values.length);
    for (let a = 0; a <= all.length; a++) {
      const chunks = [all.subarray(0, a), all.subarray(a)];
      assert.deepEqual(decodeListBody(chunks, context), expected, `cut at ${a}`);
      // `known` is asked for each item: the scanner read them (no fallback to a whole parse).
      const asked: string[] = [];
      const viaKnown = decodeListBody(chunks, context, {
        item: (o) => o,
        known: (identity) => void asked.push(String(identity.uid)),
      });
      assert.deepEqual(viaKnown, expected, `cut at ${a} (known)`);
      assert.deepEqual(asked, values.map((_, i) => `u${i}`), `cut at ${a} (scanned)`);
    }
  });

  test("a body in one-byte chunks reads as in one piece, and fails as in one piece", () => {
    const oneByOne = (text: string) => [...bytes(text)].map((byte) => Uint8Array.of(byte));
    assert.deepEqual(decodeListBody(oneByOne(TRICKY), context), plain(TRICKY).value);
    // Read by the scanner, not the plain path: only the scanner asks `known`.
    const asked: string[] = [];
    decodeListBody(oneByOne(TRICKY), context, {
      item: (o) => o,
      known: (identity) => void asked.push(identity.uid!),
    });
    assert.deepEqual(asked, ["u1", "u2"]);
    const all = bytes(TRICKY);
    for (let at = 0; at < all.length - 2; at += 7) {
      const cut = new TextDecoder().decode(all.slice(0, at));
      assert.throws(
        () => decodeListBody(oneByOne(cut).slice(0, at), context),
        { name: "TypeError", message: plain(cut).error!.message },
        `cut at ${at}`,
      );
    }
  });

  test("a cut body, HTML, a Status, a half byte order mark fail as in one piece at every chunk cut", () => {
    const bodies = [
      '{"items":[{"a":1},{"b":"\u65e5', // cut inside a character's bytes at the end
      "<html><body>Bad gateway</body></html>",
      '{"kind":"Status","apiVersion":"v1","status":"Failure","message":"forbidden","code":403}',
      '{"items":[{"a":1}]}}',
      '{"a":tru,"items":[]}',
      '{"items":[{"a":1},]}',
      "\u00ef\u00bb{}",
    ];
    for (const text of bodies) readsAsPlainAtEveryCut(text, text);
  });

  test("runs of alike items, split at every offset, read as one parse does", () => {
    // Items alike enough that runs are cut at their separator: nested arrays of objects whose
    // first key is the items' first key (a separator inside an item), a separator's bytes in
    // strings, multi-byte characters, a last item unlike the others, pretty-printed or not.
    const items = [
      { metadata: { name: "a", uid: "1" }, spec: { note: '},{"metadata":' } },
      {
        metadata: { name: "b\u00e9" },
        spec: { templates: [{ metadata: { name: "t1" } }, { metadata: {} }] },
      },
      { metadata: { name: "c" }, status: { emoji: "\ud83d\ude80", list: [{}, { metadata: 1 }] } },
      {
        metadata: { name: "d\u65e5" },
        spec: { templates: [{ metadata: { x: "}]" } }, { metadata: null }] },
      },
      { metadata: { name: "e" } },
      { metadata: { name: "f" }, data: '\\\\"},{' },
      { kind: "Odd", metadata: { name: "g" } },
    ];
    for (const indent of [0, 2]) {
      const text = JSON.stringify(
        { kind: "L", metadata: { resourceVersion: "7" }, items },
        null,
        indent,
      );
      const all = bytes(text);
      const expected = listOfPlain(plain(text).value);
      for (let at = 0; at <= all.length; at++) {
        const chunks = [all.subarray(0, at), all.subarray(at)];
        const seen: unknown[] = [];
        const list = decodeListBody(chunks, context, {
          item: (o) => {
            seen.push(o);
            return o;
          },
        });
        assert.deepEqual(list, expected, `indent ${indent}, cut at ${at}`);
        assert.deepEqual(seen, items, `indent ${indent}, cut at ${at}: each item once, in order`);
      }
      for (let at = 0; at < all.length; at += 5) {
        for (let at2 = at; at2 <= all.length; at2 += 11) {
          const chunks = [all.subarray(0, at), all.subarray(at, at2), all.subarray(at2)];
          assert.deepEqual(decodeListBody(chunks, context), expected, `cuts at ${at}, ${at2}`);
        }
      }
    }
  });

  test("items whose first key has an escape read as one parse does", () => {
    const text = '{"items":[{"m\\u0065ta":1},{"m\\u0065ta":2},{"m\\u0065ta":3},{"m\\u0065ta":4}]}';
    const all = bytes(text);
    const expected = listOfPlain(plain(text).value);
    for (let at = 0; at <= all.length; at++) {
      assert.deepEqual(decodeListBody([all.subarray(0, at), all.subarray(at)], context), expected);
    }
  });

  test("a broken item among alike items fails as a whole parse does, at every cut", () => {
    const item = (name: string) => `{"metadata":{"name":"${name}"},"spec":{"a":[1,2]}}`;
    const broken = [
      `{"metadata":{"name":"x"},"spec":{"a":[1,2}}`,
      `{"metadata":{"name":"x"},"spec":tru}`,
      `{"metadata":{"name":"x"},"spec":{"a":"\u65e5"},}`,
      `{"metadata":{"name":"x"},"spec":{"a":"\\q"}}`,
      // Characters above U+00FF where the run's text escapes them: after an invalid escape,
      // outside a string.
      `{"metadata":{"name":"x"},"spec":{"a":"\\\u2013"}}`,
      `{"metadata":{"name":"x"},"spec":\u2013}`,
      `{"metadata":{"name":"x\u0001"}}`,
      `{"metadata":{"name":"x"}}}`,
      `1`,
    ];
    for (const bad of broken) {
      for (const position of [2, 4]) {
        const parts = ["p0", "p1", "p2", "p3", "p4"].map(item);
        parts.splice(position, 0, bad);
        readsAsPlainAtEveryCut(`{"kind":"L","items":[${parts.join(",")}]}`, bad);
      }
    }
  });

  test("an error thrown by the reader in a run of items is the reader's", () => {
    const items = Array.from({ length: 8 }, (_, i) => ({ metadata: { name: `p${i}` } }));
    const all = bytes(JSON.stringify({ items }));
    for (const refusedName of ["p5", "p7"]) { // in a run; the last item, read at the end
      const refused = new Error(`transform refused ${refusedName}`);
      const before = items.map((o) => o.metadata.name).slice(0, Number(refusedName.slice(1)));
      for (let at = 0; at <= all.length; at += 3) {
        const seen: string[] = [];
        assert.throws(
          () =>
            decodeListBody([all.subarray(0, at), all.subarray(at)], context, {
              item: (o) => {
                if (o.metadata?.name === refusedName) throw refused;
                seen.push(o.metadata!.name!);
                return o;
              },
            }),
          (e: unknown) => e === refused,
        );
        assert.deepEqual(seen, before, `cut at ${at}`);
      }
    }
  });

  test("a page of pods in socket-sized chunks reads as one parse does", () => {
    const items = Array.from({ length: 120 }, (_, i) => podFixture(i));
    // A separator inside an item (a nested array of objects with a metadata key first) in many.
    for (let i = 0; i < items.length; i += 7) {
      (items[i]!.spec as Record<string, unknown>).templates = [{ metadata: { name: "x" } }, {
        metadata: { name: "y" },
      }];
    }
    // Items longer than a run (32 KB) in between.
    for (let i = 3; i < items.length; i += 40) {
      items[i]!.metadata!.annotations = { big: "\u00e9x".repeat(15_000 + i) };
    }
    const text = JSON.stringify({ kind: "PodList", apiVersion: "v1", metadata: {}, items });
    const all = bytes(text);
    const expected = listOfPlain(plain(text).value);
    for (const size of [1000, 4096, 16384, 65536, 100_000, all.length]) {
      const chunks: Uint8Array[] = [];
      for (let at = 0; at < all.length; at += size) chunks.push(all.subarray(at, at + size));
      assert.deepEqual(decodeListBody(chunks, context), expected, `chunks of ${size}`);
    }
  });
});

/** What `listOf` makes of a plainly parsed body. */
function listOfPlain(value: unknown): unknown {
  const list = value as Record<string, unknown>;
  return { ...list, metadata: list.metadata ?? {}, items: list.items ?? [] };
}
