// The guides' tables of defaults say what the code does: each row of docs/informers.md's
// "Options at a glance", docs/production.md's `consistencyCheck` table and docs/replicas.md's
// lease timings is read back from the options the code resolves when nothing is given, and from
// the field's JSDoc `@default`. A default changed in one place fails here until all three agree;
// a row added to a table fails until this file reads it back.
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { readFile } from "node:fs/promises";
import { KubeClient } from "../src/client/kube_client.ts";
import { pods } from "../src/client/builtin_resources.ts";
import { listWatchSettings } from "../src/cache/informer_options.ts";
import { consistencyCheckDefaults } from "../src/cache/consistency_check_options.ts";
import { resolveTimings } from "../src/controller/leases/lease_timing.ts";
import { LineSplitter, LineTooLongError } from "../src/watch/line_splitter.ts";
import { exponentialBackoff } from "../src/util/backoff.ts";
import { ManualClock } from "../src/testing/manual_clock.ts";

const root = new URL("../", import.meta.url);
const read = (path: string): Promise<string> => readFile(new URL(path, root), "utf8");

/** The rows of the Markdown table whose header row starts with `first`: option -> default cell. */
function table(markdown: string, first: string): Map<string, string> {
  const lines = markdown.split("\n");
  const start = lines.findIndex((l) => l.startsWith("|") && cells(l)[0] === first);
  assert.ok(start >= 0, `a table whose first column is ${first}`);
  const rows = new Map<string, string>();
  for (const line of lines.slice(start + 2)) {
    if (!line.startsWith("|")) break;
    const [option = "", value = ""] = cells(line);
    // One row may name several options: "`clock`, `random`".
    for (const name of option.matchAll(/`([^`]+)`/g)) rows.set(name[1]!, value);
  }
  return rows;
}

function cells(line: string): string[] {
  return line.split("|").slice(1, -1).map((c) => c.trim());
}

/**
 * A default as written in a guide or a `@default`: a number (`150000`, `600000 (10 min)`,
 * `16 MiB`), a quoted string, `true`/`false`, or `none`/`undefined`; anything else as is.
 */
function valueOf(text: string): unknown {
  const t = text.replaceAll("`", "").replace(/^\{(.*)\}/, "$1").trim();
  const mib = /^(\d+) MiB$/.exec(t);
  if (mib) return Number(mib[1]) * 1024 * 1024;
  const number = /^(\d[\d_]*(?:\.\d+)?)(?:\s*\(.*\))?$/.exec(t);
  if (number) return Number(number[1]!.replaceAll("_", ""));
  const quoted = /^"([^"]*)"(?:\s*\(.*\))?$/.exec(t);
  if (quoted) return quoted[1];
  if (/^(false|true)\b/.test(t)) return t.startsWith("true");
  if (/^(none|undefined)\b/.test(t)) return undefined;
  return t;
}

/** The `@default` of each field of the interface `name` in `source`: field -> its text. */
function jsdocDefaults(source: string, name: string): Map<string, string> {
  const start = source.indexOf(`export interface ${name}`);
  assert.ok(start >= 0, `interface ${name}`);
  const end = source.indexOf("\n}\n", start);
  const body = source.slice(start, end);
  const out = new Map<string, string>();
  for (const m of body.matchAll(/\/\*\*((?:(?!\*\/)[\s\S])*)\*\/\s*(\w+)\??:/g)) {
    const doc = /@default\s+([^\n]*)/.exec(m[1]!);
    if (doc) out.set(m[2]!, doc[1]!.replace(/\s*\*\/?\s*$/, "").trim());
  }
  return out;
}

/** The length of the longest line a default `LineSplitter` accepts, found by bisection. */
function longestLine(): number {
  const accepts = (length: number): boolean => {
    const line = new Uint8Array(length + 1).fill(0x61);
    line[length] = 0x0a;
    try {
      new LineSplitter().push(line, () => {});
      return true;
    } catch (error) {
      if (error instanceof LineTooLongError) return false;
      throw error;
    }
  };
  let low = 1; // accepted
  let high = 64 * 1024 * 1024; // refused
  assert.equal(accepts(high), false);
  while (high - low > 1) {
    const mid = Math.floor((low + high) / 2);
    if (accepts(mid)) low = mid;
    else high = mid;
  }
  return low;
}

/** Checks every row of `rows` against `expected` (and no row goes unchecked). */
function agree(
  rows: Map<string, string>,
  expected: Record<string, (cell: string) => void>,
  where: string,
): void {
  assert.deepEqual([...rows.keys()].sort(), Object.keys(expected).sort(), `${where}: the rows`);
  for (const [option, cell] of rows) expected[option]!(cell);
}

describe("the guides' tables of defaults match the code", () => {
  test("docs/informers.md, Options at a glance: InformerOptions resolved with nothing given", async () => {
    const rows = table(await read("docs/informers.md"), "option");
    const jsdoc = jsdocDefaults(await read("src/cache/informer_options.ts"), "InformerOptions");
    const client = new KubeClient({ server: "http://127.0.0.1:8001" });
    const settings = listWatchSettings({ resource: pods }, client);
    /** The guide, the JSDoc and the resolved value say the same. */
    const same = (option: string, resolved: unknown) => (cell: string): void => {
      assert.equal(valueOf(cell), resolved, `docs/informers.md: ${option}`);
      assert.equal(valueOf(jsdoc.get(option) ?? "(no @default)"), resolved, `@default ${option}`);
    };
    agree(rows, {
      pageSize: same("pageSize", settings.pageSize),
      initialList: same("initialList", settings.initialList),
      inactivityTimeoutMs: same("inactivityTimeoutMs", settings.inactivityTimeoutMs),
      initialEventsTimeoutMs: same("initialEventsTimeoutMs", settings.initialEventsTimeoutMs),
      maxLineLength: (cell) => {
        assert.equal(settings.maxLineLength, undefined, "the decoder's own limit applies");
        same("maxLineLength", longestLine())(cell);
      },
      transport: (cell) => {
        assert.match(cell, /the client's \(`"http"`\)/);
        assert.equal(settings.transport, undefined, "the informer watches as its client does");
        assert.equal(client.watchTransport, "http");
      },
      resumeFrom: same("resumeFrom", undefined),
      metrics: same("metrics", undefined),
      consistencyCheck: same("consistencyCheck", undefined),
      detectMutations: same("detectMutations", false),
      clock: (cell) => assert.equal(cell, "the system's"),
      random: (cell) => {
        assert.equal(cell, "the system's");
        assert.equal(settings.random, Math.random);
      },
      backoff: (cell) => {
        assert.equal(cell, "800 ms doubling to 30 s");
        // Without jitter's share (random 0), the informer's default backoff is that.
        const clock = new ManualClock(0);
        const resolved = listWatchSettings({ resource: pods, clock, random: () => 0 }, client);
        const delays = Array.from({ length: 8 }, () => resolved.backoff.next());
        assert.deepEqual(delays, [800, 1600, 3200, 6400, 12800, 25600, 30000, 30000]);
        const plain = exponentialBackoff(clock, { random: () => 0 });
        assert.deepEqual(Array.from({ length: 8 }, () => plain.next()), delays);
      },
    }, "docs/informers.md");
  });

  test("docs/production.md: the consistencyCheck options resolved with none given", async () => {
    const rows = table(await read("docs/production.md"), "`consistencyCheck` option");
    const jsdoc = jsdocDefaults(
      await read("src/cache/consistency_check_options.ts"),
      "ConsistencyCheckOptions",
    );
    const resolved = consistencyCheckDefaults({}, 500);
    const same = (option: keyof typeof resolved) => (cell: string): void => {
      assert.equal(valueOf(cell), resolved[option], `docs/production.md: ${option}`);
      if (option !== "pageSize") {
        assert.equal(
          valueOf(jsdoc.get(option) ?? "(none)"),
          resolved[option],
          `@default ${option}`,
        );
      }
    };
    agree(rows, {
      intervalMs: same("intervalMs"),
      requestsPerMinute: same("requestsPerMinute"),
      pageSize: (cell) => {
        assert.equal(cell, "the informer's (500)");
        assert.equal(jsdoc.get("pageSize"), "the informer's `pageSize`");
        assert.equal(consistencyCheckDefaults({}, 42).pageSize, 42, "the informer's");
      },
      maxWaitMs: same("maxWaitMs"),
      repair: same("repair"),
    }, "docs/production.md");
  });

  test("docs/replicas.md: the lease timings resolved with none given", async () => {
    const rows = table(await read("docs/replicas.md"), "option");
    const jsdoc = jsdocDefaults(
      await read("src/controller/leases/lease_timing.ts"),
      "LeaseTimingOptions",
    );
    const resolved = resolveTimings({});
    const same = (option: keyof typeof resolved) => (cell: string): void => {
      assert.equal(valueOf(cell), resolved[option], `docs/replicas.md: ${option}`);
      assert.equal(valueOf(jsdoc.get(option) ?? "(none)"), resolved[option], `@default ${option}`);
    };
    agree(rows, {
      leaseDurationMs: same("leaseDurationMs"),
      renewDeadlineMs: same("renewDeadlineMs"),
      retryPeriodMs: same("retryPeriodMs"),
      jitterFactor: same("jitterFactor"),
    }, "docs/replicas.md");
  });
});
