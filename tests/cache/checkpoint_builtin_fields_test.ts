// The checkpoint check keeps its own table of the built-in kinds' top-level fields (the cache
// cannot import the simulated cluster); this keeps it and the simulator's OpenAPI in step.
import { test } from "node:test";
import assert from "node:assert/strict";
import { BUILTIN_FIELDS } from "../../src/cache/_checkpoint_validation.ts";
import { builtinSchema } from "../../packages/simulator/src/model/openapi/builtin_schemas.ts";

test("the checkpoint check's top-level fields of each built-in kind are the simulator's OpenAPI properties", () => {
  for (const [key, fields] of BUILTIN_FIELDS) {
    // PartialObjectMetadata is a view, not a served kind: the simulator has no schema of its own.
    if (key === "meta.k8s.io/v1/PartialObjectMetadata") continue;
    const parts = key.split("/");
    const kind = parts.pop()!;
    const version = parts.pop()!;
    const { schema } = builtinSchema(parts.join("/"), version, kind);
    const properties = Object.keys(schema.properties as Record<string, unknown>).sort();
    assert.deepEqual([...fields].sort(), properties, key);
  }
});
