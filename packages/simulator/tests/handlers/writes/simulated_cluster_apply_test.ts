import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { KubeApiError } from "../../../../../src/client/errors.ts";
import { KubeClient } from "../../../../../src/client/kube_client.ts";
import { configmaps, deployments, pods } from "../../../../../src/client/resource.ts";
import type {
  KubeObject,
  ManagedFieldsEntry,
  ObjectMeta,
} from "../../../../../src/client/types.ts";
import { ManualClock } from "../../../../../src/testing/manual_clock.ts";
import { SimulatedCluster } from "../../../src/cluster/simulated_cluster.ts";
import { widgets } from "../../../src/model/kinds/widgets.ts";
import { deploymentFixture } from "../../../../../src/testing/fixtures.ts";

const START = 1_700_000_000_000; // 2023-11-14T22:13:20Z

function setup(): { c: SimulatedCluster; client: KubeClient; clock: ManualClock } {
  const clock = new ManualClock(START);
  const c = new SimulatedCluster({ clock, seed: 3 });
  return { c, clock, client: new KubeClient({ server: "http://sim", fetch: c.fetch }) };
}

const cm = (data: Record<string, string>, labels?: Record<string, string>): KubeObject => ({
  metadata: { name: "settings", namespace: "default", ...(labels ? { labels } : {}) },
  data,
});

/** The managedFields entries of an object, by manager (and operation/subresource). */
function owners(
  object: { metadata?: ObjectMeta | undefined },
): Record<string, ManagedFieldsEntry["fieldsV1"]> {
  const out: Record<string, ManagedFieldsEntry["fieldsV1"]> = {};
  for (const e of object.metadata?.managedFields ?? []) {
    const name = `${e.manager}/${e.operation}${e.subresource ? `/${e.subresource}` : ""}`;
    out[name] = e.fieldsV1;
  }
  return out;
}

async function rejects(
  promise: Promise<unknown>,
  code: number,
  check?: (e: KubeApiError) => void,
): Promise<void> {
  await assert.rejects(promise, (e: unknown) => {
    assert.ok(e instanceof KubeApiError, String(e));
    assert.equal(e.code, code, e.message);
    check?.(e);
    return true;
  });
}

describe("server-side apply in the simulated cluster", () => {
  test("a YAML body is read as YAML (not as a kubeconfig); a broken one is a 400 naming the line", async () => {
    const { c } = setup();
    const send = (body: string) =>
      c.fetch(
        new Request("http://sim/api/v1/namespaces/default/configmaps/settings?fieldManager=ctl", {
          method: "PATCH",
          headers: { "content-type": "application/apply-patch+yaml" },
          body,
        }),
      );
    const created = await send(
      "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: settings\ndata:\n  mode: fast\n",
    );
    assert.equal(created.status, 201);
    const broken = await send("apiVersion: v1\nkind: ConfigMap\ndata:\n  mode: &a fast\n");
    assert.equal(broken.status, 400);
    const status = await broken.json() as { message: string };
    assert.match(status.message, /^error decoding YAML: apply configuration:4:9: anchors/);
    assert.doesNotMatch(status.message, /kubeconfig/);
    c.close();
  });

  test("apply creates the object (201) and records the applier's fields in managedFields", async () => {
    const { c } = setup();
    const res = await c.fetch(
      new Request("http://sim/api/v1/namespaces/default/configmaps/settings?fieldManager=ctl", {
        method: "PATCH",
        headers: { "content-type": "application/apply-patch+yaml" },
        body: JSON.stringify({ apiVersion: "v1", kind: "ConfigMap", ...cm({ mode: "fast" }) }),
      }),
    );
    assert.equal(res.status, 201);
    const created = await res.json() as KubeObject;
    assert.deepEqual(created.metadata.managedFields, [{
      manager: "ctl",
      operation: "Apply",
      apiVersion: "v1",
      time: "2023-11-14T22:13:20Z",
      fieldsType: "FieldsV1",
      fieldsV1: { "f:data": { "f:mode": {} } },
    }]);
    assert.deepEqual(c.get(configmaps, { namespace: "default", name: "settings" })?.data, {
      mode: "fast",
    });
    c.close();
  });

  test("applying the same configuration again is a no-op: same resourceVersion, same times", async () => {
    const { c, client, clock } = setup();
    const first = await client.apply(configmaps, cm({ mode: "fast" }), { fieldManager: "ctl" });
    await clock.advance(60_000);
    const rv = c.resourceVersion;
    const again = await client.apply(configmaps, cm({ mode: "fast" }), { fieldManager: "ctl" });
    assert.equal(c.resourceVersion, rv);
    assert.deepEqual(again, first);
    c.close();
  });

  test("apply merges into fields others set, and removes what it applied before and leaves out now", async () => {
    const { c, client } = setup();
    await client.apply(configmaps, cm({ a: "1", b: "2" }), { fieldManager: "ctl" });
    await client.patch(configmaps, "settings", { data: { other: "x" } }, {
      namespace: "default",
      fieldManager: "editor",
    });
    const next = await client.apply(configmaps, cm({ a: "1" }), { fieldManager: "ctl" });
    assert.deepEqual(next.data, { a: "1", other: "x" }, "b removed, other kept");
    assert.deepEqual(owners(next), {
      "ctl/Apply": { "f:data": { "f:a": {} } },
      "editor/Update": { "f:data": { "f:other": {} } },
    });
    c.close();
  });

  test("a field another applier co-owns (same value) is not removed when one of them leaves it out", async () => {
    const { c, client } = setup();
    await client.apply(configmaps, cm({ shared: "v", mine: "1" }), { fieldManager: "a" });
    const both = await client.apply(configmaps, cm({ shared: "v" }), { fieldManager: "b" });
    assert.deepEqual(owners(both), {
      "a/Apply": { "f:data": { "f:shared": {}, "f:mine": {} } },
      "b/Apply": { "f:data": { "f:shared": {} } },
    });
    const after = await client.apply(configmaps, cm({ mine: "1" }), { fieldManager: "a" });
    assert.deepEqual(after.data, { shared: "v", mine: "1" });
    c.close();
  });

  test("changing a field another manager owns is a 409 Conflict naming the field and the manager", async () => {
    const { c, client } = setup();
    await client.apply(configmaps, cm({ mode: "fast" }), { fieldManager: "alice" });
    const rv = c.resourceVersion;
    await rejects(
      client.apply(configmaps, cm({ mode: "safe" }), { fieldManager: "bob" }),
      409,
      (e) => {
        assert.equal(e.reason, "Conflict");
        assert.equal(
          e.status?.message,
          'Apply failed with 1 conflict: conflict with "alice": .data.mode',
        );
        assert.deepEqual(e.status?.details?.causes, [{
          reason: "FieldManagerConflict",
          message: 'conflict with "alice"',
          field: ".data.mode",
        }]);
      },
    );
    assert.equal(c.resourceVersion, rv, "nothing written");
    c.close();
  });

  test("force takes the field over: the other manager no longer owns it", async () => {
    const { c, client } = setup();
    await client.apply(configmaps, cm({ mode: "fast", keep: "1" }), { fieldManager: "alice" });
    const forced = await client.apply(configmaps, cm({ mode: "safe" }), {
      fieldManager: "bob",
      force: true,
    });
    assert.deepEqual(forced.data, { mode: "safe", keep: "1" });
    assert.deepEqual(owners(forced), {
      "alice/Apply": { "f:data": { "f:keep": {} } },
      "bob/Apply": { "f:data": { "f:mode": {} } },
    });
    c.close();
  });

  test("a non-apply write takes ownership without conflict; the applier's old value then conflicts", async () => {
    const { c, client, clock } = setup();
    await client.apply(deployments, {
      metadata: { name: "web", namespace: "default" },
      spec: { replicas: 2 },
    }, { fieldManager: "deployer" });
    await clock.advance(5_000);
    const scaled = await client.patch(deployments, "web", { spec: { replicas: 5 } }, {
      namespace: "default",
      fieldManager: "kubectl-scale",
    });
    assert.deepEqual(owners(scaled), {
      "kubectl-scale/Update": { "f:spec": { "f:replicas": {} } },
    });
    await rejects(
      client.apply(deployments, {
        metadata: { name: "web", namespace: "default" },
        spec: { replicas: 2 },
      }, { fieldManager: "deployer" }),
      409,
      (e) =>
        assert.equal(
          e.status?.message,
          'Apply failed with 1 conflict: conflict with "kubectl-scale" using apps/v1 at ' +
            "2023-11-14T22:13:25Z: .spec.replicas",
        ),
    );
    c.close();
  });

  test("conflicts with several managers are listed per manager, as the API server words them", async () => {
    const { c, client } = setup();
    await client.apply(configmaps, cm({ a: "1" }), { fieldManager: "m1" });
    await client.apply(configmaps, cm({ b: "1" }), { fieldManager: "m2" });
    await rejects(
      client.apply(configmaps, cm({ a: "2", b: "2" }), { fieldManager: "m3" }),
      409,
      (e) => {
        assert.equal(
          e.status?.message,
          'Apply failed with 2 conflicts: conflicts with "m1":\n- .data.a\n' +
            'conflicts with "m2":\n- .data.b',
        );
        assert.equal(e.status?.details?.causes?.length, 2);
      },
    );
    c.close();
  });

  test("fields set before the first apply belong to before-first-apply", async () => {
    const { c, client } = setup();
    c.create(configmaps, cm({ mode: "fast" })); // control API: no managedFields
    await rejects(
      client.apply(configmaps, cm({ mode: "safe" }), { fieldManager: "ctl" }),
      409,
      (e) => assert.match(e.status?.message ?? "", /conflict with "before-first-apply" using v1/),
    );
    const same = await client.apply(configmaps, cm({ mode: "fast", extra: "1" }), {
      fieldManager: "ctl",
    });
    assert.deepEqual(Object.keys(owners(same)).sort(), ["before-first-apply/Update", "ctl/Apply"]);
    c.close();
  });

  test("an apply body may be YAML", async () => {
    const { c } = setup();
    const res = await c.fetch(
      new Request("http://sim/api/v1/namespaces/default/configmaps/y?fieldManager=ctl", {
        method: "PATCH",
        headers: { "content-type": "application/apply-patch+yaml" },
        body: "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: y\ndata:\n  mode: fast\n",
      }),
    );
    assert.equal(res.status, 201);
    assert.deepEqual(c.get(configmaps, { namespace: "default", name: "y" })?.data, {
      mode: "fast",
    });
    c.close();
  });

  test("apply checks kind, apiVersion, name, fieldManager and force as the API server does", async () => {
    const { c, client } = setup();
    const url = "http://sim/api/v1/namespaces/default/configmaps/settings";
    const send = (query: string, body: unknown, type = "application/apply-patch+yaml") =>
      c.fetch(
        new Request(`${url}${query}`, {
          method: "PATCH",
          headers: { "content-type": type },
          body: JSON.stringify(body),
        }),
      );
    const good = { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "settings" } };
    assert.equal((await send("?fieldManager=m", { ...good, kind: "Secret" })).status, 400);
    assert.equal((await send("?fieldManager=m", { ...good, apiVersion: "v2" })).status, 400);
    assert.equal(
      (await send("?fieldManager=m", { ...good, metadata: { name: "other" } })).status,
      400,
    );
    const noManager = await send("", good);
    assert.equal(noManager.status, 422);
    const status = await noManager.json() as { message: string; details: { causes: unknown[] } };
    assert.equal(
      status.message,
      'PatchOptions.meta.k8s.io "" is invalid: fieldManager: Required value: is required for apply patch',
    );
    assert.equal((await send(`?fieldManager=${"m".repeat(129)}`, good)).status, 422);
    const forcedMerge = await send("?force=true", { data: {} }, "application/merge-patch+json");
    assert.equal(forcedMerge.status, 422);
    assert.equal((await send("?fieldManager=m&dryRun=Yes", good)).status, 400);
    assert.equal(c.list(configmaps).length, 0);
    await client.apply(configmaps, cm({}), { fieldManager: "m" });
    c.close();
  });
});

describe("field managers of other writes", () => {
  test("create, update and patch record an Update entry for fieldManager, else the user agent", async () => {
    const { c, client } = setup();
    const made = await client.create(configmaps, cm({ a: "1" }));
    assert.deepEqual(owners(made), { "kinformer/Update": { "f:data": { "f:a": {} } } });
    const edited = await client.replace(configmaps, { ...made, data: { a: "1", b: "2" } }, {
      fieldManager: "kubectl-edit",
    });
    assert.deepEqual(owners(edited), {
      "kinformer/Update": { "f:data": { "f:a": {} } },
      "kubectl-edit/Update": { "f:data": { "f:b": {} } },
    });
    c.close();
  });

  test("an update sending managedFields [{}] clears them", async () => {
    const { c, client } = setup();
    const made = await client.create(configmaps, cm({ a: "1" }));
    const cleared = await client.replace(configmaps, {
      ...made,
      metadata: { ...made.metadata, managedFields: [{}] },
    });
    assert.equal(cleared.metadata.managedFields, undefined);
    c.close();
  });
});

describe("dry runs", () => {
  test("dryRun create, replace, patch, apply and delete answer the result and store nothing", async () => {
    const { c, client } = setup();
    const made = await client.create(configmaps, cm({ a: "1" }));
    const rv = c.resourceVersion; // global: any stored change would move it
    const dry = { dryRun: true } as const;
    const wouldCreate = await client.create(
      configmaps,
      { metadata: { name: "new", namespace: "default" } },
      dry,
    );
    assert.equal(wouldCreate.metadata.name, "new");
    assert.equal(wouldCreate.metadata.resourceVersion, undefined);
    const wouldReplace = await client.replace(configmaps, { ...made, data: { a: "2" } }, dry);
    assert.deepEqual(wouldReplace.data, { a: "2" });
    const wouldPatch = await client.patch(configmaps, "settings", { data: { b: "3" } }, {
      namespace: "default",
      ...dry,
    });
    assert.deepEqual(wouldPatch.data, { a: "1", b: "3" });
    const wouldApply = await client.apply(configmaps, cm({ a: "1", c: "4" }), {
      fieldManager: "ctl",
      ...dry,
    });
    assert.deepEqual(wouldApply.data, { a: "1", c: "4" });
    await client.delete(configmaps, "settings", { namespace: "default", ...dry });
    assert.equal(c.resourceVersion, rv);
    assert.deepEqual(c.list(configmaps).map((o) => o.data), [{ a: "1" }]);
    c.close();
  });
});

describe("delete preconditions", () => {
  test("a delete whose uid or resourceVersion precondition does not hold is 409 Conflict", async () => {
    const { c, client } = setup();
    const made = await client.create(configmaps, cm({ a: "1" }));
    const ns = { namespace: "default" };
    await rejects(
      client.delete(configmaps, "settings", { ...ns, preconditions: { uid: "x" } }),
      409,
    );
    await rejects(
      client.delete(configmaps, "settings", { ...ns, preconditions: { resourceVersion: "1" } }),
      409,
    );
    assert.equal(c.list(configmaps).length, 1);
    await client.delete(configmaps, "settings", {
      ...ns,
      preconditions: { uid: made.metadata.uid, resourceVersion: made.metadata.resourceVersion },
    });
    assert.equal(c.list(configmaps).length, 0);
    c.close();
  });
});

describe("status and scale subresources", () => {
  test("writes to /status change only the status; writes to the object keep the old status", async () => {
    const { c, client } = setup();
    c.create(widgets, { metadata: { name: "w", namespace: "default" }, spec: { size: 1 } });
    const status = await client.replace(widgets, {
      metadata: { name: "w", namespace: "default" },
      spec: { size: 99 },
      status: { ready: true },
    }, { subresource: "status", fieldManager: "widget-controller" });
    assert.deepEqual([status.spec, status.status], [{ size: 1 }, { ready: true }]);
    assert.deepEqual(owners(status), {
      "widget-controller/Update/status": { "f:status": { "f:ready": {} } },
    });
    const main = await client.patch(widgets, "w", { spec: { size: 2 }, status: { ready: false } }, {
      namespace: "default",
    });
    assert.deepEqual([main.spec, main.status], [{ size: 2 }, { ready: true }]);
    const applied = await client.apply(widgets, {
      metadata: { name: "w", namespace: "default" },
      status: { ready: false, count: 3 },
    }, { fieldManager: "widget-controller", subresource: "status", force: true });
    assert.deepEqual([applied.spec, applied.status], [{ size: 2 }, { ready: false, count: 3 }]);
    assert.equal(
      applied.metadata.managedFields?.find((e) => e.operation === "Apply")?.subresource,
      "status",
    );
    c.close();
  });

  test("/scale reads and writes spec.replicas as an autoscaling/v1 Scale", async () => {
    const { c, client } = setup();
    const fixture = deploymentFixture(2, { name: "web", namespace: "default" });
    c.create(deployments, fixture);
    const ns = { namespace: "default" };
    const scale = await client.get(deployments, "web", { ...ns, subresource: "scale" });
    assert.equal(scale.kind, "Scale");
    assert.equal(scale.apiVersion, "autoscaling/v1");
    assert.deepEqual(scale.spec, { replicas: 2 });
    const app = fixture.metadata.labels!.app;
    assert.deepEqual(scale.status, { replicas: 0, selector: `app=${app},deployment=web` });
    const put = await client.replace(deployments, { ...scale, spec: { replicas: 4 } }, {
      subresource: "scale",
      fieldManager: "hpa",
    });
    assert.deepEqual(put.spec, { replicas: 4 });
    const object = c.get(deployments, { namespace: "default", name: "web" })!;
    assert.equal((object.spec as { replicas: number }).replicas, 4);
    assert.equal(object.metadata.generation, 2);
    assert.deepEqual(owners(object), { "hpa/Update/scale": { "f:spec": { "f:replicas": {} } } });
    const patched = await client.patch(deployments, "web", { spec: { replicas: 6 } }, {
      ...ns,
      subresource: "scale",
    });
    assert.deepEqual(patched.spec, { replicas: 6 });
    const applied = await client.apply(deployments, {
      metadata: { name: "web", namespace: "default" },
      spec: { replicas: 1 },
    }, { fieldManager: "autoscaler", subresource: "scale", force: true });
    assert.deepEqual(applied.spec, { replicas: 1 });
    const owned = c.get(deployments, { namespace: "default", name: "web" })!.metadata
      .managedFields!.find((e) => e.manager === "autoscaler");
    assert.deepEqual([owned?.operation, owned?.subresource], ["Apply", "scale"]);
    c.close();
  });

  test("a stale Scale resourceVersion is 409, negative replicas 422, and configmaps have no /scale", async () => {
    const { c, client } = setup();
    c.create(deployments, deploymentFixture(1, { name: "web", namespace: "default" }));
    const ns = { namespace: "default" };
    const scale = await client.get(deployments, "web", { ...ns, subresource: "scale" });
    await client.replace(deployments, { ...scale, spec: { replicas: 3 } }, {
      subresource: "scale",
    });
    await rejects(
      client.replace(deployments, { ...scale, spec: { replicas: 5 } }, { subresource: "scale" }),
      409,
    );
    await rejects(
      client.patch(deployments, "web", { spec: { replicas: -1 } }, { ...ns, subresource: "scale" }),
      422,
    );
    c.create(configmaps, cm({}));
    await rejects(client.get(configmaps, "settings", { ...ns, subresource: "scale" }), 404);
    await rejects(client.get(pods, "nope", { ...ns, subresource: "status" }), 404);
    c.close();
  });
});
