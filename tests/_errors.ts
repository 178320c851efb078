// Test helper for errors: what a promise rejects with, to assert on its class and fields.
import assert from "node:assert/strict";

/** The error `promise` rejects with; fails the test when it resolves. */
export async function failure(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  assert.fail("expected a rejection");
}
