import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { configmaps, namespaces } from "../../../src/client/resource.ts";
import type { KubeObject } from "../../../src/client/types.ts";
import {
  annotationsChanged,
  generationChanged,
  type InformerEventHandlerLike,
  type InformerLike,
  type InformerRegistrationLike,
  labelsChanged,
  owns,
  runController,
  type RunControllerOptions,
  watches,
} from "../../../src/controller/mod.ts";
import { ManualClock } from "../../../src/testing/manual_clock.ts";
import { widgets } from "@kinformer/simulator";
import { closed, env } from "../../_informer_env.ts";

/** An informer stand-in, synced at once; events are emitted by hand. */
class Fake implements InformerLike<KubeObject> {
  readonly handlers = new Set<InformerEventHandlerLike<KubeObject>>();
  starts = 0;
  addEventHandler(handler: InformerEventHandlerLike<KubeObject>): InformerRegistrationLike {
    this.handlers.add(handler);
    return { hasSynced: () => true, remove: () => void this.handlers.delete(handler) };
  }
  start(): void {
    this.starts++;
  }
  add(o: KubeObject): void {
    for (const h of this.handlers) h.onAdd?.(o, false);
  }
  update(a: KubeObject, b: KubeObject): void {
    for (const h of this.handlers) h.onUpdate?.(a, b);
  }
  delete(o: KubeObject): void {
    for (const h of this.handlers) h.onDelete?.(o, false);
  }
}

/**
 * Runs a controller whose reconcile records keys; `settle()` lets queued work run; `stop()`
 * ends it and returns the keys and errors seen.
 */
function run(options: Omit<RunControllerOptions<KubeObject>, "signal" | "reconcile">) {
  const keys: string[] = [];
  const errors: unknown[] = [];
  const abort = new AbortController();
  const clock = new ManualClock();
  const done = runController({
    ...options,
    clock,
    signal: abort.signal,
    reconcile: (key) => void keys.push(key),
    onError: (error) => void errors.push(error),
  });
  return {
    keys,
    errors,
    settle: () => clock.flush(10),
    stop: async (): Promise<{ keys: string[]; errors: unknown[] }> => {
      abort.abort();
      await done;
      return { keys, errors };
    },
  };
}

const ref = (kind: string, name: string, controller = true, apiVersion = "example.com/v1") => ({
  apiVersion,
  kind,
  name,
  uid: `uid-${name}`,
  controller,
});

function child(name: string, owners: ReturnType<typeof ref>[], namespace = "default"): KubeObject {
  return { metadata: { namespace, name, ownerReferences: owners } };
}

describe("owns(): owned objects enqueue their controller", () => {
  test("a child's event enqueues its controller owner of the owner's group and kind", async () => {
    const parents = new Fake();
    const children = new Fake();
    const r = run({ informers: [parents], sources: [owns(children, widgets)] });
    await r.settle();
    children.add(child("a", [ref("Widget", "w1")]));
    children.add(child("b", [ref("Widget", "w2", false)])); // not the controller
    children.add(child("c", [ref("Gadget", "g1")])); // another kind
    children.add(child("d", [ref("Widget", "w3", true, "other.io/v1")])); // another group
    children.add(child("e", [ref("Widget", "w4", true, "example.com/v2")])); // any version
    children.add({ metadata: { namespace: "default", name: "orphan" } });
    await r.settle();
    assert.deepEqual((await r.stop()).keys, ["default/w1", "default/w4"]);
  });

  test("an owner change in an update reaches the old and the new owner", async () => {
    const children = new Fake();
    const r = run({ informers: [], sources: [owns(children, widgets)] });
    await r.settle();
    children.update(child("a", [ref("Widget", "old")]), child("a", [ref("Widget", "new")]));
    await r.settle();
    assert.deepEqual((await r.stop()).keys.sort(), ["default/new", "default/old"]);
  });

  test("a cluster-scoped owner's key is its name; deletes enqueue too", async () => {
    const children = new Fake();
    const r = run({ informers: [], sources: [owns(children, namespaces)] });
    await r.settle();
    children.delete(child("cm", [ref("Namespace", "team-a", true, "v1")], "team-a"));
    await r.settle();
    assert.deepEqual((await r.stop()).keys, ["team-a"]);
  });

  test("owns() and watches() check their arguments; sources must come from them", () => {
    const fake = new Fake();
    assert.throws(() => owns({} as never, widgets), /owns\(\): informer must have/);
    assert.throws(() => owns(fake, null as never), /owns\(\): owner must be a resource/);
    assert.throws(() => watches(fake, "x" as never), /watches\(\): map must be a function/);
    assert.throws(
      () => owns(fake, widgets, { updatePredicates: generationChanged as never }),
      /owns\(\): options\.updatePredicates must be an array/,
    );
    assert.rejects(
      runController({
        informers: [],
        sources: [{ informer: fake } as never],
        signal: AbortSignal.abort(),
        reconcile: () => {},
      }),
      /sources\[0\] must be made by owns\(\) or watches\(\)/,
    );
  });

  test("an informer that is both watched and a source is started once", async () => {
    const shared = new Fake();
    const r = run({ informers: [shared], sources: [watches(shared, () => "k")] });
    await r.settle();
    await r.stop();
    assert.equal(shared.starts, 1);
  });
});

describe("watches(): other objects map to keys through a function", () => {
  test("the map's keys are enqueued; a throwing map is reported and enqueues nothing", async () => {
    const secrets = new Fake();
    const r = run({
      informers: [],
      sources: [
        watches(secrets, (s) => {
          if (s.metadata.name === "bad") throw new Error("cannot map");
          return [`default/${s.metadata.name}-a`, `default/${s.metadata.name}-b`];
        }),
      ],
    });
    await r.settle();
    secrets.add({ metadata: { namespace: "default", name: "s" } });
    secrets.add({ metadata: { namespace: "default", name: "bad" } });
    await r.settle();
    const { keys, errors } = await r.stop();
    assert.deepEqual(keys.sort(), ["default/s-a", "default/s-b"]);
    assert.equal((errors[0] as Error).message, "cannot map");
  });

  test("a map returning something else is reported with the source's position", async () => {
    const other = new Fake();
    const r = run({ informers: [], sources: [watches(other, () => 7 as never)] });
    await r.settle();
    other.add({ metadata: { name: "x" } });
    await r.settle();
    const { errors } = await r.stop();
    assert.match(String(errors[0]), /sources\[0\] must return a string/);
  });
});

describe("update predicates", () => {
  const obj = (
    generation: number,
    labels: Record<string, string> = {},
    status = "",
    name = "w",
  ): KubeObject => ({
    metadata: { namespace: "default", name, generation, labels },
    status: { phase: status },
  });

  test("only updates a predicate accepts enqueue; adds and deletes always do", async () => {
    const parents = new Fake();
    const r = run({ informers: [parents], updatePredicates: [generationChanged, labelsChanged] });
    await r.settle();
    parents.update(obj(1), obj(1, {}, "Ready")); // status only: filtered
    parents.update(obj(1), obj(1)); // a resync: filtered
    await r.settle();
    assert.deepEqual(r.keys, []);
    parents.update(obj(1, {}, "", "spec"), obj(2, {}, "", "spec")); // spec changed
    parents.update(obj(2, {}, "", "labels"), obj(2, { tier: "web" }, "", "labels"));
    parents.add(obj(3, {}, "", "added"));
    await r.settle();
    parents.delete(obj(3, {}, "", "added"));
    await r.settle();
    assert.deepEqual((await r.stop()).keys, [
      "default/spec",
      "default/labels",
      "default/added",
      "default/added",
    ]);
  });

  test("a source's own predicates filter its updates", async () => {
    const children = new Fake();
    const r = run({
      informers: [],
      sources: [owns(children, widgets, { updatePredicates: [annotationsChanged] })],
    });
    await r.settle();
    const c = (note: string): KubeObject => ({
      metadata: {
        namespace: "default",
        name: "c",
        annotations: { note },
        ownerReferences: [ref("Widget", "w")],
      },
    });
    children.update(c("a"), { ...c("a"), data: { changed: "yes" } });
    await r.settle();
    assert.deepEqual(r.keys, []);
    children.update(c("a"), c("b"));
    await r.settle();
    assert.deepEqual((await r.stop()).keys, ["default/w"]);
  });

  test("a predicate that throws is reported, and the update enqueues", async () => {
    const parents = new Fake();
    const r = run({
      informers: [parents],
      updatePredicates: [() => {
        throw new Error("bad predicate");
      }],
    });
    await r.settle();
    parents.update(obj(1), obj(1, {}, "x"));
    await r.settle();
    const { keys, errors } = await r.stop();
    assert.deepEqual(keys, ["default/w"]);
    assert.equal((errors[0] as Error).message, "bad predicate");
  });
});

describe("owns() with real informers on the simulated cluster", () => {
  test("ConfigMaps owned by a Widget enqueue the Widget; its status writes do not (generationChanged)", async () => {
    const e = env();
    const widgetInformer = e.informer({ resource: widgets });
    const cmInformer = e.informer({ resource: configmaps });
    const w = e.cluster.create(widgets, {
      metadata: { name: "w1", namespace: "default" },
      spec: { size: 1 },
    });
    const keys: string[] = [];
    const abort = new AbortController();
    const done = runController({
      informers: [widgetInformer],
      sources: [owns(cmInformer, widgets)],
      updatePredicates: [generationChanged],
      signal: abort.signal,
      clock: e.clock,
      reconcile: (key) => void keys.push(key),
    });
    const settle = async (): Promise<void> => {
      for (let i = 0; i < 20; i++) await e.clock.flush(1);
    };
    await settle();
    assert.deepEqual(keys, ["default/w1"], "the initial list");
    e.cluster.create(configmaps, {
      metadata: {
        name: "w1-config",
        namespace: "default",
        ownerReferences: [{
          apiVersion: "example.com/v1",
          kind: "Widget",
          name: "w1",
          uid: w.metadata.uid!,
          controller: true,
        }],
      },
    });
    await settle();
    assert.deepEqual(keys, ["default/w1", "default/w1"], "the owned ConfigMap's add");
    e.cluster.patch(widgets, { namespace: "default", name: "w1" }, { status: { ready: true } });
    await settle();
    assert.equal(keys.length, 2, "a status change does not bump the generation");
    e.cluster.patch(widgets, { namespace: "default", name: "w1" }, { spec: { size: 2 } });
    await settle();
    assert.equal(keys.length, 3, "a spec change does");
    abort.abort();
    await done;
    await closed(e);
  });
});
