import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { RingBuffer } from "../../src/util/ring_buffer.ts";
import { seededRandom as seeded } from "../../src/testing/seeded_random.ts";

describe("RingBuffer", () => {
  test("a new buffer is empty, with a power-of-two capacity of at least the one asked for", () => {
    const rb = new RingBuffer<number>(10);
    assert.equal(rb.length, 0);
    assert.equal(rb.capacity, 16);
    assert.equal(rb.start, 0);
    assert.equal(rb.end, 0);
    assert.equal(rb.shift(), undefined);
    assert.equal(rb.peek(), undefined);
    assert.equal(new RingBuffer<number>(1).capacity, 4);
    assert.equal(new RingBuffer<number>(64).capacity, 64);
  });

  test("a capacity that is not a non-negative finite number is a RangeError", () => {
    for (const bad of [-1, Number.NaN, Infinity, 2 ** 40]) {
      assert.throws(() => new RingBuffer<number>(bad), RangeError, String(bad));
    }
  });

  test("push and shift keep FIFO order and return absolute positions", () => {
    const rb = new RingBuffer<string>(4);
    assert.equal(rb.push("a"), 0);
    assert.equal(rb.push("b"), 1);
    assert.equal(rb.peek(), "a");
    assert.equal(rb.shift(), "a");
    assert.equal(rb.start, 1);
    assert.equal(rb.push("c"), 2);
    assert.deepEqual([...rb], ["b", "c"]);
    assert.equal(rb.end, 3);
  });

  test("FIFO order holds across many grow cycles with interleaved push and shift (seeded model check)", () => {
    for (const seed of [1, 2, 3, 42, 2024]) {
      const random = seeded(seed);
      const rb = new RingBuffer<number>(4);
      const model: number[] = [];
      let next = 0;
      let grows = 0;
      let lastCapacity = rb.capacity;
      for (let step = 0; step < 20_000; step++) {
        // Pushes outweigh shifts early on (so the buffer grows and wraps), then shifts win.
        const pushBias = step < 12_000 ? 0.6 : 0.35;
        if (random() < pushBias) {
          const pos = rb.push(next);
          assert.equal(pos, rb.end - 1);
          model.push(next++);
        } else {
          assert.equal(rb.shift(), model.shift(), `seed ${seed} step ${step}`);
        }
        if (rb.capacity !== lastCapacity) {
          grows++;
          lastCapacity = rb.capacity;
        }
        assert.equal(rb.length, model.length);
        assert.equal(rb.peek(), model[0]);
      }
      assert.ok(grows >= 5, `expected several grow cycles, got ${grows}`);
      assert.deepEqual([...rb], model);
      assert.equal(rb.end - rb.start, model.length);
      while (model.length > 0) assert.equal(rb.shift(), model.shift());
      assert.equal(rb.shift(), undefined);
    }
  });

  test("at and set address items by absolute position after wrap-around and growth", () => {
    const rb = new RingBuffer<string>(4);
    // Wrap around: head moves to the middle of the array, then pushes wrap to slot 0.
    for (let i = 0; i < 3; i++) rb.push(`x${i}`);
    rb.shift();
    rb.shift();
    const positions: number[] = [];
    for (let i = 0; i < 3; i++) positions.push(rb.push(`y${i}`));
    assert.deepEqual(positions, [3, 4, 5]);
    assert.equal(rb.capacity, 4);
    assert.equal(rb.at(2), "x2");
    assert.equal(rb.at(5), "y2");
    // Growth while wrapped keeps every absolute position.
    for (let i = 3; i < 10; i++) positions.push(rb.push(`y${i}`));
    assert.ok(rb.capacity > 4);
    for (let i = 0; i < 10; i++) assert.equal(rb.at(positions[i]!), `y${i}`);
    assert.equal(rb.set(positions[4]!, "changed"), true);
    assert.equal(rb.at(positions[4]!), "changed");
    assert.deepEqual([...rb].slice(0, 6), ["x2", "y0", "y1", "y2", "y3", "changed"]);
  });

  test("at and set refuse positions that already left, never came, or are not integers", () => {
    const rb = new RingBuffer<string>(4);
    rb.push("a");
    rb.push("b");
    rb.shift();
    assert.equal(rb.at(0), undefined, "already shifted");
    assert.equal(rb.at(2), undefined, "not pushed yet");
    assert.equal(rb.at(-1), undefined);
    assert.equal(rb.at(1.5), undefined);
    assert.equal(rb.at(Number.NaN), undefined);
    assert.equal(rb.set(0, "z"), false);
    assert.equal(rb.set(2, "z"), false);
    assert.equal(rb.set(1.5, "z"), false);
    assert.deepEqual([...rb], ["b"]);
  });

  test("positions keep counting across shifts while items move between slots", () => {
    const rb = new RingBuffer<number>(4);
    for (let round = 0; round < 100; round++) {
      const pos = rb.push(round);
      assert.equal(pos, round);
      assert.equal(rb.at(pos), round);
      if (round % 3 !== 0) rb.shift();
    }
    assert.equal(rb.end, 100);
    for (let pos = rb.start; pos < rb.end; pos++) assert.notEqual(rb.at(pos), undefined);
  });

  test("clear drops every item, shrinks the capacity and keeps positions increasing", () => {
    const rb = new RingBuffer<number>(4);
    for (let i = 0; i < 1000; i++) rb.push(i);
    rb.shift();
    assert.ok(rb.capacity >= 1000);
    rb.clear();
    assert.equal(rb.length, 0);
    assert.ok(rb.capacity <= 16);
    assert.equal(rb.start, 1000);
    assert.equal(rb.end, 1000);
    assert.equal(rb.at(999), undefined);
    assert.equal(rb.shift(), undefined);
    assert.equal(rb.push(7), 1000);
    assert.equal(rb.at(1000), 7);
    assert.deepEqual([...rb], [7]);
  });

  test("slots freed by shift are reused before the buffer grows", () => {
    const rb = new RingBuffer<object>(4);
    const item = {};
    const pos = rb.push(item);
    assert.equal(rb.shift(), item);
    assert.equal(rb.at(pos), undefined);
    // The slot is reused for the next item, not leaked: pushing 4 more fits without growth.
    for (let i = 0; i < 4; i++) rb.push({});
    assert.equal(rb.capacity, 4);
  });
});
