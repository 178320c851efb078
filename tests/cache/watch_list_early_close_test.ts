// Watches that end early, as large clusters end them: a streaming list closed right after its
// initial-events-end bookmark resumes as a watch from that bookmark (no relist, no 410 loop),
// and a 410 on the first watch after an outage is followed by the consistent LIST at once.
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { pods } from "../../src/client/resource.ts";
import type { RecordedRequest } from "../../packages/simulator/src/server/request_log.ts";
import { closed, env, pod } from "../_informer_env.ts";

/** A request and the clock time it reached the cluster. */
interface Seen {
  what: string;
  at: number;
}

/** What a pods request was: `list rv=..`, `stream rv=..` or `watch rv=..`. */
function describeRequest(r: RecordedRequest): string | undefined {
  if (r.resource !== "pods" || (r.verb !== "list" && r.verb !== "watch")) return undefined;
  const rv = r.query.resourceVersion ?? "";
  if (r.verb === "list") return `list rv=${rv}`;
  return `${r.query.sendInitialEvents === "true" ? "stream" : "watch"} rv=${rv}`;
}

/** An informer environment whose pods requests are logged with the clock time they arrived. */
function logged() {
  const seen: Seen[] = [];
  const e: ReturnType<typeof env> = env({
    cluster: {
      logRequests: (r) => {
        const what = describeRequest(r);
        if (what !== undefined) seen.push({ what, at: e.clock.now() });
      },
    },
  });
  return { e, seen };
}

describe("a streaming list closed right after its initial-events-end bookmark", () => {
  test("resumes as a watch from the bookmark's resource version at once: no LIST, no relist", async () => {
    const { e, seen } = logged();
    for (const name of ["p1", "p2"]) e.cluster.create(pods, pod("a", name));
    const bookmarkRv = e.cluster.resourceVersion;
    e.cluster.faults.closeAfterInitialEventsEnd();
    const inf = e.informer({ resource: pods, initialList: "stream" });
    const t0 = e.clock.now();
    inf.start();
    await inf.waitForSync();
    await e.clock.flush();
    assert.deepEqual(seen, [
      { what: "stream rv=", at: t0 },
      { what: `watch rv=${bookmarkRv}`, at: t0 },
    ]);
    e.cluster.create(pods, pod("a", "p3")); // the resumed watch is live
    await e.clock.flush();
    assert.deepEqual(inf.store.list().map((p) => p.metadata.name).sort(), ["p1", "p2", "p3"]);
    assert.equal(inf.health().relists, 0);
    assert.deepEqual(e.errors, []);
    await closed(e);
  });

  test("three relists in a row, each stream closed after its end bookmark: each resumes at once from its bookmark", async () => {
    const { e, seen } = logged();
    e.cluster.create(pods, pod("a", "p0"));
    // Every streaming list of this informer ends right after its end bookmark.
    e.cluster.faults.closeAfterInitialEventsEnd({ times: 4 });
    const inf = e.informer({
      resource: pods,
      initialList: "stream",
      consistencyCheck: { repair: true, intervalMs: 0 },
    });
    inf.start();
    await inf.waitForSync();
    await e.clock.flush();
    for (let round = 1; round <= 3; round++) {
      // A lost event makes the cache drift; the check's repair asks for a relist at once.
      e.cluster.faults.loseNextWatchEvent();
      e.cluster.create(pods, pod("a", `lost${round}`));
      e.cluster.create(pods, pod("a", `p${round}`)); // moves the cache past the lost one
      await e.clock.flush();
      const from = seen.length;
      const rv = e.cluster.resourceVersion;
      const result = await inf.verify();
      assert.equal(result.outcome, "drift", `round ${round}`);
      await e.clock.flush();
      assert.deepEqual(
        seen.slice(from).filter((s) => s.what !== "list rv="), // the check's own LIST
        [
          { what: "stream rv=", at: e.clock.now() },
          { what: `watch rv=${rv}`, at: e.clock.now() },
        ],
        `round ${round}`,
      );
      assert.equal(inf.store.size, 2 * round + 1, `round ${round}`);
    }
    assert.equal(seen.filter((s) => s.what.startsWith("list") && s.what !== "list rv=").length, 0);
    assert.deepEqual(e.errors.map((x) => x.kind), ["drift", "drift", "drift"]);
    await closed(e);
  });
});

describe("a 410 on the first watch after an outage", () => {
  test("is followed by the consistent LIST at once, not after the outage's backoff", async () => {
    const { e, seen } = logged();
    e.cluster.create(pods, pod("a", "p1"));
    const inf = e.informer({ resource: pods });
    inf.start();
    await inf.waitForSync();
    await e.clock.flush();
    const listRv = inf.resourceVersion!;
    // An outage: the watch drops and the next watches fail; meanwhile history moves on and is
    // compacted, so the list's resource version is gone when the server is back.
    e.cluster.faults.failNext(4, { verb: "watch", status: 500 });
    e.cluster.faults.dropWatches();
    e.cluster.create(pods, pod("a", "p2"));
    e.cluster.faults.compact();
    for (let t = 0; t < 300 && !seen.some((s) => s.what === "list rv="); t++) {
      await e.clock.advance(500);
    }
    const watches = seen.filter((s) => s.what === `watch rv=${listRv}`);
    assert.equal(watches.length, 6, "the first watch, four failing, one answered 410");
    const expiredAt = watches.at(-1)!.at;
    const relist = seen.find((s) => s.what === "list rv=");
    assert.equal(relist?.at, expiredAt, "the consistent LIST goes out when the 410 arrives");
    await e.clock.flush();
    assert.deepEqual(inf.store.list().map((p) => p.metadata.name).sort(), ["p1", "p2"]);
    await closed(e);
  });
});
