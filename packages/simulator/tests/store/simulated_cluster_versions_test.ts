// Continue tokens and resource versions are checked as kube-apiserver checks them: a malformed
// one is a 400 with the API server's message, never a 200 that echoes it back.
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { configmaps } from "../../../../src/client/resource.ts";
import type { KubeList, Status } from "../../../../src/client/types.ts";
import { ManualClock } from "../../../../src/testing/manual_clock.ts";
import { SimulatedCluster } from "../../src/cluster/simulated_cluster.ts";

async function get<T = KubeList>(
  c: SimulatedCluster,
  path: string,
): Promise<{ status: number; body: T }> {
  const res = await c.fetch(new Request(`http://sim${path}`));
  return { status: res.status, body: await res.json() as T };
}

/** A continue token as kube-apiserver encodes one: base64url (no padding) of its JSON. */
function token(json: string): string {
  return btoa(json).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

function cluster(): SimulatedCluster {
  const c = new SimulatedCluster({ clock: new ManualClock() });
  for (const name of ["a", "b", "c"]) {
    c.create(configmaps, { metadata: { name, namespace: "default" } });
  }
  return c;
}

async function badRequest(c: SimulatedCluster, path: string, message: string): Promise<void> {
  const res = await get<Status>(c, path);
  assert.equal(res.status, 400, `${path}: ${JSON.stringify(res.body)}`);
  assert.equal(res.body.reason, "BadRequest");
  assert.equal(res.body.code, 400);
  assert.equal(res.body.message, message);
}

describe("SimulatedCluster resource versions and continue tokens", () => {
  test("a continue token with a fractional resource version is 400, not a page at 1.5", async () => {
    const c = cluster();
    const forged = token('{"v":"meta.k8s.io/v1","rv":1.5,"start":"default/a\\u0000"}');
    await badRequest(
      c,
      `/api/v1/configmaps?limit=1&continue=${forged}`,
      "invalid continue token: continue key is not valid: json: cannot unmarshal number 1.5 into Go struct field continueToken.rv of type int64",
    );
    c.close();
  });

  test("a continue token whose rv is written with a fraction or an exponent is 400, even when whole (Go parses the literal)", async () => {
    const c = cluster();
    for (const literal of ["6.0", "6e0", "1.0", "1e3", "1E1"]) {
      const forged = token(`{"v":"meta.k8s.io/v1","rv":${literal},"start":"default/a\\u0000"}`);
      await badRequest(
        c,
        `/api/v1/configmaps?limit=1&continue=${forged}`,
        `invalid continue token: continue key is not valid: json: cannot unmarshal number ${literal} into Go struct field continueToken.rv of type int64`,
      );
    }
    c.close();
  });

  test("a GET of one object checks its resourceVersion: malformed is 400, one not reached yet 504", async () => {
    const c = cluster();
    for (const rv of ["abc", "1.5", "-1", "1e3", "0x10", "99999999999999999999"]) {
      const res = await get<Status>(
        c,
        `/api/v1/namespaces/default/configmaps/a?resourceVersion=${encodeURIComponent(rv)}`,
      );
      assert.equal(res.status, 400, rv);
      assert.match(res.body.message!, /^invalid resource version: /);
    }
    const ahead = await get<Status>(
      c,
      "/api/v1/namespaces/default/configmaps/a?resourceVersion=999999",
    );
    assert.equal(ahead.status, 504);
    assert.match(ahead.body.message!, /^Too large resource version: 999999, current: \d+$/);
    for (const rv of ["", "0", "1", "2"]) {
      const ok = await get(c, `/api/v1/namespaces/default/configmaps/a?resourceVersion=${rv}`);
      assert.equal(ok.status, 200, rv);
    }
    c.close();
  });

  test("continue tokens are decoded as kube-apiserver decodes them", async () => {
    const c = cluster();
    const prefix = "invalid continue token: continue key is not valid";
    const cases: Array<[string, string]> = [
      [
        token('{"v":"meta.k8s.io/v1","rv":"4","start":"default/a"}'),
        `${prefix}: json: cannot unmarshal string into Go struct field continueToken.rv of type int64`,
      ],
      [
        token('{"v":"meta.k8s.io/v1","start":"default/a"}'),
        `${prefix}: incorrect encoded start resourceVersion (version meta.k8s.io/v1)`,
      ],
      [
        token('{"v":"meta.k8s.io/v1","rv":4,"start":""}'),
        `${prefix}: encoded start key empty (version meta.k8s.io/v1)`,
      ],
      [
        token('{"v":"meta.k8s.io/v1","rv":4,"start":"../kube-system/x"}'),
        `${prefix}: ../kube-system/x`,
      ],
      [
        token('{"v":"meta.k8s.io/v2","rv":4,"start":"default/a"}'),
        `${prefix}: server does not recognize this encoded version meta.k8s.io/v2`,
      ],
      ["a!b", `${prefix}: illegal base64 data at input byte 1`],
      ["eyJ2Ijo=", `${prefix}: illegal base64 data at input byte 7`],
      ["abc", `${prefix}: invalid character 'i' looking for beginning of value`],
      [
        token("[1]"),
        `${prefix}: json: cannot unmarshal array into Go value of type storage.continueToken`,
      ],
    ];
    for (const [cont, message] of cases) {
      await badRequest(c, `/api/v1/configmaps?limit=1&continue=${cont}`, message);
    }
    c.close();
  });

  test("a valid token with a resourceVersion other than 0 is 400", async () => {
    const c = cluster();
    const first = await get(c, "/api/v1/configmaps?limit=1");
    const cont = first.body.metadata.continue!;
    await badRequest(
      c,
      `/api/v1/configmaps?limit=1&continue=${cont}&resourceVersion=3`,
      "specifying resource version is not allowed when using continue",
    );
    const next = await get(c, `/api/v1/configmaps?limit=1&continue=${cont}&resourceVersion=0`);
    assert.equal(next.status, 200);
    c.close();
  });

  test("a resourceVersion that is not an unsigned integer is 400 on list and watch", async () => {
    const c = cluster();
    const cases: Array<[string, string]> = [
      ["1.5", 'strconv.ParseUint: parsing "1.5": invalid syntax'],
      ["abc", 'strconv.ParseUint: parsing "abc": invalid syntax'],
      ["-1", 'strconv.ParseUint: parsing "-1": invalid syntax'],
      ["+3", 'strconv.ParseUint: parsing "+3": invalid syntax'],
      [
        "18446744073709551616",
        'strconv.ParseUint: parsing "18446744073709551616": value out of range',
      ],
    ];
    for (const [rv, why] of cases) {
      const message = `invalid resource version: resourceVersion: Invalid value: ${
        JSON.stringify(rv)
      }: ${why}`;
      const q = encodeURIComponent(rv);
      await badRequest(c, `/api/v1/configmaps?resourceVersion=${q}`, message);
      await badRequest(c, `/api/v1/configmaps?resourceVersion=${q}&limit=1`, message);
      await badRequest(c, `/api/v1/configmaps?watch=1&resourceVersion=${q}`, message);
    }
    c.close();
  });

  test("a resourceVersion with leading zeros or up to 2^64-1 parses as kube-apiserver parses it", async () => {
    const c = cluster();
    const ok = await get(c, "/api/v1/configmaps?resourceVersion=0002&resourceVersionMatch=Exact");
    assert.equal(ok.status, 200);
    assert.equal(ok.body.metadata.resourceVersion, "2");
    const tooNew = await get<Status>(c, "/api/v1/configmaps?resourceVersion=18446744073709551615");
    assert.equal(tooNew.status, 504);
    assert.equal(tooNew.body.reason, "Timeout");
    c.close();
  });
});
