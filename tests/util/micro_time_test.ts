import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { formatMicroTime, parseMicroTime } from "../../src/util/micro_time.ts";

describe("MicroTime", () => {
  test("format writes exactly six fractional digits in UTC", () => {
    assert.equal(
      formatMicroTime(Date.UTC(2026, 10, 26, 3, 4, 5, 123)),
      "2026-11-26T03:04:05.123000Z",
    );
    assert.equal(formatMicroTime(Date.UTC(2026, 0, 1)), "2026-01-01T00:00:00.000000Z");
    assert.match(formatMicroTime(Date.now()), /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/);
  });

  test("format refuses what RFC 3339 cannot write", () => {
    assert.throws(() => formatMicroTime(Number.NaN), RangeError);
    assert.throws(() => formatMicroTime(Date.UTC(10_000, 0, 1)), RangeError);
    assert.throws(() => formatMicroTime(Date.UTC(-1, 0, 1)), RangeError);
  });

  test("parse reads six digits and offsets; round-trips format", () => {
    assert.equal(
      parseMicroTime("2026-11-26T03:04:05.123456Z"),
      Date.UTC(2026, 10, 26, 3, 4, 5, 123),
    );
    assert.equal(
      parseMicroTime("2026-11-26T05:04:05.000000+02:00"),
      Date.UTC(2026, 10, 26, 3, 4, 5),
    );
    assert.equal(
      parseMicroTime("2026-11-26T00:34:05.000000-02:30"),
      Date.UTC(2026, 10, 26, 3, 4, 5),
    );
    for (const ms of [0, Date.UTC(2024, 1, 29, 23, 59, 59, 999), 1_700_000_000_123]) {
      assert.equal(parseMicroTime(formatMicroTime(ms)), ms);
    }
  });

  test("parse refuses other precisions and impossible dates", () => {
    for (
      const bad of [
        new Date(0).toISOString(), // three digits: what a real server answers 400 to
        "2026-11-26T03:04:05Z",
        "2026-11-26T03:04:05.1234567Z",
        "2026-11-26 03:04:05.123456Z",
        "2026-11-26T03:04:05.123456",
        "2026-02-30T03:04:05.123456Z",
        "2025-02-29T00:00:00.000000Z",
        "2026-11-26T24:00:00.000000Z",
        "2026-11-26T03:04:05.123456+24:00",
        "",
      ]
    ) {
      assert.equal(parseMicroTime(bad), undefined, bad);
    }
    assert.equal(parseMicroTime(42 as unknown as string), undefined);
  });
});
