import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { callOnError, reportError } from "../../src/util/report_error.ts";
import { catchUncaught } from "../cache/_uncaught.ts";

describe("callOnError and reportError: the one way an error reaches user code", () => {
  test("onError gets the error and its context; without one, nothing happens", () => {
    const seen: unknown[] = [];
    callOnError((error, context) => void seen.push(error, context), "e", { kind: "x" });
    assert.deepEqual(seen, ["e", { kind: "x" }]);
    callOnError(undefined, "ignored", {});
  });

  test("an onError that throws breaks nothing here; its throw is reported as uncaught, later", async () => {
    const uncaught: unknown[] = [];
    const restore = catchUncaught((error) => uncaught.push(error));
    try {
      const boom = new Error("boom");
      callOnError(
        () => {
          throw boom;
        },
        "e",
        {},
      );
      assert.deepEqual(uncaught, [], "not synchronously");
      await Promise.resolve();
      await Promise.resolve();
      assert.deepEqual(uncaught, [boom]);
      reportError("plain");
      await Promise.resolve();
      await Promise.resolve();
      assert.deepEqual(uncaught, [boom, "plain"]);
    } finally {
      restore();
    }
  });
});
