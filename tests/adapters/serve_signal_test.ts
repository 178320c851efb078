// The serve adapters' `signal`: aborting it closes the server, also when it aborts while the
// server is still starting (before it listens), so a server never outlives its signal.
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { adapters } from "../_serve.ts";
import type { ServeOptions } from "@kinformer/simulator/node";

for (const adapter of await adapters()) {
  const serve = adapter.serve as (
    handler: (request: Request) => Response,
    options?: ServeOptions,
  ) => ReturnType<typeof adapter.serve>;

  describe(`serve (${adapter.name}): the signal`, () => {
    test("aborting it while the server starts closes the server once it listens", async () => {
      const stop = new AbortController();
      const starting = serve(() => new Response("ok"), { signal: stop.signal });
      stop.abort();
      const handle = await starting;
      try {
        await assert.rejects(
          fetch(handle.url, { signal: AbortSignal.timeout(5_000) }).then((r) => r.text()),
          "the server still answers after its signal aborted",
        );
      } finally {
        await handle.close();
      }
    });

    test("aborting it later closes the server", async () => {
      const stop = new AbortController();
      const handle = await serve(() => new Response("ok"), { signal: stop.signal });
      try {
        assert.equal(await (await fetch(handle.url)).text(), "ok");
        stop.abort();
        await assert.rejects(
          fetch(handle.url, { signal: AbortSignal.timeout(5_000) }).then((r) => r.text()),
        );
      } finally {
        await handle.close();
      }
    });
  });
}
