// The RFC 6455 pieces the node:http adapter speaks (no network here): the accept key, frames
// out, client frames in (split anywhere), the checks of a client's handshake, and how a watch
// body becomes messages and fragments.
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import {
  acceptKey,
  closeFrame,
  encodeFrame,
  FrameReader,
} from "../../../src/adapters/node/_websocket_server.ts";
import { badHandshake } from "../../../src/adapters/_serve_common.ts";
import { MessageJoiner, readMessages } from "../../../src/server/websocket_messages.ts";

/** A client frame: masked with `mask`, as a client must send it. */
function clientFrame(
  opcode: number,
  payload: Uint8Array,
  options: { fin?: boolean; masked?: boolean } = {},
): Uint8Array {
  const masked = options.masked ?? true;
  const mask = new Uint8Array([0x37, 0xfa, 0x21, 0x3d]);
  const length = payload.byteLength;
  const head = length < 126 ? 2 : length < 65536 ? 4 : 10;
  const out = new Uint8Array(head + (masked ? 4 : 0) + length);
  out[0] = ((options.fin ?? true) ? 0x80 : 0) | opcode;
  if (length < 126) out[1] = length;
  else if (length < 65536) {
    out[1] = 126;
    new DataView(out.buffer).setUint16(2, length);
  } else {
    out[1] = 127;
    new DataView(out.buffer).setBigUint64(2, BigInt(length));
  }
  if (masked) {
    out[1]! |= 0x80;
    out.set(mask, head);
    for (let i = 0; i < length; i++) out[head + 4 + i] = payload[i]! ^ mask[i & 3]!;
  } else out.set(payload, head);
  return out;
}

function bodyOf(chunks: string[], fail = false): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder();
  let i = 0;
  return new ReadableStream({
    pull(controller) {
      if (i < chunks.length) controller.enqueue(encoder.encode(chunks[i++]!));
      else if (fail) controller.error(new TypeError("connection reset"));
      else controller.close();
    },
  });
}

describe("RFC 6455 server pieces", () => {
  test("the accept key of RFC 6455's own example", async () => {
    assert.equal(await acceptKey("dGhlIHNhbXBsZSBub25jZQ=="), "s3pPLMBiTxaQ9kYGzzhZRbK+xOo=");
  });

  test("frame headers: 7-bit, 16-bit and 64-bit lengths, FIN and opcode", () => {
    for (const [length, head] of [[0, 2], [125, 2], [126, 4], [65535, 4], [65536, 10]] as const) {
      const frame = encodeFrame(0x1, new Uint8Array(length));
      assert.equal(frame.byteLength, head + length, `length ${length}`);
      assert.equal(frame[0], 0x81);
      assert.equal(frame[1], length < 126 ? length : length < 65536 ? 126 : 127);
    }
    assert.equal(encodeFrame(0x0, new Uint8Array(1), false)[0], 0x00);
    assert.deepEqual([...closeFrame(1000)], [0x88, 2, 0x03, 0xe8]);
  });

  test("client frames are read whatever the chunk boundaries, unmasked", () => {
    const text = new TextEncoder().encode("ping ✓ ".repeat(30));
    const bytes = new Uint8Array([
      ...clientFrame(0x9, new Uint8Array([1, 2, 3])),
      ...clientFrame(0x1, text),
      ...clientFrame(0x8, new Uint8Array([0x03, 0xe8])),
    ]);
    for (let size = 1; size <= bytes.byteLength; size += size < 8 ? 1 : 17) {
      const reader = new FrameReader();
      const frames = [];
      for (let at = 0; at < bytes.byteLength; at += size) {
        frames.push(...reader.push(bytes.subarray(at, at + size)));
      }
      assert.deepEqual(frames.map((f) => f.opcode), [0x9, 0x1, 0x8], `chunks of ${size}`);
      assert.deepEqual([...frames[0]!.payload], [1, 2, 3]);
      assert.deepEqual(frames[1]!.payload, text);
    }
  });

  test("protocol errors: an unmasked client frame (1002), a fragmented or long control frame (1002), an oversized frame (1009)", () => {
    const cases: Array<[Uint8Array, number]> = [
      [clientFrame(0x1, new Uint8Array(3), { masked: false }), 1002],
      [clientFrame(0x9, new Uint8Array(3), { fin: false }), 1002],
      [clientFrame(0x9, new Uint8Array(126)), 1002],
      [clientFrame(0x2, new Uint8Array(70_000)), 1009],
    ];
    for (const [bytes, code] of cases) {
      assert.throws(() => new FrameReader().push(bytes), (thrown: unknown) => thrown === code);
    }
  });

  test("a client's handshake must say version 13 and carry a 16-byte key", () => {
    const ok = new Headers({
      "sec-websocket-version": "13",
      "sec-websocket-key": "dGhlIHNhbXBsZSBub25jZQ==",
    });
    assert.equal(badHandshake(ok), undefined);
    const old = badHandshake(
      new Headers({ ...Object.fromEntries(ok), "sec-websocket-version": "8" }),
    );
    assert.equal(old?.status, 400);
    assert.equal(old?.headers.get("sec-websocket-version"), "13");
    for (const key of ["", "abc", "not base64!"]) {
      const bad = badHandshake(
        new Headers({ "sec-websocket-version": "13", "sec-websocket-key": key }),
      );
      assert.equal(bad?.status, 400, `key ${JSON.stringify(key)}`);
    }
  });
});

describe("watch body to messages", () => {
  test("each line is one message; a chunk that ends mid-line sends a fragment; the end flushes the rest", async () => {
    const sent: Array<[string, boolean]> = [];
    const ended = await readMessages(
      bodyOf(['{"a":1}\n{"b"', ':2}\n{"c":3}\n', '{"d"', ":4}"]),
      (bytes, fin) => void sent.push([new TextDecoder().decode(bytes), fin]),
    );
    assert.equal(ended, "end");
    assert.deepEqual(sent, [
      ['{"a":1}\n', true],
      ['{"b"', false],
      [":2}\n", true],
      ['{"c":3}\n', true],
      ['{"d"', false],
      [":4}", false],
      ["", true],
    ]);
  });

  test("a failed body (a dropped connection) is 'error'; an abort is 'cancelled' and cancels the body", async () => {
    assert.equal(await readMessages(bodyOf(["x\n", "y"], true), () => {}), "error");
    let cancelled = false;
    const body = new ReadableStream<Uint8Array>({
      pull: () => new Promise(() => {}),
      cancel: () => void (cancelled = true),
    });
    const ac = new AbortController();
    const reading = readMessages(body, () => {}, ac.signal);
    ac.abort();
    assert.equal(await reading, "cancelled");
    assert.equal(cancelled, true);
  });

  test("fragments joined back into whole messages, also across a multi-byte character", () => {
    const bytes = new TextEncoder().encode('{"t":"ü€😀"}\n');
    for (let cut = 1; cut < bytes.byteLength - 1; cut++) {
      const joiner = new MessageJoiner();
      assert.equal(joiner.add(bytes.subarray(0, cut), false), undefined);
      assert.equal(joiner.add(bytes.subarray(cut), true), '{"t":"ü€😀"}\n');
    }
  });
});
