import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { serverWriteTime } from "../../src/cache/event_lag.ts";
import type { KubeObject } from "../../src/client/types.ts";

/** A pod whose managedFields carry these times (undefined: an entry without one). */
function stamped(...times: unknown[]): KubeObject {
  const managedFields = times.map((time, i) => (time === undefined ? { manager: `m${i}` } : {
    manager: `m${i}`,
    time,
  }));
  return { metadata: { name: "a", managedFields } } as KubeObject;
}

/** What `serverWriteTime` must equal: every time parsed, the newest that parses. */
function newestParsed(times: unknown[]): number | undefined {
  let newest: number | undefined;
  for (const time of times) {
    if (typeof time !== "string") continue;
    const ms = Date.parse(time);
    if (!Number.isNaN(ms) && (newest === undefined || ms > newest)) newest = ms;
  }
  return newest;
}

describe("serverWriteTime", () => {
  test("is the newest time that parses, whatever the forms", () => {
    const cases: unknown[][] = [
      [],
      [undefined],
      ["2026-01-01T00:00:09Z", "2026-01-01T00:00:03Z", undefined],
      ["2026-01-01T00:00:03Z", "2026-01-01T00:00:09Z"],
      // Other forms than the server's: fractions, offsets, a lower-case z.
      ["2026-01-01T00:00:03Z", "2026-01-01T00:00:03.5Z"],
      ["2026-01-01T00:00:03Z", "2026-01-01T01:00:00+02:00"],
      ["2026-01-01T00:00:03z", "2026-01-01T00:00:02Z"],
      // A later day of the month that Date.parse rolls over past the 1st of the next month.
      ["2026-03-01T00:00:00Z", "2026-02-30T00:00:00Z"],
      ["2026-02-28T00:00:00Z", "2026-02-31T00:00:00Z", "2026-03-02T00:00:00Z"],
      // Server-shaped text that does not parse: the others decide.
      ["2026-13-01T00:00:00Z", "2026-01-01T00:00:03Z"],
      ["2026-01-01T00:00:60Z", "2026-01-01T00:00:03Z"],
      ["2026-13-01T00:00:00Z"],
      ["not a time", 5, null],
      ["2026-01-01T24:00:00Z", "2026-01-01T23:59:59Z"],
      ["2026-01-01T24:00:00Z", "2026-01-02T00:00:00Z", "2026-01-01T24:00:01Z"],
      // Years under 100 (which Date.UTC would read as 19xx), text where digits belong.
      ["0099-06-01T00:00:00Z", "0050-01-01T00:00:00Z"],
      ["2026-0a-01T00:00:00Z", "2026-01-01T00:00:00Z"],
      ["2026-01-01T00:00:00Z", "2026-01-01 00:00:01Z"],
      ["1970-01-01T00:00:00Z", "9999-12-28T23:59:59Z"],
    ];
    for (const times of cases) {
      assert.equal(serverWriteTime(stamped(...times)), newestParsed(times), JSON.stringify(times));
    }
  });

  test("consecutive calls give each its own value", () => {
    const first = serverWriteTime(stamped("2026-01-01T00:00:01Z"));
    const again = serverWriteTime(stamped("2026-01-01T00:00:01Z", "2026-01-01T00:00:00Z"));
    const next = serverWriteTime(stamped("2026-01-01T00:00:02Z"));
    assert.equal(first, Date.UTC(2026, 0, 1, 0, 0, 1));
    assert.equal(again, Date.UTC(2026, 0, 1, 0, 0, 1));
    assert.equal(next, Date.UTC(2026, 0, 1, 0, 0, 2));
  });

  test("no managedFields, or entries that are not objects, give undefined", () => {
    assert.equal(serverWriteTime({ metadata: { name: "a" } }), undefined);
    const odd = { metadata: { name: "a", managedFields: [null, 3, "x"] } } as unknown as KubeObject;
    assert.equal(serverWriteTime(odd), undefined);
  });
});
