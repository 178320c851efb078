// The Reflector on its own: a relist asked for from outside (the consistency check's repair).
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { pods } from "../../src/client/resource.ts";
import type { KubeObject } from "../../src/client/types.ts";
import { Reflector } from "../../src/cache/reflector.ts";
import { errorKindOf } from "../../src/util/error_kind.ts";
import { exponentialBackoff } from "../../src/util/backoff.ts";
import { closed, type Env, env, pod, seeded } from "../_informer_env.ts";

/** A reflector over `e`'s cluster that records what it emits (a list as one line). */
function reflector(e: Env): { r: Reflector<KubeObject>; told: string[]; errors: string[] } {
  const told: string[] = [];
  const errors: string[] = [];
  let listed = 0;
  const r = new Reflector<KubeObject>({
    client: e.client,
    resource: pods,
    pageSize: 500,
    initialList: "list",
    clock: e.clock,
    backoff: exponentialBackoff(e.clock, { random: seeded(3) }),
    random: seeded(4),
    inactivityTimeoutMs: 150_000,
    initialEventsTimeoutMs: 10_000,
    transform: (o) => o,
    emit: (ev) => {
      if (ev.type === "init") listed = 0;
      else if (ev.type === "init-apply") listed++;
      else if (ev.type === "init-done") told.push(`replace ${listed} @${ev.resourceVersion}`);
      else if (ev.type !== "bookmark") told.push(`${ev.type} ${ev.object.metadata.name}`);
    },
    onError: (error, details) => void errors.push(errorKindOf(error, details.foreignKind)),
  });
  return { r, told, errors };
}

const lists = (e: Env): string[] =>
  e.cluster.requests.filter((q) => q.verb === "list").map((q) => `rv=${q.query.resourceVersion}`);

describe("Reflector.requestRelist", () => {
  test("closes the open watch without an error and relists consistently, then watches on", async () => {
    const e = env();
    e.cluster.create(pods, pod("a", "p1"));
    const { r, told, errors } = reflector(e);
    const ac = new AbortController();
    const run = r.run(ac.signal);
    await e.clock.flush();
    assert.equal(r.phase, "watching");
    assert.equal(e.cluster.openWatches, 1);
    r.requestRelist();
    await e.clock.flush();
    assert.deepEqual(lists(e), ["rv=0", "rv="]);
    assert.deepEqual(told, [
      "replace 1 @" + e.cluster.resourceVersion,
      "replace 1 @" + e.cluster.resourceVersion,
    ]);
    assert.deepEqual(errors, []);
    assert.equal(r.stats.relists, 1);
    assert.equal(r.phase, "watching");
    e.cluster.create(pods, pod("a", "p2"));
    await e.clock.flush();
    assert.equal(told.at(-1), "apply p2");
    ac.abort();
    await run;
    await closed(e);
  });

  test("asked for while a list is under way: another consistent list follows it", async () => {
    const e = env();
    e.cluster.create(pods, pod("a", "p1"));
    e.cluster.faults.dripListBodies({ maxChunkBytes: 64, delayMs: 1_000 });
    const { r, told } = reflector(e);
    const ac = new AbortController();
    const run = r.run(ac.signal);
    await e.clock.advance(1_000);
    assert.equal(r.phase, "listing");
    r.requestRelist(); // the list under way may predate what the caller saw
    e.cluster.faults.wholeBodies();
    await e.clock.advance(60_000);
    assert.deepEqual(lists(e), ["rv=0", "rv="]);
    assert.equal(told.filter((t) => t.startsWith("replace")).length, 2);
    assert.equal(r.phase, "watching");
    ac.abort();
    await run;
    await closed(e);
  });
});
