import { describe, test } from "node:test";
import assert from "node:assert/strict";
import {
  bareParseLines,
  buildWatchBurst,
  byteLineCache,
  ByteLines,
  podFixture,
  stripManagedFields,
} from "../../bench/fixtures.ts";
import { decodeWatchStream } from "../../src/watch/mod.ts";
import type { KubeObject } from "../../src/client/types.ts";

/** Pods as a server would send them (kind, apiVersion, uid, resourceVersion). */
function servedPods(count: number): KubeObject[] {
  return Array.from({ length: count }, (_, i) => {
    const pod = podFixture(i);
    return {
      kind: "Pod",
      apiVersion: "v1",
      ...pod,
      metadata: { ...pod.metadata, uid: `uid-${i}`, resourceVersion: String(100 + i) },
    };
  });
}

function streamOf(chunks: readonly Uint8Array[]): ReadableStream<Uint8Array> {
  let i = 0;
  return new ReadableStream({
    pull(controller) {
      if (i < chunks.length) controller.enqueue(chunks[i++]!);
      else controller.close();
    },
  });
}

describe("bench fixtures", () => {
  test("pods are realistic: 2-4 KB of JSON with managedFields, status and non-ASCII text", () => {
    const sizes = Array.from(
      { length: 50 },
      (_, i) => new TextEncoder().encode(JSON.stringify(podFixture(i))).length,
    );
    for (const size of sizes) assert.ok(size >= 2048 && size <= 4096, `pod of ${size} bytes`);
    const pod = podFixture(0);
    assert.ok(Array.isArray(pod.metadata.managedFields) && pod.metadata.managedFields.length > 0);
    assert.ok(pod.status !== undefined);
    const all = Array.from({ length: 10 }, (_, i) => JSON.stringify(podFixture(i))).join("");
    assert.ok([...all].some((c) => c.charCodeAt(0) > 0x7f), "some non-ASCII text");
  });

  test("a watch burst decodes to the requested MODIFIED events, cycling over the objects", async () => {
    const objects = servedPods(7);
    const before = JSON.stringify(objects);
    const burst = buildWatchBurst(objects, {
      events: 30,
      firstResourceVersion: 1000,
      chunkBytes: 977,
    });
    assert.equal(JSON.stringify(objects), before, "objects are restored after serializing");
    assert.equal(burst.events, 30);
    assert.equal(burst.lastResourceVersion, "1029");
    assert.equal(burst.chunks.reduce((n, c) => n + c.length, 0), burst.bytes);
    assert.ok(
      burst.chunks.slice(0, -1).every((c) => c.length === 977),
      "cut at fixed sizes, mid-line",
    );
    const events = [];
    for await (const ev of decodeWatchStream(streamOf(burst.chunks))) events.push(ev);
    assert.equal(events.length, 30);
    events.forEach((ev, i) => {
      if (ev.type !== "MODIFIED") throw new Error(`expected MODIFIED, got ${ev.type}`);
      const source = objects[i % objects.length]!;
      assert.equal(ev.object.metadata.name, source.metadata.name);
      assert.equal(ev.object.metadata.uid, source.metadata.uid);
      assert.equal(ev.object.metadata.resourceVersion, String(1000 + i));
      assert.notEqual(
        ev.object.metadata.annotations?.["kubernetes.io/config.seen"],
        source.metadata.annotations?.["kubernetes.io/config.seen"],
      );
      const { resourceVersion: _a, annotations: _b, ...rest } = ev.object.metadata;
      const { resourceVersion: _c, annotations: _d, ...sourceRest } = source.metadata;
      assert.deepEqual(rest, sourceRest);
      assert.deepEqual(ev.object.spec, source.spec);
    });
  });

  test("the in-memory baseline parses exactly the events of a burst", () => {
    const burst = buildWatchBurst(servedPods(3), { events: 12, firstResourceVersion: 1 });
    const all = new Uint8Array(burst.bytes);
    let at = 0;
    for (const c of burst.chunks) {
      all.set(c, at);
      at += c.length;
    }
    assert.equal(bareParseLines(all), 12);
  });

  test("ByteLines cuts lines on newline bytes however the chunks split them", () => {
    const text = '{"a":"grüß"}\n\n{"b":2}\n{"c":"✓"}\n';
    const bytes = new TextEncoder().encode(text);
    for (let size = 1; size <= bytes.length; size++) {
      const lines = new ByteLines();
      const got: string[] = [];
      for (let i = 0; i < bytes.length; i += size) {
        lines.push(bytes.subarray(i, i + size), (line) => got.push(new TextDecoder().decode(line)));
      }
      assert.deepEqual(got, ['{"a":"grüß"}', '{"b":2}', '{"c":"✓"}'], `chunks of ${size}`);
    }
  });

  test("byteLineCache parses every event of a burst split anywhere and keeps the objects", async () => {
    const burst = buildWatchBurst(servedPods(3), {
      events: 12,
      firstResourceVersion: 1,
      chunkBytes: 7,
    });
    assert.equal(await byteLineCache(streamOf(burst.chunks), 12), 12);
    assert.equal(
      await byteLineCache(streamOf(burst.chunks), 5),
      5,
      "stops once it has seen enough",
    );
  });

  test("byteLineCache updates the cache it is given, as a cache holding a list does", async () => {
    const listed = servedPods(3);
    const cache = new Map(listed.map((p) => [`${p.metadata.namespace}/${p.metadata.name}`, p]));
    const burst = buildWatchBurst(listed, { events: 6, firstResourceVersion: 10, chunkBytes: 5 });
    assert.equal(await byteLineCache(streamOf(burst.chunks), 6, cache), 6);
    assert.deepEqual(
      [...cache.keys()],
      listed.map((p) => `${p.metadata.namespace}/${p.metadata.name}`),
    );
    assert.deepEqual(
      [...cache.values()].map((p) => p.metadata.resourceVersion),
      ["13", "14", "15"],
      "each pod's object is the last event's",
    );
  });

  test("stripManagedFields drops managedFields and keeps the rest", () => {
    const pod = podFixture(3);
    const copy = structuredClone(pod);
    const stripped = stripManagedFields(pod);
    assert.equal(stripped, pod);
    assert.equal(stripped.metadata.managedFields, undefined);
    delete copy.metadata.managedFields;
    assert.deepEqual(stripped, copy);
  });
});
