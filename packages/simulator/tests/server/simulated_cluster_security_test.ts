// The simulated cluster is served over real HTTP in users' tests, so it must survive hostile
// requests: JSON that tries to reach Object.prototype (Deno has no `__proto__` accessor, so the
// pollution cases only bite on Node and Bun; the suite runs them on every runtime anyway), and
// web pages on other origins that the developer happens to visit (CORS).
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { configmaps, pods } from "../../../../src/client/resource.ts";
import {
  SimulatedCluster,
  type SimulatedClusterOptions,
} from "../../src/cluster/simulated_cluster.ts";
import { adapters } from "../../../../tests/_serve.ts";

const POLLUTED = "kinformerPolluted";

/** Fails if anything was written to Object.prototype; cleans up so later tests still run. */
function assertPrototypeClean(): void {
  const own = Object.hasOwn(Object.prototype, POLLUTED);
  const inherited = (({}) as Record<string, unknown>)[POLLUTED];
  delete (Object.prototype as Record<string, unknown>)[POLLUTED];
  assert.equal(own, false, "Object.prototype was polluted");
  assert.equal(inherited, undefined, "Object.prototype was polluted");
}

for (const adapter of await adapters()) {
  describe(`SimulatedCluster hostile JSON over HTTP (${adapter.name})`, () => {
    async function setup(): Promise<{
      c: SimulatedCluster;
      send: (method: string, path: string, body: string, type?: string) => Promise<Response>;
      close: () => Promise<void>;
    }> {
      const c = new SimulatedCluster();
      const server = await adapter.serve(c.fetch, { hostname: "127.0.0.1", port: 0 });
      const send = (method: string, path: string, body: string, type = "application/json") =>
        fetch(`${server.url}${path}`, { method, headers: { "Content-Type": type }, body });
      return {
        c,
        send,
        close: async () => {
          delete (Object.prototype as Record<string, unknown>)[POLLUTED];
          c.close();
          await server.close();
        },
      };
    }

    test("JSON patch paths through __proto__, constructor or prototype answer 422", async () => {
      const { c, send, close } = await setup();
      try {
        c.create(configmaps, { metadata: { name: "a", namespace: "default" }, data: { k: "v" } });
        const path = "/api/v1/namespaces/default/configmaps/a";
        for (
          const pointer of [
            `/__proto__/${POLLUTED}`,
            `/metadata/__proto__/${POLLUTED}`,
            `/data/__proto__/${POLLUTED}`,
            `/constructor/prototype/${POLLUTED}`,
            `/metadata/constructor/prototype/${POLLUTED}`,
          ]
        ) {
          for (const op of ["add", "replace"]) {
            const patch = JSON.stringify([{ op, path: pointer, value: "yes" }]);
            const res = await send("PATCH", path, patch, "application/json-patch+json");
            const body = await res.json() as { reason?: string };
            assert.equal(res.status, 422, `${op} ${pointer}`);
            assert.equal(body.reason, "Invalid", `${op} ${pointer}`);
            assertPrototypeClean();
          }
          const copy = JSON.stringify([{ op: "copy", from: "/data/k", path: pointer }]);
          const res = await send("PATCH", path, copy, "application/json-patch+json");
          await res.body?.cancel();
          assert.equal(res.status, 422, `copy to ${pointer}`);
          assertPrototypeClean();
        }
        assert.deepEqual(c.get(configmaps, { namespace: "default", name: "a" })?.data, { k: "v" });
      } finally {
        await close();
      }
    });

    test("a JSON patch cannot remove or move properties of Object.prototype", async () => {
      const { c, send, close } = await setup();
      const sentinel = "kinformerSentinel";
      Object.defineProperty(Object.prototype, sentinel, {
        value: "still here",
        writable: true,
        configurable: true,
        enumerable: false,
      });
      try {
        c.create(configmaps, { metadata: { name: "a", namespace: "default" } });
        const path = "/api/v1/namespaces/default/configmaps/a";
        for (
          const ops of [
            [{ op: "remove", path: `/__proto__/${sentinel}` }],
            [{ op: "remove", path: `/metadata/__proto__/${sentinel}` }],
            [{ op: "move", from: `/__proto__/${sentinel}`, path: "/data" }],
          ]
        ) {
          const res = await send("PATCH", path, JSON.stringify(ops), "application/json-patch+json");
          await res.body?.cancel();
          assert.equal(res.status, 422, JSON.stringify(ops));
          assert.equal(Object.hasOwn(Object.prototype, sentinel), true, JSON.stringify(ops));
        }
      } finally {
        delete (Object.prototype as Record<string, unknown>)[sentinel];
        await close();
      }
    });

    test("__proto__ keys in bodies are data: they never become an object's prototype", async () => {
      const { c, send, close } = await setup();
      try {
        // A `__proto__` inside metadata must not lend the pod inherited finalizers.
        const create = await send(
          "POST",
          "/api/v1/namespaces/default/pods",
          `{"metadata":{"name":"p","__proto__":{"finalizers":["example.com/hold"],"${POLLUTED}":1}}}`,
        );
        assert.equal(create.status, 201);
        await create.body?.cancel();
        assertPrototypeClean();
        const del = await fetch(
          new URL("/api/v1/namespaces/default/pods/p", create.url),
          { method: "DELETE" },
        );
        assert.equal(del.status, 200);
        await del.body?.cancel();
        assert.equal(c.get(pods, { namespace: "default", name: "p" }), undefined, "deleted");

        // A merge patch whose keys are `__proto__` changes only the object.
        c.create(configmaps, { metadata: { name: "m", namespace: "default" } });
        const merge = await send(
          "PATCH",
          "/api/v1/namespaces/default/configmaps/m",
          `{"__proto__":{"${POLLUTED}":1},"metadata":{"__proto__":{"${POLLUTED}":1}}}`,
          "application/merge-patch+json",
        );
        await merge.body?.cancel();
        assertPrototypeClean();
        assert.ok(merge.status < 500, `merge patch answered ${merge.status}`);
      } finally {
        await close();
      }
    });

    test("server-side apply bodies: __proto__, constructor and prototype keys are data", async () => {
      const { c, send, close } = await setup();
      const path = "/api/v1/namespaces/default/configmaps";
      const apply = (name: string, body: string) =>
        send(
          "PATCH",
          `${path}/${name}?fieldManager=hostile`,
          body,
          "application/apply-patch+yaml",
        );
      /** The stored ConfigMap `name`, as JSON text parses it (own keys only). */
      const stored = (name: string): Record<string, unknown> =>
        JSON.parse(JSON.stringify(c.get(configmaps, { namespace: "default", name })));
      try {
        // JSON (which is YAML): hostile keys at the top and in metadata are fields ConfigMap
        // does not declare: server-side apply refuses them by name (its typed conversion
        // fails, whatever fieldValidation says), and nothing is polluted or stored.
        const hostile = JSON.stringify({
          apiVersion: "v1",
          kind: "ConfigMap",
          metadata: { name: "j" },
        }).replace(
          /}}$/,
          `,"__proto__":{"finalizers":["example.com/hold"],"${POLLUTED}":1},` +
            `"constructor":{"prototype":{"${POLLUTED}":1}}},` +
            `"__proto__":{"${POLLUTED}":1},"ordinary":{"${POLLUTED}":1}}`,
        );
        const refused = await apply("j", hostile);
        assert.equal(refused.status, 500);
        assert.equal(
          (await refused.json() as { message: string }).message,
          "failed to create typed patch object (default/j; /v1, Kind=ConfigMap): errors:\n" +
            "  .metadata.__proto__: field not declared in schema\n" +
            "  .__proto__: field not declared in schema",
        );
        assertPrototypeClean();
        assert.equal(c.get(configmaps, { namespace: "default", name: "j" }), undefined);
        // In data (a map of strings) they are keys like any other.
        const json = await apply(
          "j",
          JSON.stringify({ apiVersion: "v1", kind: "ConfigMap", metadata: { name: "j" } })
            .replace(/}$/, `,"data":{"__proto__":"x","constructor":"y","prototype":"z"}}`),
        );
        assert.equal(json.status, 201, await json.clone().text());
        const answered = await json.json() as Record<string, unknown>;
        assertPrototypeClean();
        const j = stored("j");
        assert.deepEqual(answered["data"], j["data"]);
        assert.deepEqual(Object.entries(j["data"] as object), [
          ["__proto__", "x"],
          ["constructor", "y"],
          ["prototype", "z"],
        ]);
        const meta = j["metadata"] as Record<string, unknown>;
        assert.equal(Object.hasOwn(meta, "finalizers"), false);
        // The applier owns each of them, recorded as own keys of fieldsV1.
        const [entry] = meta["managedFields"] as Array<{ manager: string; fieldsV1: object }>;
        assert.equal(entry?.manager, "hostile");
        const owned = (entry!.fieldsV1 as Record<string, Record<string, unknown>>)["f:data"]!;
        assert.deepEqual(Object.keys(owned), ["f:__proto__", "f:constructor", "f:prototype"]);

        // Leaving fields out of the next apply removes exactly those, __proto__ included.
        const second = await apply(
          "j",
          '{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"j"},' +
            '"data":{"constructor":"y2"}}',
        );
        assert.equal(second.status, 200, await second.clone().text());
        await second.body?.cancel();
        assertPrototypeClean();
        const after = stored("j");
        assert.deepEqual(Object.entries(after["data"] as object), [["constructor", "y2"]]);
        assert.equal(Object.hasOwn(after, "__proto__"), false);
        assert.equal(Object.hasOwn(after["metadata"] as object, "constructor"), false);

        // YAML: the same keys, as block mappings: refused where ConfigMap has no such field,
        // data where it is a map.
        const yamlRefused = await apply(
          "y",
          "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: y\n  __proto__:\n" +
            `    finalizers: [example.com/hold]\n    ${POLLUTED}: 1\n` +
            `__proto__:\n  ${POLLUTED}: 1\nconstructor:\n  prototype:\n    ${POLLUTED}: 1\n`,
        );
        assert.equal(yamlRefused.status, 500);
        assert.match(
          (await yamlRefused.json() as { message: string }).message,
          /\.metadata\.__proto__: field not declared in schema/,
        );
        assertPrototypeClean();
        const yaml = await apply(
          "y",
          "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: y\n" +
            "data:\n  __proto__: x\n  prototype: z\n",
        );
        assert.equal(yaml.status, 201, await yaml.clone().text());
        await yaml.body?.cancel();
        assertPrototypeClean();
        const y = stored("y");
        assert.deepEqual(Object.entries(y["data"] as object), [["__proto__", "x"], [
          "prototype",
          "z",
        ]]);
        assert.equal(Object.hasOwn(y["metadata"] as object, "finalizers"), false);

        // No inherited finalizers: both delete at once.
        for (const name of ["j", "y"]) {
          const del = await fetch(new URL(`${path}/${name}`, json.url), { method: "DELETE" });
          assert.equal(del.status, 200, name);
          await del.body?.cancel();
          assert.equal(c.get(configmaps, { namespace: "default", name }), undefined, name);
        }
        assertPrototypeClean();
      } finally {
        await close();
      }
    });

    test("strategic merge patches: __proto__, constructor and prototype keys are data", async () => {
      const { c, send, close } = await setup();
      const path = "/api/v1/namespaces/default/configmaps/s";
      const patch = (body: string) =>
        send("PATCH", path, body, "application/strategic-merge-patch+json");
      try {
        c.create(configmaps, {
          metadata: { name: "s", namespace: "default", labels: { app: "web" } },
          data: { k: "v" },
        });
        const res = await patch(
          `{"__proto__":{"${POLLUTED}":1},"constructor":{"prototype":{"${POLLUTED}":1}},` +
            `"metadata":{"__proto__":{"finalizers":["example.com/hold"],"${POLLUTED}":1},` +
            `"labels":{"constructor":"y","prototype":"z"}},` +
            `"data":{"__proto__":"one","toString":"two"}}`,
        );
        assert.equal(res.status, 200, await res.clone().text());
        const answered = await res.json() as Record<string, Record<string, unknown>>;
        assertPrototypeClean();
        const stored = JSON.parse(
          JSON.stringify(c.get(configmaps, { namespace: "default", name: "s" })),
        ) as Record<string, Record<string, unknown>>;
        assert.deepEqual(answered["data"], stored["data"]);
        assert.deepEqual(Object.entries(stored["metadata"]!["labels"] as object), [
          ["app", "web"],
          ["constructor", "y"],
          ["prototype", "z"],
        ]);
        assert.deepEqual(Object.entries(stored["data"]!), [
          ["k", "v"],
          ["__proto__", "one"],
          ["toString", "two"],
        ]);
        assert.equal(Object.hasOwn(stored["metadata"]!, "finalizers"), false);

        // null deletes own keys only; a key the object does not hold is a no-op.
        const removed = await patch(
          '{"metadata":{"labels":{"constructor":null,"hasOwnProperty":null}},' +
            '"data":{"__proto__":null,"toString":null,"valueOf":null}}',
        );
        assert.equal(removed.status, 200, await removed.clone().text());
        const after = await removed.json() as Record<string, Record<string, unknown>>;
        assertPrototypeClean();
        assert.deepEqual(Object.entries(after["metadata"]!["labels"] as object), [
          ["app", "web"],
          ["prototype", "z"],
        ]);
        assert.deepEqual(Object.entries(after["data"]!), [["k", "v"]]);
        assert.equal(typeof ({} as { toString: unknown }).toString, "function");

        // As on the API server, __proto__ is not a valid label key (a qualified name's part
        // starts and ends with an alphanumeric): refused, not stored.
        const label = await patch('{"metadata":{"labels":{"__proto__":"x"}}}');
        assert.equal(label.status, 422);
        await label.body?.cancel();
        assertPrototypeClean();

        const del = await fetch(new URL(path, res.url), { method: "DELETE" });
        assert.equal(del.status, 200);
        await del.body?.cancel();
        assert.equal(c.get(configmaps, { namespace: "default", name: "s" }), undefined, "deleted");
      } finally {
        await close();
      }
    });

    test("a ConfigMap key named __proto__ is stored like any other key", async () => {
      // A real API server accepts `__proto__` as a ConfigMap key ([-._a-zA-Z0-9]+).
      const { c, send, close } = await setup();
      const data = async (res: Response): Promise<Record<string, unknown>> => {
        assert.ok(res.status === 200 || res.status === 201, `answered ${res.status}`);
        return (JSON.parse(await res.text()) as { data: Record<string, unknown> }).data;
      };
      const jsonPatch = (ops: unknown[]) =>
        send("PATCH", `${path}/a`, JSON.stringify(ops), "application/json-patch+json");
      const path = "/api/v1/namespaces/default/configmaps";
      try {
        const created = await data(
          await send("POST", path, `{"metadata":{"name":"a"},"data":{"k":"v"}}`),
        );
        assert.deepEqual(Object.keys(created), ["k"]);

        const merged = await data(
          await send(
            "PATCH",
            `${path}/a`,
            `{"data":{"__proto__":"one"}}`,
            "application/merge-patch+json",
          ),
        );
        assert.deepEqual(Object.entries(merged), [["k", "v"], ["__proto__", "one"]]);

        const removed = await data(await jsonPatch([{ op: "remove", path: "/data/__proto__" }]));
        assert.deepEqual(Object.keys(removed), ["k"]);
        const added = await data(
          await jsonPatch([{ op: "add", path: "/data/__proto__", value: "two" }]),
        );
        assert.deepEqual(Object.entries(added), [["k", "v"], ["__proto__", "two"]]);

        const other = await data(
          await send("POST", path, `{"metadata":{"name":"b"},"data":{"__proto__":"three"}}`),
        );
        assert.deepEqual(Object.entries(other), [["__proto__", "three"]]);

        const stored = c.get(configmaps, { namespace: "default", name: "a" })!;
        assert.deepEqual(Object.entries(stored.data as object), [["k", "v"], ["__proto__", "two"]]);
        assertPrototypeClean();
      } finally {
        await close();
      }
    });

    test("JSON pointer array indexes are plain decimals (RFC 6901)", async () => {
      const { c, send, close } = await setup();
      try {
        c.create(pods, {
          metadata: { name: "p", namespace: "default" },
          spec: { containers: [{ name: "a" }, { name: "b" }] },
        });
        const path = "/api/v1/namespaces/default/pods/p";
        for (const index of ["", "01", "1e0", "0x1", " 1", "-1", "1.0"]) {
          const ops = [{ op: "replace", path: `/spec/containers/${index}/name`, value: "x" }];
          const res = await send("PATCH", path, JSON.stringify(ops), "application/json-patch+json");
          await res.body?.cancel();
          assert.equal(res.status, 422, JSON.stringify(index));
        }
        const ok = [{ op: "replace", path: "/spec/containers/1/name", value: "x" }];
        const res = await send("PATCH", path, JSON.stringify(ok), "application/json-patch+json");
        assert.equal(res.status, 200);
        const pod = await res.json() as { spec: { containers: Array<{ name: string }> } };
        assert.deepEqual(pod.spec.containers.map((x) => x.name), ["a", "x"]);
        assert.deepEqual(c.get(pods, { namespace: "default", name: "p" })?.spec, pod.spec);
      } finally {
        await close();
      }
    });
  });
}

for (const adapter of await adapters()) {
  describe(`SimulatedCluster CORS over HTTP (${adapter.name})`, () => {
    async function setup(options?: SimulatedClusterOptions): Promise<{
      c: SimulatedCluster;
      url: string;
      close: () => Promise<void>;
    }> {
      const c = new SimulatedCluster(options);
      const server = await adapter.serve(c.fetch, { hostname: "127.0.0.1", port: 0 });
      return {
        c,
        url: server.url,
        close: async () => {
          c.close();
          await server.close();
        },
      };
    }

    function preflight(url: string, origin: string, headers = "authorization"): Promise<Response> {
      return fetch(`${url}/api/v1/namespaces/default/configmaps`, {
        method: "OPTIONS",
        headers: {
          Origin: origin,
          "Access-Control-Request-Method": "POST",
          "Access-Control-Request-Headers": headers,
        },
      });
    }

    test("by default only loopback origins may call it, each answered with its own origin", async () => {
      const { url, close } = await setup();
      try {
        for (
          const origin of [
            "http://localhost:5173",
            "http://127.0.0.1:8080",
            "http://[::1]:3000",
            "http://localhost",
            "https://127.0.0.1:8443",
          ]
        ) {
          const pre = await preflight(url, origin);
          await pre.body?.cancel();
          assert.equal(pre.status, 204, origin);
          assert.equal(pre.headers.get("access-control-allow-origin"), origin);
          assert.match(pre.headers.get("vary") ?? "", /origin/i);
          assert.match(pre.headers.get("access-control-allow-methods")!, /PATCH/);
          const res = await fetch(`${url}/api/v1/pods`, { headers: { Origin: origin } });
          assert.equal(res.status, 200, origin);
          assert.equal(res.headers.get("access-control-allow-origin"), origin);
          assert.match(res.headers.get("access-control-expose-headers")!, /Retry-After/);
          await res.body?.cancel();
        }
      } finally {
        await close();
      }
    });

    test("other origins get 403 and no CORS headers; their requests are not served", async () => {
      const { c, url, close } = await setup();
      try {
        for (
          const origin of [
            "https://evil.example",
            "http://localhost.evil.example",
            "http://127.0.0.1.evil.example:8080",
            "http://localhost:80@evil.example",
            "null",
          ]
        ) {
          const pre = await preflight(url, origin);
          await pre.body?.cancel();
          assert.equal(pre.status, 403, origin);
          assert.equal(pre.headers.get("access-control-allow-origin"), null, origin);
          // A "simple" request needs no preflight: a page could still send it. It must not
          // create anything.
          const post = await fetch(`${url}/api/v1/namespaces/default/configmaps`, {
            method: "POST",
            headers: { Origin: origin, "Content-Type": "text/plain" },
            body: JSON.stringify({ metadata: { name: "planted" } }),
          });
          assert.equal(post.status, 403, origin);
          assert.equal(post.headers.get("access-control-allow-origin"), null, origin);
          const s = await post.json() as { reason?: string };
          assert.equal(s.reason, "Forbidden");
        }
        assert.equal(c.get(configmaps, { namespace: "default", name: "planted" }), undefined);
        // Clients that are not browsers send no Origin: they are served, without CORS headers.
        const plain = await fetch(`${url}/api/v1/pods`);
        assert.equal(plain.status, 200);
        assert.equal(plain.headers.get("access-control-allow-origin"), null);
        await plain.body?.cancel();
      } finally {
        await close();
      }
    });

    test("preflight allows a fixed list of request headers, not whatever is asked", async () => {
      const { url, close } = await setup();
      try {
        const pre = await preflight(url, "http://localhost:5173", "authorization, x-evil");
        await pre.body?.cancel();
        const allowed = (pre.headers.get("access-control-allow-headers") ?? "").toLowerCase()
          .split(",").map((h) => h.trim());
        assert.deepEqual(allowed.sort(), ["accept", "authorization", "content-type", "user-agent"]);
      } finally {
        await close();
      }
    });

    test("corsAllowedOrigins replaces the default: exact origins, port wildcards, patterns, *", async () => {
      const custom = await setup({
        corsAllowedOrigins: ["https://app.example", "http://devbox:*", /^https:\/\/[a-z]+\.test$/],
      });
      try {
        for (
          const [origin, ok] of [
            ["https://app.example", true],
            ["https://app.example:8443", false],
            ["http://devbox:3000", true],
            ["http://devbox", true],
            ["http://devbox:3x", false],
            ["https://preview.test", true],
            ["http://localhost:5173", false],
          ] as const
        ) {
          const pre = await preflight(custom.url, origin);
          await pre.body?.cancel();
          assert.equal(pre.status, ok ? 204 : 403, origin);
          assert.equal(pre.headers.get("access-control-allow-origin"), ok ? origin : null, origin);
        }
      } finally {
        await custom.close();
      }
      const any = await setup({ corsAllowedOrigins: ["*"] });
      try {
        const pre = await preflight(any.url, "https://anywhere.example");
        await pre.body?.cancel();
        assert.equal(pre.status, 204);
        assert.equal(pre.headers.get("access-control-allow-origin"), "https://anywhere.example");
      } finally {
        await any.close();
      }
    });
  });
}

describe("SimulatedCluster options", () => {
  test("a bad token option is reported without its value", () => {
    for (const token of [918273645, ["s3cr3t-value"], { value: "s3cr3t-value" }]) {
      assert.throws(
        () => new SimulatedCluster({ token: token as never }),
        (e: unknown) =>
          e instanceof TypeError && /options\.token/.test(e.message) &&
          !e.message.includes("918273645") && !e.message.includes("s3cr3t"),
        String(token),
      );
    }
  });

  test("corsAllowedOrigins is checked up front", () => {
    for (
      const bad of [
        "http://localhost",
        [42],
        ["localhost"],
        ["http://localhost/"],
        ["http://localhost:*/x"],
        [""],
      ]
    ) {
      assert.throws(
        () => new SimulatedCluster({ corsAllowedOrigins: bad as never }),
        (e: unknown) => e instanceof TypeError && /options\.corsAllowedOrigins/.test(e.message),
        JSON.stringify(bad),
      );
    }
  });
});
