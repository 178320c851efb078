import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { configmaps, deployments, KubeClient, namespaces, pods } from "../../src/client/mod.ts";
import { SimulatedCluster } from "@kinformer/simulator";
import { ManualClock } from "../../src/testing/manual_clock.ts";

interface Sent {
  method: string;
  path: string;
  query: Record<string, string>;
  contentType: string | null;
  body: unknown;
}

/** A client whose fetch records what each request sent and echoes the body back (or `{}`). */
function recordingClient(): { client: KubeClient; sent: Sent[] } {
  const sent: Sent[] = [];
  const client = new KubeClient({
    server: "http://127.0.0.1:8001",
    fetch: async (request) => {
      const url = new URL(request.url);
      const text = await request.text();
      const body: unknown = text === "" ? undefined : JSON.parse(text);
      sent.push({
        method: request.method,
        path: url.pathname,
        query: Object.fromEntries(url.searchParams),
        contentType: request.headers.get("content-type"),
        body,
      });
      return Response.json(body ?? { metadata: { name: "echo" } });
    },
  });
  return { client, sent };
}

describe("server-side apply", () => {
  test("apply PATCHes apply-patch+yaml with fieldManager, and fills apiVersion and kind", async () => {
    const { client, sent } = recordingClient();
    await client.apply(
      deployments,
      { metadata: { name: "web", namespace: "prod" }, spec: { replicas: 3 } },
      { fieldManager: "my-controller" },
    );
    assert.deepEqual(sent[0], {
      method: "PATCH",
      path: "/apis/apps/v1/namespaces/prod/deployments/web",
      query: { fieldManager: "my-controller" },
      contentType: "application/apply-patch+yaml",
      body: {
        apiVersion: "apps/v1",
        kind: "Deployment",
        metadata: { name: "web", namespace: "prod" },
        spec: { replicas: 3 },
      },
    });
  });

  test("apply keeps the object's own apiVersion and kind, and sends force=true and dryRun=All", async () => {
    const { client, sent } = recordingClient();
    await client.apply(
      configmaps,
      { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "a" }, data: { k: "v" } },
      { fieldManager: "m", force: true, dryRun: true, namespace: "default" },
    );
    assert.equal(sent[0]?.path, "/api/v1/namespaces/default/configmaps/a");
    assert.deepEqual(sent[0]?.query, { fieldManager: "m", dryRun: "All", force: "true" });
    assert.deepEqual(Object.keys(sent[0]?.body as object), [
      "apiVersion",
      "kind",
      "metadata",
      "data",
    ]);
  });

  test("apply to status and to scale addresses the subresource; scale sends an autoscaling/v1 Scale", async () => {
    const { client, sent } = recordingClient();
    await client.apply(
      pods,
      { metadata: { name: "p", namespace: "d" }, status: { phase: "Running" } },
      { fieldManager: "m", subresource: "status" },
    );
    await client.apply(
      deployments,
      { metadata: { name: "web", namespace: "d" }, spec: { replicas: 2 } },
      { fieldManager: "m", subresource: "scale" },
    );
    assert.equal(sent[0]?.path, "/api/v1/namespaces/d/pods/p/status");
    assert.equal((sent[0]?.body as { kind: string }).kind, "Pod");
    assert.equal(sent[1]?.path, "/apis/apps/v1/namespaces/d/deployments/web/scale");
    assert.deepEqual(sent[1]?.body, {
      apiVersion: "autoscaling/v1",
      kind: "Scale",
      metadata: { name: "web", namespace: "d" },
      spec: { replicas: 2 },
    });
  });

  test("apply without a fieldManager, a name or a namespace is a TypeError and sends nothing", async () => {
    const { client, sent } = recordingClient();
    const object = { metadata: { name: "a", namespace: "d" } };
    await assert.rejects(
      client.apply(configmaps, object, {} as { fieldManager: string }),
      /options\.fieldManager must be a non-empty string \(server-side apply needs one\)/,
    );
    await assert.rejects(
      client.apply(configmaps, object, { fieldManager: "" }),
      /fieldManager/,
    );
    await assert.rejects(
      client.apply(configmaps, { metadata: { namespace: "d" } }, { fieldManager: "m" }),
      /object\.metadata\.name is required to apply/,
    );
    await assert.rejects(
      client.apply(configmaps, { metadata: { name: "a" } }, { fieldManager: "m" }),
      /namespace is required/,
    );
    await assert.rejects(
      client.apply(configmaps, object, { fieldManager: "m", force: "yes" as unknown as boolean }),
      /options\.force must be a boolean/,
    );
    await assert.rejects(
      client.apply(configmaps, object, {
        fieldManager: "m",
        subresource: "log" as unknown as "status",
      }),
      /options\.subresource must be "status" or "scale"/,
    );
    assert.equal(sent.length, 0);
  });

  test("a fieldManager over 128 characters or with control characters is refused", async () => {
    const { client, sent } = recordingClient();
    const object = { metadata: { name: "a", namespace: "d" } };
    await assert.rejects(
      client.apply(configmaps, object, { fieldManager: "m".repeat(129) }),
      /at most 128 printable ASCII characters/,
    );
    await assert.rejects(
      client.create(configmaps, object, { fieldManager: "bad\nname" }),
      /at most 128 printable ASCII characters/,
    );
    await client.apply(configmaps, object, { fieldManager: "m".repeat(128) });
    assert.equal(sent.length, 1);
  });
});

describe("fieldManager, dryRun, subresources and preconditions", () => {
  test("create, replace and patch send fieldManager and dryRun=All", async () => {
    const { client, sent } = recordingClient();
    const options = { fieldManager: "tool", dryRun: true } as const;
    await client.create(configmaps, { metadata: { name: "a", namespace: "d" } }, options);
    await client.replace(configmaps, { metadata: { name: "a", namespace: "d" } }, options);
    await client.patch(configmaps, "a", { data: { k: "v" } }, { ...options, namespace: "d" });
    for (const s of sent) assert.deepEqual(s.query, { fieldManager: "tool", dryRun: "All" });
    assert.deepEqual(sent.map((s) => s.method), ["POST", "PUT", "PATCH"]);
  });

  test("dryRun: false and no fieldManager send neither parameter; a non-boolean dryRun is refused", async () => {
    const { client, sent } = recordingClient();
    await client.create(configmaps, { metadata: { name: "a", namespace: "d" } }, { dryRun: false });
    assert.deepEqual(sent[0]?.query, {});
    await assert.rejects(
      client.create(configmaps, { metadata: { name: "a", namespace: "d" } }, {
        dryRun: "All" as unknown as boolean,
      }),
      /options\.dryRun must be a boolean/,
    );
  });

  test("get, replace and patch address the status and scale subresources", async () => {
    const { client, sent } = recordingClient();
    await client.get(deployments, "web", { namespace: "d", subresource: "scale" });
    await client.get(pods, "p", { namespace: "d", subresource: "status" });
    await client.replace(
      deployments,
      { metadata: { name: "web", namespace: "d" }, spec: { replicas: 4 } },
      { subresource: "scale" },
    );
    await client.replace(
      pods,
      { metadata: { name: "p", namespace: "d" }, status: { phase: "Failed" } },
      { subresource: "status" },
    );
    await client.patch(deployments, "web", { spec: { replicas: 1 } }, {
      namespace: "d",
      subresource: "scale",
    });
    assert.deepEqual(sent.map((s) => `${s.method} ${s.path}`), [
      "GET /apis/apps/v1/namespaces/d/deployments/web/scale",
      "GET /api/v1/namespaces/d/pods/p/status",
      "PUT /apis/apps/v1/namespaces/d/deployments/web/scale",
      "PUT /api/v1/namespaces/d/pods/p/status",
      "PATCH /apis/apps/v1/namespaces/d/deployments/web/scale",
    ]);
  });

  test("create with a subresource, or an unknown subresource, is a TypeError", async () => {
    const { client, sent } = recordingClient();
    await assert.rejects(
      client.create(configmaps, { metadata: { name: "a", namespace: "d" } }, {
        subresource: "status",
      }),
      /options\.subresource cannot be set on a create/,
    );
    await assert.rejects(
      client.get(pods, "p", { namespace: "d", subresource: "exec" as unknown as "status" }),
      /options\.subresource must be "status" or "scale"/,
    );
    assert.equal(sent.length, 0);
  });

  test("delete sends preconditions in a DeleteOptions body with every other option, which also go as parameters", async () => {
    const { client, sent } = recordingClient();
    await client.delete(namespaces, "team", {
      preconditions: { uid: "u-1", resourceVersion: "42" },
      propagationPolicy: "Background",
      dryRun: true,
    });
    assert.deepEqual(sent[0], {
      method: "DELETE",
      path: "/api/v1/namespaces/team",
      query: { propagationPolicy: "Background", dryRun: "All" },
      contentType: "application/json",
      body: {
        kind: "DeleteOptions",
        apiVersion: "v1",
        preconditions: { uid: "u-1", resourceVersion: "42" },
        propagationPolicy: "Background",
        dryRun: ["All"],
      },
    });
    await client.delete(namespaces, "team");
    assert.equal(sent[1]?.body, undefined);
  });

  test("bad preconditions are TypeErrors naming the field", async () => {
    const { client, sent } = recordingClient();
    await assert.rejects(
      client.delete(namespaces, "team", { preconditions: { uid: 7 as unknown as string } }),
      /options\.preconditions\.uid must be a string/,
    );
    await assert.rejects(
      client.delete(namespaces, "team", {
        preconditions: "uid" as unknown as { uid: string },
      }),
      /options\.preconditions must be an object/,
    );
    assert.equal(sent.length, 0);
  });
});

describe("delete options reach a server that reads DeleteOptions as kube-apiserver does", () => {
  // kube-apiserver decodes DeleteOptions from the body when there is one, and only then from
  // the query: a propagation policy or dryRun sent as a parameter beside a body is ignored.
  const owner = (c: SimulatedCluster) =>
    c.create(configmaps, { metadata: { namespace: "default", name: "owner" } });
  const dependent = (c: SimulatedCluster, uid: string) =>
    c.create(configmaps, {
      metadata: {
        namespace: "default",
        name: "dependent",
        ownerReferences: [{ apiVersion: "v1", kind: "ConfigMap", name: "owner", uid }],
      },
    });

  test("propagationPolicy with preconditions: Orphan keeps the dependents", async () => {
    const clock = new ManualClock();
    const c = new SimulatedCluster({ clock });
    const client = new KubeClient({ server: "http://sim", fetch: c.fetch });
    const uid = owner(c).metadata.uid!;
    dependent(c, uid);
    await client.delete(configmaps, "owner", {
      namespace: "default",
      preconditions: { uid },
      propagationPolicy: "Orphan",
    });
    await clock.advance(1_000);
    const kept = c.get(configmaps, { namespace: "default", name: "dependent" });
    assert.ok(kept, "the dependent was orphaned, not collected");
    assert.deepEqual(kept.metadata.ownerReferences ?? [], []);
    c.close();
  });

  test("dryRun with preconditions deletes nothing", async () => {
    const c = new SimulatedCluster();
    const client = new KubeClient({ server: "http://sim", fetch: c.fetch });
    const uid = owner(c).metadata.uid!;
    await client.delete(configmaps, "owner", {
      namespace: "default",
      preconditions: { uid },
      dryRun: true,
    });
    assert.ok(c.get(configmaps, { namespace: "default", name: "owner" }));
    c.close();
  });
});
