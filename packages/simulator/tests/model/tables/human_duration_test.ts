import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { humanDuration, parseTime, since } from "../../../src/model/tables/human_duration.ts";

const s = 1000;
const m = 60 * s;
const h = 60 * m;
const d = 24 * h;

describe("humanDuration (apimachinery's duration.HumanDuration)", () => {
  test("each range has its precision", () => {
    const table: Array<[number, string]> = [
      [-2 * s, "<invalid>"],
      [-1500, "0s"],
      [0, "0s"],
      [999, "0s"],
      [119 * s, "119s"],
      [2 * m, "2m"],
      [2 * m + 5 * s, "2m5s"],
      [9 * m + 59 * s, "9m59s"],
      [10 * m + 30 * s, "10m"],
      [179 * m, "179m"],
      [3 * h, "3h"],
      [3 * h + 7 * m, "3h7m"],
      [8 * h + 7 * m, "8h"],
      [47 * h, "47h"],
      [2 * d, "2d"],
      [2 * d + 5 * h, "2d5h"],
      [8 * d + 5 * h, "8d"],
      [729 * d, "729d"],
      [730 * d, "2y"],
      [731 * d, "2y1d"],
      [8 * 365 * d + 3 * d, "8y"],
    ];
    for (const [ms, text] of table) assert.equal(humanDuration(ms), text, String(ms));
  });

  test("since: ages of RFC 3339 times (also MicroTime), <unknown> for none", () => {
    const now = Date.UTC(2026, 0, 1, 0, 10, 0);
    assert.equal(since("2026-01-01T00:00:00Z", now), "10m");
    assert.equal(since("2026-01-01T00:09:30.123456Z", now), "29s");
    assert.equal(since(undefined, now), "<unknown>");
    assert.equal(since("yesterday", now), "<unknown>");
    assert.equal(parseTime("2026-01-01T01:00:00+01:00"), Date.UTC(2026, 0, 1));
  });
});
