// Test helpers: serve a fetch handler over HTTP on 127.0.0.1 with the adapter of the runtime
// running the tests (runtime sniffing is fine here, in tests), a simulated cluster served so,
// plus small readers for watch bodies that do not depend on src/watch.
import type { FetchHandler, ServedHandle } from "@kinformer/simulator/node";
import { SimulatedCluster, type SimulatedClusterOptions } from "@kinformer/simulator";

/** Which runtime runs the tests. */
export const runtime: "deno" | "bun" | "node" = "Deno" in globalThis
  ? "deno"
  : "Bun" in globalThis
  ? "bun"
  : "node";

/** An adapter's `serve`. */
export type ServeFn = (
  handler: FetchHandler,
  options?: { hostname?: string; port?: number },
) => Promise<ServedHandle>;

/**
 * The adapters usable on this runtime: its native one first, then node:http (which Deno and
 * Bun also run). `streamsHeadersEarly` is false for Bun.serve, which holds the response head
 * until the first body chunk (oven-sh/bun#33660), so a watch with nothing to send yet does
 * not resolve `fetch()`.
 */
export async function adapters(): Promise<
  Array<{ name: string; serve: ServeFn; streamsHeadersEarly: boolean }>
> {
  const node = await import("../src/adapters/node/serve.ts");
  const list: Array<{ name: string; serve: ServeFn; streamsHeadersEarly: boolean }> = [];
  if (runtime === "deno") {
    const deno = await import("../src/adapters/deno/serve.ts");
    list.push({ name: "Deno.serve", serve: deno.serve, streamsHeadersEarly: true });
  }
  if (runtime === "bun") {
    const bun = await import("../src/adapters/bun/serve.ts");
    list.push({ name: "Bun.serve", serve: bun.serve, streamsHeadersEarly: false });
  }
  list.push({ name: "node:http", serve: node.serve, streamsHeadersEarly: true });
  return list;
}

/**
 * Serves `handler` on 127.0.0.1, port 0, with this runtime's adapter for watches: Deno.serve
 * on Deno, node:http on Node and on Bun (see {@linkcode adapters} for why not Bun.serve).
 */
export async function serveHandler(handler: FetchHandler): Promise<ServedHandle> {
  const usable = (await adapters()).filter((a) => a.streamsHeadersEarly);
  return await usable[0]!.serve(handler, { hostname: "127.0.0.1", port: 0 });
}

/** A simulated cluster served by {@linkcode serveHandler}. */
export interface ServedCluster {
  cluster: SimulatedCluster;
  server: ServedHandle;
  /** Closes the cluster, then stops the server. */
  close(): Promise<void>;
}

/** A new simulated cluster with `options`, served on 127.0.0.1 by {@linkcode serveHandler}. */
export async function serveCluster(options?: SimulatedClusterOptions): Promise<ServedCluster> {
  const cluster = new SimulatedCluster(options);
  const server = await serveHandler(cluster.fetch);
  return {
    cluster,
    server,
    close: async () => {
      cluster.close();
      await server.close();
    },
  };
}

/** One watch event as decoded by the test reader. */
export interface TestWatchEvent {
  type: string;
  object: {
    kind?: string;
    apiVersion?: string;
    metadata: {
      name?: string;
      namespace?: string;
      uid?: string;
      resourceVersion?: string;
      labels?: Record<string, string>;
      annotations?: Record<string, string>;
    };
    code?: number;
    reason?: string;
    message?: string;
    [key: string]: unknown;
  };
}

/** Reads newline-delimited JSON from a body, byte-exact across chunk boundaries. */
export class LineReader {
  readonly #reader: ReadableStreamDefaultReader<Uint8Array>;
  readonly #decoder = new TextDecoder();
  #buffer = "";
  /** Raw chunks seen (for chunking assertions). */
  readonly chunks: Uint8Array[] = [];

  constructor(body: ReadableStream<Uint8Array>) {
    this.#reader = body.getReader();
  }

  /** Next line, or undefined at the end of the body. */
  async line(): Promise<string | undefined> {
    for (;;) {
      const nl = this.#buffer.indexOf("\n");
      if (nl >= 0) {
        const line = this.#buffer.slice(0, nl);
        this.#buffer = this.#buffer.slice(nl + 1);
        return line;
      }
      const { done, value } = await this.#reader.read();
      if (done) {
        this.#buffer += this.#decoder.decode();
        if (this.#buffer !== "") throw new Error(`trailing partial line: ${this.#buffer}`);
        return undefined;
      }
      this.chunks.push(value);
      this.#buffer += this.#decoder.decode(value, { stream: true });
    }
  }

  /** Next event, or undefined at the end. */
  async event(): Promise<TestWatchEvent | undefined> {
    const line = await this.line();
    return line === undefined ? undefined : JSON.parse(line) as TestWatchEvent;
  }

  /** The next `n` events (fails if the body ends first). */
  async events(n: number): Promise<TestWatchEvent[]> {
    const out: TestWatchEvent[] = [];
    for (let i = 0; i < n; i++) {
      const e = await this.event();
      if (e === undefined) throw new Error(`body ended after ${i} of ${n} events`);
      out.push(e);
    }
    return out;
  }

  /** Every remaining event until the body ends. */
  async rest(): Promise<TestWatchEvent[]> {
    const out: TestWatchEvent[] = [];
    for (let e = await this.event(); e !== undefined; e = await this.event()) out.push(e);
    return out;
  }

  /** Cancels the body. */
  async cancel(): Promise<void> {
    await this.#reader.cancel();
  }
}

/** Short description of events, e.g. `["ADDED a", "BOOKMARK 12"]`. */
export function summarize(events: TestWatchEvent[]): string[] {
  return events.map((e) =>
    e.type === "BOOKMARK"
      ? `BOOKMARK ${e.object.metadata.resourceVersion}`
      : e.type === "ERROR"
      ? `ERROR ${e.object.code}`
      : `${e.type} ${e.object.metadata.name}`
  );
}
