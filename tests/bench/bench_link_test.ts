// The bench's shaped link (bench/_link.ts) carries bytes intact, in order, both ways, and counts
// them; an orderly end crosses it after what is queued.
import { test } from "node:test";
import assert from "node:assert/strict";
import { createServer } from "node:http";
import net from "node:net";
import { startLink } from "../../bench/_link.ts";

test("the link carries a body intact and counts the bytes each way", async () => {
  const body = new Uint8Array(1_000_000).map((_, i) => (i * 7) & 0xff);
  const server = createServer((req, res) => {
    let got = 0;
    req.on("data", (chunk: Uint8Array) => (got += chunk.byteLength));
    req.on("end", () => {
      res.setHeader("x-got", String(got));
      res.end(body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as net.AddressInfo;
  const link = await startLink({ target: { host: "127.0.0.1", port }, mbit: 1000, delayMs: 1 });
  try {
    const upload = new Uint8Array(50_000);
    const response = await fetch(`${link.url}/x`, {
      method: "POST",
      body: upload,
      headers: { connection: "close" },
    });
    assert.equal(response.headers.get("x-got"), "50000");
    assert.deepEqual(new Uint8Array(await response.arrayBuffer()), body);
    const { down, up } = link.bytes();
    assert.ok(down > body.byteLength && down < body.byteLength + 2000, `down ${down}`);
    assert.ok(up > upload.byteLength && up < upload.byteLength + 2000, `up ${up}`);
    link.reset();
    assert.deepEqual(link.bytes(), { down: 0, up: 0 });
  } finally {
    await link.close();
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
});
