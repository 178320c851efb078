import { describe, test } from "node:test";
import assert from "node:assert/strict";
import {
  checkBoolean,
  checkClock,
  checkFunction,
  checkNonEmptyString,
  checkNumber,
  checkOneOf,
  checkOptionsObject,
  checkSignal,
  checkString,
  type NumberRange,
  requireNonEmptyString,
  requireNumber,
  requireSignal,
} from "../../src/util/validate.ts";
import { ManualClock } from "../../src/testing/manual_clock.ts";

/** Asserts `fn` throws exactly `type` with exactly `message`. */
function throwsExactly(fn: () => unknown, type: ErrorConstructor, message: string): void {
  assert.throws(fn, (error: unknown) => {
    assert.equal((error as Error).constructor, type, String(error));
    assert.equal((error as Error).message, message);
    return true;
  });
}

describe("checkOptionsObject", () => {
  test("takes an object or undefined", () => {
    checkOptionsObject(undefined, "f");
    checkOptionsObject({}, "f");
    checkOptionsObject([], "f");
  });

  test("refuses null and primitives, naming the function", () => {
    throwsExactly(
      () => checkOptionsObject(null, "f"),
      TypeError,
      "f: options must be an object, got null",
    );
    throwsExactly(
      () => checkOptionsObject("fast", "watcher"),
      TypeError,
      'watcher: options must be an object, got "fast"',
    );
  });
});

describe("the kind checks: function, string, boolean, clock, signal", () => {
  test("each takes undefined and a value of its kind", () => {
    checkFunction(undefined, "o");
    checkFunction(() => {}, "o");
    checkString(undefined, "o");
    checkString("", "o");
    checkBoolean(undefined, "o");
    checkBoolean(false, "o");
    checkClock(undefined, "o");
    checkClock(new ManualClock(), "o");
    checkSignal(undefined, "o");
    checkSignal(new AbortController().signal, "o");
    checkSignal(AbortSignal.abort(), "o");
  });

  test("each refuses another kind with a TypeError naming the option and the value", () => {
    throwsExactly(
      () => checkFunction("f", "options.map"),
      TypeError,
      'options.map must be a function, got "f"',
    );
    throwsExactly(
      () => checkString(3, "options.name"),
      TypeError,
      "options.name must be a string, got 3",
    );
    throwsExactly(
      () => checkBoolean("yes", "options.force"),
      TypeError,
      'options.force must be a boolean, got "yes"',
    );
    throwsExactly(
      () => checkClock({ now: () => 0 }, "options.clock"),
      TypeError,
      "options.clock must be a Clock with now(), setTimeout() and clearTimeout(), got an object",
    );
    throwsExactly(
      () => checkSignal("stop", "options.signal"),
      TypeError,
      'options.signal must be an AbortSignal, got "stop"',
    );
  });

  test("a signal is recognised by its shape; a controller or a half signal is not one", () => {
    const shaped = {
      aborted: false,
      addEventListener: () => {},
      removeEventListener: () => {},
      throwIfAborted: () => {},
    };
    checkSignal(shaped, "signal");
    throwsExactly(
      () => checkSignal(new AbortController(), "signal"),
      TypeError,
      "signal must be an AbortSignal, got AbortController",
    );
    assert.throws(() => checkSignal({ ...shaped, aborted: "no" }, "signal"), TypeError);
    assert.throws(() => checkSignal({ ...shaped, throwIfAborted: undefined }, "signal"), TypeError);
  });

  test("requireSignal needs one: undefined is refused too", () => {
    requireSignal(new AbortController().signal, "signal");
    throwsExactly(
      () => requireSignal(undefined, "signal"),
      TypeError,
      "signal must be an AbortSignal, got undefined",
    );
  });
});

describe("checkNonEmptyString and requireNonEmptyString", () => {
  test("take a non-empty string; only check* takes undefined", () => {
    checkNonEmptyString(undefined, "o");
    checkNonEmptyString("a", "o");
    requireNonEmptyString("a", "o");
    throwsExactly(
      () => requireNonEmptyString(undefined, "identity"),
      TypeError,
      "identity must be a non-empty string, got undefined",
    );
  });

  test("refuse the empty string and non-strings, showing the value", () => {
    throwsExactly(
      () => checkNonEmptyString("", "options.path"),
      TypeError,
      'options.path must be a non-empty string, got ""',
    );
    throwsExactly(
      () => checkNonEmptyString(3, "options.context"),
      TypeError,
      "options.context must be a non-empty string, got 3",
    );
  });
});

describe("checkNumber and requireNumber", () => {
  test("undefined passes checkNumber; requireNumber needs a number and returns it", () => {
    checkNumber(undefined, "o", { min: 0 });
    assert.equal(requireNumber(5, "o", { min: 0 }), 5);
    throwsExactly(
      () => requireNumber(undefined, "seed"),
      TypeError,
      "seed must be a number, got undefined",
    );
  });

  test("a non-number is a TypeError, even a numeric string", () => {
    throwsExactly(
      () => checkNumber("5", "pageSize", { min: 1 }),
      TypeError,
      'pageSize must be a number, got "5"',
    );
  });

  test("out of range is a RangeError that states the range", () => {
    const cases: [unknown, NumberRange, string][] = [
      [-5, { min: 0 }, "must be a finite number >= 0, got -5"],
      [NaN, { min: 0 }, "must be a finite number >= 0, got NaN"],
      [Infinity, { min: 0 }, "must be a finite number >= 0, got Infinity"],
      [NaN, {}, "must be a finite number, got NaN"],
      [0, { min: 0, minExclusive: true, allowInfinity: true }, "must be a number > 0, got 0"],
      [1.5, { min: 1, integer: true }, "must be an integer >= 1, got 1.5"],
      [0, { min: 1, integer: true }, "must be an integer >= 1, got 0"],
      [Infinity, { min: 1, integer: true }, "must be an integer >= 1, got Infinity"],
      [4097, { min: 1, max: 4096, integer: true }, "must be an integer from 1 to 4096, got 4097"],
      [0, { min: 1, max: 4096, integer: true }, "must be an integer from 1 to 4096, got 0"],
      [11, { max: 10 }, "must be a finite number <= 10, got 11"],
      [
        11,
        { min: 0, minExclusive: true, max: 10 },
        "must be a finite number > 0 and <= 10, got 11",
      ],
    ];
    for (const [value, range, message] of cases) {
      throwsExactly(() => checkNumber(value, "x", range), RangeError, `x ${message}`);
    }
  });

  test("in range passes, bounds included unless exclusive", () => {
    checkNumber(0, "x", { min: 0 });
    checkNumber(4096, "x", { min: 1, max: 4096, integer: true });
    checkNumber(Infinity, "x", { min: 0, allowInfinity: true });
    checkNumber(-1e300, "x");
    checkNumber(0.5, "x", { min: 0, minExclusive: true });
  });
});

describe("checkOneOf", () => {
  test("takes undefined and the listed values; lists them when refusing", () => {
    checkOneOf(undefined, "mode", ["list", "stream"]);
    checkOneOf("list", "mode", ["list", "stream"]);
    throwsExactly(
      () => checkOneOf("watch", "options.initialList", ["list", "stream", "auto"]),
      TypeError,
      'options.initialList must be one of "list", "stream", "auto", got "watch"',
    );
  });
});
