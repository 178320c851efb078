import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { reportError } from "../../src/util/report_error.ts";
import { catchUncaught } from "../cache/_uncaught.ts";

describe("reportError: a throw of user code that has nowhere else to go", () => {
  test("is reported as uncaught, later, never lost", async () => {
    const uncaught: unknown[] = [];
    const restore = catchUncaught((error) => uncaught.push(error));
    try {
      const boom = new Error("boom");
      reportError(boom);
      assert.deepEqual(uncaught, [], "not synchronously");
      await Promise.resolve();
      await Promise.resolve();
      reportError("plain");
      await Promise.resolve();
      await Promise.resolve();
      assert.deepEqual(uncaught, [boom, "plain"]);
    } finally {
      restore();
    }
  });
});
