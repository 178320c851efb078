/**
 * Cluster configuration loading on Bun: files through `Bun.file`, the environment through
 * `process.env`, the CA, client certificate, `insecure-skip-tls-verify`, `tls-server-name`
 * and http(s) proxies applied through the `tls` and `proxy` options of Bun's `fetch`, and exec
 * credential plugins run through Bun's `node:child_process`. SOCKS5 proxies, which Bun's
 * `fetch` refuses, go through `createNodeFetch` (`node:net`/`node:tls`, which Bun runs), and
 * so does every connection while proxy variables are set (`HTTPS_PROXY`, `NO_PROXY`, ...):
 * Bun's `fetch` applies them by rules other than kubectl's (it proxies loopback and lets
 * `NO_PROXY` bypass a kubeconfig `proxy-url`), so the loader decides with kubectl's rules and
 * `node:https` does what it decided.
 *
 * @example
 * ```ts
 * import { KubeClient } from "@kinformer/kinformer/client";
 * import { loadFromDefault } from "@kinformer/kinformer/config/bun";
 * import assert from "node:assert/strict";
 * try {
 *   const options = await loadFromDefault();
 *   const client = new KubeClient(options);
 *   assert.ok(options.source === "kubeconfig" || options.source === "in-cluster");
 *   assert.equal(typeof client.server, "string");
 * } catch (error) {
 *   // No kubeconfig and not in a pod (or a broken kubeconfig): the error says what to fix.
 *   assert.ok(error instanceof Error);
 * }
 * ```
 * @module
 */
import { createConfigLoader } from "../../config/config_loader.ts";
import { EVERY_TRANSPORT_FEATURE } from "../_transport_features.ts";
import { processHostParts } from "../node/_process_host.ts";
import { withRepeatedHeaderLines } from "../node/_header_lines_fetch.ts";
import { createNodeFetch } from "../node/fetch.ts";
import { checkTlsMaterial } from "../node/_tls.ts";
import { withoutCompression } from "../../config/_transport_build.ts";
import { noProxySet, proxyVariablesSet } from "../../util/env.ts";
import type {
  ClusterClientOptions,
  ConfigHost,
  FetchFunction,
  HostFetch,
  LoadFromDefaultOptions,
  LoadInClusterOptions,
  LoadKubeconfigOptions,
  TransportConfig,
} from "../../config/config_loader_options.ts";

/** The part of the `Bun` namespace this file uses. */
interface BunApi {
  file(path: string): { text(): Promise<string> };
  /** Bun 1.4.2 and later: a connection pool of its own, with `close()`. */
  FetchSession?: new (init: Record<string, never>) => { close(): void };
}

/** Bun's extensions to `RequestInit`. */
interface BunRequestInit extends RequestInit {
  tls?: {
    ca?: string;
    cert?: string;
    key?: string;
    rejectUnauthorized?: boolean;
    serverName?: string;
  };
  proxy?: string;
  session?: { close(): void };
}

function bun(): BunApi {
  const api = (globalThis as unknown as { Bun?: BunApi }).Bun;
  if (api === undefined) {
    throw new TypeError(
      "@kinformer/kinformer/config/bun runs on Bun only; use config/node or config/deno",
    );
  }
  return api;
}

/**
 * Builds a `fetch` passing the TLS and proxy settings as Bun `fetch` options; the `node:http`
 * transport instead for a SOCKS5 proxy, and when proxy variables in the environment would make
 * Bun's `fetch` do other than what the loader decided (`transport.proxyUrl`, or a direct
 * connection).
 */
function createBunFetch(transport: TransportConfig): HostFetch {
  // Bun's fetch checks TLS options at each request: check them now, so that a bad CA,
  // certificate or key fails the load instead of every request.
  checkTlsMaterial(transport);
  const proxy = transport.proxyUrl;
  const envDisagrees = proxy === undefined ? proxyVariablesSet() : noProxySet();
  if (envDisagrees || (proxy !== undefined && /^socks5h?:/i.test(proxy))) {
    return createNodeFetch(transport);
  }
  const init: BunRequestInit = {};
  const tls: NonNullable<BunRequestInit["tls"]> = {};
  if (transport.caData !== undefined) tls.ca = transport.caData;
  if (transport.certData !== undefined) tls.cert = transport.certData;
  if (transport.keyData !== undefined) tls.key = transport.keyData;
  if (transport.insecureSkipTlsVerify === true) tls.rejectUnauthorized = false;
  if (transport.tlsServerName !== undefined) tls.serverName = transport.tlsServerName;
  if (Object.keys(tls).length > 0) init.tls = tls;
  if (proxy !== undefined) init.proxy = proxy;
  // Connections in a pool of their own, so that close() ends the idle ones (a rotated client
  // certificate's old connections; released options), as Node's agents and Deno's HttpClient do.
  const Session = bun().FetchSession;
  const session = Session === undefined ? undefined : new Session({});
  if (session !== undefined) init.session = session;
  const withInit: FetchFunction = (request) => fetch(request, init);
  return {
    fetch: transport.disableCompression === true ? withoutCompression(withInit) : withInit,
    close: () => session?.close(),
  };
}

/**
 * The Bun {@linkcode ConfigHost}: pass it to `createConfigLoader` with parts replaced.
 *
 * @example
 * ```ts
 * import { createConfigLoader } from "@kinformer/kinformer/config";
 * import { bunHost } from "@kinformer/kinformer/config/bun";
 * import assert from "node:assert/strict";
 * const loader = createConfigLoader({ ...bunHost, env: () => undefined });
 * assert.equal(loader.defaultKubeconfigPath(), undefined); // no KUBECONFIG, no HOME
 * ```
 */
export const bunHost: ConfigHost = {
  runtime: "Bun",
  readFile: (path) => bun().file(path).text(),
  ...processHostParts,
  // Bun's fetch and node:zlib (createNodeFetch) read every gzip member of a body.
  readsGzipMembers: true,
  transport: {
    supports: EVERY_TRANSPORT_FEATURE,
    create: (transport) => withRepeatedHeaderLines(createBunFetch(transport), transport),
    readsProxyEnv: proxyVariablesSet,
  },
};

const loader = createConfigLoader(bunHost);

/**
 * Reads a kubeconfig (`path`, else the files of `KUBECONFIG` merged as kubectl merges them,
 * else `~/.kube/config`) and
 * returns options for `new KubeClient(...)`, with a `fetch` carrying the cluster's TLS
 * settings.
 *
 * @example Runs on Bun only (`deno test --doc` type-checks it but does not run it):
 * ```ts ignore
 * import { loadKubeconfig } from "@kinformer/kinformer/config/bun";
 * import { rm, writeFile } from "node:fs/promises";
 * import { tmpdir } from "node:os";
 * import { join } from "node:path";
 * import assert from "node:assert/strict";
 * const path = join(tmpdir(), `kubeconfig-${Date.now()}.json`);
 * await writeFile(path, JSON.stringify({
 *   clusters: [{ name: "local", cluster: { server: "http://127.0.0.1:8001" } }],
 *   contexts: [{ name: "local", context: { cluster: "local", namespace: "apps" } }],
 *   "current-context": "local",
 * }));
 * const options = await loadKubeconfig({ path });
 * assert.equal(options.server, "http://127.0.0.1:8001");
 * assert.equal(options.namespace, "apps");
 * await rm(path);
 * ```
 */
export function loadKubeconfig(options?: LoadKubeconfigOptions): Promise<ClusterClientOptions> {
  return loader.loadKubeconfig(options);
}

/**
 * Options for the pod this runs in: service account token (re-read as it rotates), CA and
 * namespace from `/var/run/secrets/kubernetes.io/serviceaccount`, server from
 * `KUBERNETES_SERVICE_HOST`/`_PORT`.
 *
 * @example
 * ```ts
 * import { ClusterConfigError } from "@kinformer/kinformer/config";
 * import { loadInCluster } from "@kinformer/kinformer/config/bun";
 * import assert from "node:assert/strict";
 * try {
 *   const options = await loadInCluster();
 *   assert.equal(options.source, "in-cluster");
 * } catch (error) {
 *   // Outside a pod: code "NotInCluster"; a pod without a service account token: "FileNotFound".
 *   // In a pod but not on Bun (as under `deno test --doc`), reading the token is a TypeError.
 *   assert.ok(error instanceof ClusterConfigError || error instanceof TypeError);
 * }
 * ```
 */
export function loadInCluster(options?: LoadInClusterOptions): Promise<ClusterClientOptions> {
  return loader.loadInCluster(options);
}

/**
 * The usual lookup, as client-go's: the files of `KUBECONFIG` (merged), else `~/.kube/config`,
 * else in-cluster.
 *
 * @example
 * ```ts
 * import { loadFromDefault } from "@kinformer/kinformer/config/bun";
 * import assert from "node:assert/strict";
 * const options = await loadFromDefault().catch((error: Error) => error);
 * if (options instanceof Error) {
 *   // Neither KUBECONFIG, ~/.kube/config nor a pod here: the message says what to set up.
 *   assert.match(options.message, /\S/);
 * } else {
 *   assert.equal(typeof options.server, "string");
 * }
 * ```
 */
export function loadFromDefault(options?: LoadFromDefaultOptions): Promise<ClusterClientOptions> {
  return loader.loadFromDefault(options);
}
