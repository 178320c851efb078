/**
 * Helpers the library shares with `@kinformer/simulator`, the simulated API server published
 * from the same repository (packages/simulator/): value checks and descriptions, abort and
 * clock plumbing, label and DNS name syntax, the YAML parser, cache keys, seeded random numbers
 * and object fixtures. It exists so that the simulator reuses the library's code instead of
 * copying it.
 *
 * Not a public API: names come and go in any release, without a CHANGELOG line. Import from the
 * documented subpaths instead.
 *
 * @example
 * ```ts
 * import { isRecord } from "@kinformer/kinformer/internal";
 * import assert from "node:assert/strict";
 * assert.equal(isRecord({}), true);
 * ```
 * @module
 */
export { keyOf } from "../cache/object_key.ts";
export { labelKeyProblem, labelValueProblem } from "../client/_label_syntax.ts";
export { BEARER_PROTOCOL_PREFIX } from "../client/websocket_watch.ts";
export { parseYaml } from "../config/yaml/parse_yaml.ts";
export {
  configMapFixture,
  deploymentFixture,
  type FixtureOptions,
  namespaceFixture,
  podFixture,
  widgetFixture,
} from "../testing/fixtures.ts";
export { Rng } from "../testing/seeded_random.ts";
export { onAbort } from "../util/abort.ts";
export { systemClock } from "../util/clock.ts";
export { isDnsLabel, isDnsSubdomain } from "../util/dns_names.ts";
export { parseMicroTime } from "../util/micro_time.ts";
export { RingBuffer } from "../util/ring_buffer.ts";
export {
  checkBoolean,
  checkNumber,
  checkOptionsObject,
  requireNonEmptyString,
  requireNumber,
} from "../util/validate.ts";
export { base64Utf8, describeKind, describeValue, isRecord, messageOf } from "../util/values.ts";
export { Waiters } from "../util/wait_for.ts";
