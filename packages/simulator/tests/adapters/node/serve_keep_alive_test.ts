// The Node adapter served from Deno over HTTPS, and a client that keeps its connection alive
// (as kubectl, client-node and the library's Node transport do), so its watch goes over the
// connection its list used. Deno's node:http served a socket that a node:tls server handed it
// for one request only: the second was reset, which broke every client's first watch (Node
// clients ECONNRESET, kubectl "write: broken pipe"). On Deno the adapter now serves HTTPS with
// node:https itself.
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { readFile } from "node:fs/promises";
import { Agent, request } from "node:https";
import { bin, startProcess } from "../../../../../tests/_runtime_process.ts";

const certs = new URL("../../../../../tests/fixtures/kubeconfig/certs/", import.meta.url);
const child = new URL("_serve_on_deno.ts", import.meta.url);

/** One GET on `agent`: the status and the body, or its first bytes (then the request ends). */
function get(
  agent: Agent,
  url: string,
  ca: string,
  enough: (body: string) => boolean = () => false,
): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request(url, { agent, ca }, (res) => {
      let body = "";
      res.setEncoding("utf8");
      res.on("data", (chunk: string) => {
        body += chunk;
        if (enough(body)) {
          resolve({ status: res.statusCode ?? 0, body });
          req.destroy();
        }
      });
      res.on("end", () => resolve({ status: res.statusCode ?? 0, body }));
      res.on("error", reject);
    });
    req.on("error", reject);
    req.end();
  });
}

describe("the Node serve adapter served from Deno over HTTPS", () => {
  test("a keep-alive client's watch after its list gets its events", async () => {
    const server = startProcess(bin("deno"), ["run", "-A", child.pathname]);
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    try {
      const [, url, rv] = await server.waitFor(/READY (\S+) (\d+)/);
      const ca = await readFile(new URL("ca.crt", certs), "utf8");
      const list = await get(agent, `${url}/api/v1/namespaces/default/pods`, ca);
      assert.equal(list.status, 200);
      assert.match(list.body, /"web-1"/);
      const watch = await get(
        agent,
        `${url}/api/v1/namespaces/default/pods?watch=1&resourceVersion=${rv}`,
        ca,
        (body) => body.includes("\n"),
      );
      assert.equal(watch.status, 200);
      assert.match(watch.body, /^\{"type":"ADDED","object":\{.*"name":"web-2"/);
    } finally {
      agent.destroy();
      await server.kill();
    }
  });
});
