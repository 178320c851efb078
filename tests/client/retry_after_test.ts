// Server-supplied delays are parsed strictly: garbage is ignored, never turned into a hot loop.
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { parseRetryAfter } from "../../src/client/http.ts";
import { KubeApiError } from "../../src/client/errors.ts";
import { MAX_TIMER_MS, timerDelay } from "../../src/util/clock.ts";

const NOW = Date.UTC(2015, 9, 21, 7, 28, 0); // Wed, 21 Oct 2015 07:28:00 GMT

describe("parseRetryAfter", () => {
  test("delta-seconds as sent, surrounding space allowed", () => {
    assert.equal(parseRetryAfter("120", NOW), 120);
    assert.equal(parseRetryAfter(" 7 ", NOW), 7);
    assert.equal(parseRetryAfter("0", NOW), 0);
  });

  test("huge delta-seconds are returned for the caller to clamp", () => {
    assert.equal(parseRetryAfter("99999999999", NOW), 99999999999);
  });

  test("anything that is not delta-seconds or an HTTP date is ignored", () => {
    for (
      const bad of [
        "abc",
        "-5",
        "1.5",
        "",
        "1e3",
        "0x10",
        "NaN",
        "Infinity",
        "\u0663", // an Arabic-Indic digit
        "12345678901234567890", // more digits than any real server sends
        "Wed, 21 Oct 2015 07:28:00", // no zone
        "21 Oct 2015 07:28:00 GMT", // no weekday
        "Wed, 32 Oct 2015 07:28:00 GMT", // no such day
        "Wed, 21 Oct 2015 25:00:00 GMT", // no such hour
        "Fri, 99 Foo 2026 99:99:99 GMT",
        "tomorrow",
      ]
    ) {
      assert.equal(parseRetryAfter(bad, NOW), undefined, JSON.stringify(bad));
    }
    assert.equal(parseRetryAfter(null, NOW), undefined);
  });

  test("the three HTTP date forms become the seconds from now, rounded up", () => {
    assert.equal(parseRetryAfter("Wed, 21 Oct 2015 07:28:30 GMT", NOW), 30);
    assert.equal(parseRetryAfter("Wednesday, 21-Oct-15 07:29:00 GMT", NOW), 60);
    assert.equal(parseRetryAfter("Wed Oct 21 07:28:05 2015", NOW), 5);
    assert.equal(parseRetryAfter("Wed Oct  1 07:28:05 2015", NOW), 0, "a date in the past is 0");
    assert.equal(parseRetryAfter("Wed, 21 Oct 2015 07:28:00 GMT", NOW + 1), 0);
  });
});

describe("KubeApiError.retryAfterSeconds", () => {
  const status = (retryAfterSeconds: unknown) =>
    KubeApiError.fromStatus({
      kind: "Status",
      code: 503,
      reason: "ServiceUnavailable",
      details: { retryAfterSeconds } as { retryAfterSeconds: number },
    });

  test("a Status's retryAfterSeconds counts only when it is a non-negative number", () => {
    assert.equal(status(3).retryAfterSeconds, 3);
    assert.equal(status(0).retryAfterSeconds, 0);
    for (const bad of [-3, "5", NaN, Infinity, null, {}, true]) {
      assert.equal(status(bad).retryAfterSeconds, undefined, String(bad));
    }
  });
});

describe("timerDelay", () => {
  test("no timer is asked for beyond what setTimeout holds (it would fire at once)", () => {
    assert.equal(timerDelay(2 ** 40), MAX_TIMER_MS);
    assert.equal(timerDelay(99999999999 * 1000), MAX_TIMER_MS);
    assert.equal(timerDelay(1500), 1500);
    assert.equal(timerDelay(NaN), 0);
    assert.equal(timerDelay(-5), 0);
  });
});
