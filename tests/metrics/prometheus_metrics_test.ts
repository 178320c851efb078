// prometheusMetrics (@kinformer/kinformer/metrics): its text format, parsed strictly line by line,
// against what the informer did, and its handler.
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { pods } from "../../src/client/resource.ts";
import { sleep } from "../../src/util/clock.ts";
import { PROMETHEUS_CONTENT_TYPE, prometheusMetrics } from "../../src/metrics/mod.ts";
import { type Env, env, pod } from "../_informer_env.ts";

interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

interface Exposition {
  samples: Sample[];
  types: Map<string, string>;
  help: Map<string, string>;
}

const NAME = "[a-zA-Z_:][a-zA-Z0-9_:]*";
const SAMPLE_LINE = new RegExp(`^(${NAME})(?:\\{(.*)\\})? (\\S+)$`);
const LABEL_PAIR = /([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\\n]|\\[\\"n])*)"(,|$)/y;

/**
 * Parses the text format strictly: every line is a HELP, a TYPE or a sample; a family's HELP and
 * TYPE come once, before its samples; a summary's samples are `_sum` and `_count`; no series
 * appears twice; the text ends with a newline.
 */
function parseExposition(text: string): Exposition {
  assert.ok(text.endsWith("\n"), "the exposition ends with a newline");
  const out: Exposition = { samples: [], types: new Map(), help: new Map() };
  const seen = new Set<string>();
  for (const line of text.slice(0, -1).split("\n")) {
    const meta = line.match(new RegExp(`^# (HELP|TYPE) (${NAME}) (.*)$`));
    if (meta !== null) {
      const [, kind, name, rest] = meta as unknown as [string, string, string, string];
      const map = kind === "HELP" ? out.help : out.types;
      assert.equal(map.has(name), false, `${kind} ${name} appears twice`);
      assert.equal(
        out.samples.some((s) => familyOf(s.name, out.types) === name),
        false,
        `${kind} ${name} after its samples`,
      );
      if (kind === "TYPE") assert.match(rest, /^(counter|gauge|summary|histogram|untyped)$/);
      map.set(name, rest);
      continue;
    }
    const m = line.match(SAMPLE_LINE);
    assert.ok(m !== null, `not a sample line: ${JSON.stringify(line)}`);
    const [, name, labelText = "", valueText] = m as unknown as [
      string,
      string,
      string | undefined,
      string,
    ];
    const labels: Record<string, string> = {};
    LABEL_PAIR.lastIndex = 0;
    while (LABEL_PAIR.lastIndex < labelText.length) {
      const pair = LABEL_PAIR.exec(labelText);
      assert.ok(pair !== null, `bad labels: ${JSON.stringify(labelText)}`);
      labels[pair[1]!] = pair[2]!.replace(/\\(.)/g, (_, c: string) => (c === "n" ? "\n" : c));
    }
    const value = valueText === "+Inf"
      ? Infinity
      : valueText === "-Inf"
      ? -Infinity
      : Number(valueText);
    assert.ok(valueText === "NaN" || !Number.isNaN(value), `bad value in ${JSON.stringify(line)}`);
    const family = familyOf(name, out.types);
    assert.ok(out.types.has(family), `sample ${name} has no TYPE`);
    assert.ok(out.help.has(family), `sample ${name} has no HELP`);
    if (out.types.get(family) === "counter") {
      assert.ok(name.endsWith("_total"), `counter ${name} ends in _total`);
    }
    if (out.types.get(family) === "summary") assert.match(name, /_(sum|count)$/);
    const series = `${name}{${
      Object.entries(labels).sort().map(([k, v]) => `${k}=${v}`).join(",")
    }}`;
    assert.equal(seen.has(series), false, `${series} appears twice`);
    seen.add(series);
    out.samples.push({ name, labels, value });
  }
  return out;
}

function familyOf(name: string, types: Map<string, string>): string {
  const base = name.replace(/_(sum|count)$/, "");
  return base !== name && types.get(base) === "summary" ? base : name;
}

/** The value of the one sample named `name` whose labels include `labels`. */
function valueOf(
  x: Exposition,
  name: string,
  labels: Record<string, string> = {},
): number | undefined {
  const found = x.samples.filter((s) =>
    s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v)
  );
  assert.ok(found.length <= 1, `${name} ${JSON.stringify(labels)} matches ${found.length} samples`);
  return found[0]?.value;
}

async function scrape(handler: (r: Request) => Response): Promise<Exposition> {
  const res = handler(new Request("http://metrics.local/metrics"));
  assert.equal(res.status, 200);
  assert.equal(res.headers.get("content-type"), PROMETHEUS_CONTENT_TYPE);
  return parseExposition(await res.text());
}

async function closed(e: Env): Promise<void> {
  await e.close();
  assert.equal(e.clock.pendingTimers, 0, "timers left behind");
}

describe("prometheusMetrics", () => {
  test("counts every hook and reads health() at each scrape, in well-formed text format", async () => {
    const e: Env = env({
      fetch: (c) => async (req) => {
        if (!new URL(req.url).searchParams.has("watch")) await sleep(250, { clock: e.clock }); // lists take time
        return c.fetch(req);
      },
      cluster: { watchCache: false }, // lists at "0" come in pages
    });
    for (const n of ["p1", "p2", "p3"]) e.cluster.create(pods, pod("a", n));
    const prom = prometheusMetrics({ labels: { resource: "pods" }, health: () => inf.health() });
    const inf = e.informer({ resource: pods, pageSize: 2, metrics: prom.metrics });
    const unread = inf.events(); // a listener nobody reads: its backlog is the largest
    inf.start();
    await e.clock.advance(500);
    await inf.waitForSync();
    await e.clock.flush();

    let x = await scrape(prom.handler);
    assert.equal(valueOf(x, "kinformer_list_total"), 1);
    assert.equal(valueOf(x, "kinformer_list_duration_seconds_count"), 1);
    assert.equal(valueOf(x, "kinformer_list_duration_seconds_sum"), 0.5); // 2 pages, 250 ms each
    assert.equal(valueOf(x, "kinformer_list_items"), 3);
    assert.equal(valueOf(x, "kinformer_list_pages_total"), 2);
    for (const type of ["ADDED", "MODIFIED", "DELETED", "BOOKMARK"]) {
      assert.equal(valueOf(x, "kinformer_watch_events_total", { type }), 0, type);
    }
    assert.equal(valueOf(x, "kinformer_state", { state: "watching" }), 1);
    assert.equal(valueOf(x, "kinformer_state", { state: "listing" }), 0);
    assert.equal(valueOf(x, "kinformer_synced"), 1);
    assert.equal(valueOf(x, "kinformer_last_event_timestamp_seconds"), undefined);
    assert.ok(
      x.samples.every((s) => s.labels.resource === "pods"),
      "constant labels on every sample",
    );

    e.cluster.create(pods, pod("a", "p4"));
    e.cluster.patch(pods, { namespace: "a", name: "p1" }, { metadata: { labels: { v: "2" } } });
    e.cluster.delete(pods, { namespace: "a", name: "p2" });
    await e.clock.advance(60_000); // a bookmark
    e.cluster.faults.dropWatches();
    e.cluster.create(pods, pod("a", "p5"));
    e.cluster.faults.compact();
    await e.clock.advance(30_000); // re-watch: 410, then a relist
    await inf.waitForSync();

    x = await scrape(prom.handler);
    const h = inf.health();
    assert.equal(valueOf(x, "kinformer_watch_events_total", { type: "ADDED" }), 1);
    assert.equal(valueOf(x, "kinformer_watch_events_total", { type: "MODIFIED" }), 1);
    assert.equal(valueOf(x, "kinformer_watch_events_total", { type: "DELETED" }), 1);
    assert.equal(valueOf(x, "kinformer_watch_events_total", { type: "BOOKMARK" }), 1);
    assert.equal(valueOf(x, "kinformer_relists_total", { reason: "expired" }), 1);
    assert.equal(valueOf(x, "kinformer_reconnects_total", { kind: "network" }), 1);
    assert.equal(valueOf(x, "kinformer_list_total"), h.lists);
    assert.equal(valueOf(x, "kinformer_list_duration_seconds_count"), h.lists);
    assert.equal(valueOf(x, "kinformer_list_items"), 4);
    assert.equal(valueOf(x, "kinformer_decode_errors_total"), 0);
    assert.equal(valueOf(x, "kinformer_listener_backlog_max"), h.listeners[0]!.backlog);
    assert.equal(valueOf(x, "kinformer_listener_backlog_high_water"), h.listeners[0]!.highWater);
    assert.equal(valueOf(x, "kinformer_listeners"), 1);
    assert.equal(valueOf(x, "kinformer_objects"), 4);
    assert.equal(valueOf(x, "kinformer_stalled"), 0);
    assert.equal(valueOf(x, "kinformer_watch_restarts_total"), h.watchRestarts);
    assert.equal(valueOf(x, "kinformer_last_event_timestamp_seconds"), h.lastEventAt! / 1000);
    assert.equal(valueOf(x, "kinformer_last_bookmark_timestamp_seconds"), h.lastBookmarkAt! / 1000);
    assert.equal(valueOf(x, "kinformer_last_error_timestamp_seconds"), h.lastError!.at / 1000);
    for (const [kind, n] of Object.entries(h.errors)) {
      assert.equal(valueOf(x, "kinformer_errors_total", { kind }), n, kind);
    }
    assert.ok(valueOf(x, "kinformer_errors_total", { kind: "expired" })! >= 1);
    await unread.return!();
    await closed(e);
  });

  test("counts decode errors and the reconnect they cause", async () => {
    let corrupt = true;
    const e = env({
      fetch: (c) => (req) => {
        if (corrupt && new URL(req.url).searchParams.has("watch")) {
          corrupt = false;
          const html = "<html>502 Bad Gateway</html>\n";
          return Promise.resolve(
            new Response(html, { headers: { "content-type": "application/json" } }),
          );
        }
        return c.fetch(req);
      },
    });
    const prom = prometheusMetrics();
    const inf = e.informer({ resource: pods, metrics: prom.metrics });
    inf.start();
    await inf.waitForSync();
    await e.clock.advance(2_000);
    const x = parseExposition(prom.render());
    assert.equal(valueOf(x, "kinformer_decode_errors_total"), 1);
    assert.equal(valueOf(x, "kinformer_reconnects_total", { kind: "decode" }), 1);
    assert.equal(valueOf(x, "kinformer_state", { state: "watching" }), undefined); // no health given
    await closed(e);
  });

  test("counts consistency checks by outcome and drifted keys by kind", async () => {
    const e = env();
    e.cluster.create(pods, pod("a", "p1"));
    const prom = prometheusMetrics({ health: () => inf.health() });
    const inf = e.informer({ resource: pods, metrics: prom.metrics });
    inf.start();
    await inf.waitForSync();
    await e.clock.flush();
    assert.equal((await inf.verify()).outcome, "consistent");
    e.cluster.faults.loseNextWatchEvent();
    e.cluster.create(pods, pod("a", "lost"));
    const pending = inf.verify();
    await e.clock.advance(60_000); // the bookmark brings the cache to the list's RV
    const r = await pending;
    assert.equal(r.outcome, "drift");
    const x = parseExposition(prom.render());
    assert.equal(valueOf(x, "kinformer_consistency_checks_total", { outcome: "consistent" }), 1);
    assert.equal(valueOf(x, "kinformer_consistency_checks_total", { outcome: "drift" }), 1);
    assert.equal(valueOf(x, "kinformer_consistency_checks_total", { outcome: "skipped" }), 0);
    assert.equal(valueOf(x, "kinformer_drift_objects_total", { kind: "missing" }), 1);
    assert.equal(valueOf(x, "kinformer_drift_objects_total", { kind: "stale" }), 0);
    assert.equal(valueOf(x, "kinformer_errors_total", { kind: "drift" }), 1);
    assert.equal(
      valueOf(x, "kinformer_consistency_last_check_timestamp_seconds"),
      r.finishedAt / 1000,
    );
    await closed(e);
  });

  test("escapes label values; rejects a bad prefix or label name up front", () => {
    const prom = prometheusMetrics({
      prefix: "my_app_",
      labels: { note: 'a "quoted"\\path\nnext' },
    });
    const x = parseExposition(prom.render());
    assert.ok(x.samples.every((s) => s.name.startsWith("my_app_")));
    assert.equal(x.samples[0]!.labels.note, 'a "quoted"\\path\nnext');
    assert.match(prom.render(), /note="a \\"quoted\\"\\\\path\\nnext"/);
    assert.throws(() => prometheusMetrics({ prefix: "9lives_" }), /prefix/);
    assert.throws(() => prometheusMetrics({ prefix: "a-b" }), /prefix/);
    assert.throws(() => prometheusMetrics({ labels: { "bad-name": "x" } }), /"bad-name"/);
    assert.throws(() => prometheusMetrics({ labels: { __reserved: "x" } }), /__reserved/);
    assert.throws(() => prometheusMetrics({ labels: { n: 1 as unknown as string } }), /labels\.n/);
    assert.throws(() => prometheusMetrics({ health: 5 as never }), /health must be a function/);
  });

  test("the handler answers GET and HEAD, on any path, and refuses other methods", async () => {
    const { handler } = prometheusMetrics();
    const get = handler(new Request("http://x/anything"));
    assert.equal(get.status, 200);
    assert.match(await get.text(), /^# HELP kinformer_list_total /);
    const head = handler(new Request("http://x/metrics", { method: "HEAD" }));
    assert.equal(head.status, 200);
    assert.equal(head.headers.get("content-type"), PROMETHEUS_CONTENT_TYPE);
    assert.equal(await head.text(), "");
    const post = handler(new Request("http://x/metrics", { method: "POST", body: "x" }));
    assert.equal(post.status, 405);
    assert.equal(post.headers.get("allow"), "GET, HEAD");
    await post.body?.cancel();
  });
});
