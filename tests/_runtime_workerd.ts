// Runs Workers in workerd for tests: writes a Cap'n Proto config next to the bundled scripts,
// starts `workerd serve` on 127.0.0.1 with a port it picks (reported on its control fd), and
// stops it again.
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { bin, type ChildHandle, startProcess } from "./_runtime_process.ts";

/** A text binding, or a KV binding backed by a service of the config. */
export type Binding =
  | { name: string; text: string }
  | { name: string; kvNamespace: string };

/** One Worker of the config. */
export interface WorkerSpec {
  /** Service name. */
  name: string;
  /** Bundled ES module, relative to the config's folder. */
  module: string;
  /** Bindings (`env.*`). @default [] */
  bindings?: Binding[];
  /** Service its global `fetch()` goes to. @default "loopback" */
  globalOutbound?: string;
}

/**
 * An in-memory Workers KV namespace as a Worker: a KV binding (`kvNamespace = "<service>"`)
 * sends `GET`/`PUT`/`DELETE https://fake-host/<url-encoded key>?urlencoded=true` to it, and a
 * 404 reads as `null`. Enough for `get(key)` and `put(key, value)`.
 */
export const MEMORY_KV_MODULE = `
const values = new Map();
export default {
  async fetch(request) {
    const url = new URL(request.url);
    const key = decodeURIComponent(url.pathname.slice(1));
    switch (request.method) {
      case "GET": {
        const value = values.get(key);
        return value === undefined ? new Response(null, { status: 404 }) : new Response(value);
      }
      case "PUT":
        values.set(key, await request.text());
        return new Response(null);
      case "DELETE":
        values.delete(key);
        return new Response(null);
      default:
        return new Response(null, { status: 405 });
    }
  },
};
`;

const str = (s: string): string => JSON.stringify(s);

function binding(b: Binding): string {
  return "kvNamespace" in b
    ? `(name = ${str(b.name)}, kvNamespace = ${str(b.kvNamespace)})`
    : `(name = ${str(b.name)}, text = ${str(b.text)})`;
}

/**
 * A workerd config: the Workers, an outbound service `loopback` that may reach 127.0.0.0/8
 * only (`allow = ["local"]`; the default `internet` service refuses private and local
 * addresses), and one HTTP socket on 127.0.0.1, port 0, for the first Worker.
 */
export function workerdConfig(
  workers: readonly WorkerSpec[],
  compatibilityDate = "2025-01-01",
): string {
  const entry = workers[0];
  if (entry === undefined) throw new TypeError("at least one worker is needed");
  const services = workers.map((w, i) => `    (name = ${str(w.name)}, worker = .w${i}),`);
  const defs = workers.map((w, i) =>
    `const w${i} :Workerd.Worker = (
  modules = [ (name = ${str(w.module)}, esModule = embed ${str(w.module)}) ],
  compatibilityDate = ${str(compatibilityDate)},
  bindings = [ ${(w.bindings ?? []).map(binding).join(", ")} ],
  globalOutbound = ${str(w.globalOutbound ?? "loopback")},
);`
  );
  return `using Workerd = import "/workerd/workerd.capnp";

const config :Workerd.Config = (
  services = [
${services.join("\n")}
    (name = "loopback", network = (allow = ["local"])),
  ],
  sockets = [ (name = "http", address = "127.0.0.1:0", http = (), service = ${str(entry.name)}) ],
);

${defs.join("\n\n")}
`;
}

/** A running workerd. */
export interface Workerd {
  /** Base URL of its HTTP socket, e.g. `http://127.0.0.1:41234`. */
  url: string;
  /** The process (its output helps assertion messages). */
  child: ChildHandle;
  /** Stops it and waits for the exit. */
  close(): Promise<void>;
}

/** Writes `config` to `dir/config.capnp` and serves it; the caller must `close()` it. */
export async function startWorkerd(dir: string, config: string): Promise<Workerd> {
  await writeFile(join(dir, "config.capnp"), config);
  const child = startProcess(bin("workerd"), ["serve", "config.capnp", "--control-fd=3"], {
    cwd: dir,
    controlPipe: true,
    killAfterMs: 30_000,
  });
  try {
    const listen = await child.waitFor(/"socket":"http","port":(\d+)/, "control");
    return {
      url: `http://127.0.0.1:${listen[1]}`,
      child,
      close: async () => void await child.kill(),
    };
  } catch (error) {
    await child.kill();
    throw error;
  }
}
