/**
 * What the configuration loaders take and give: the runtime host interface, the load options,
 * and the client options they return.
 * @module
 */
import type { KubeClientOptions } from "../client/kube_client.ts";
import type { Clock } from "../util/clock.ts";
import type { OnError } from "../util/error_context.ts";

import type { RunCommand } from "./exec_command.ts";

/** A `fetch` taking one `Request`, as `KubeClientOptions.fetch` expects. */
export type FetchFunction = (request: Request) => Promise<Response>;

/**
 * TLS and proxy settings of a cluster connection (PEM text, not paths), as handed to
 * `createFetch`.
 *
 * @example
 * ```ts
 * import type { FetchFunction, TransportConfig } from "@kinformer/kinformer/config";
 * import assert from "node:assert/strict";
 * // A createFetch for a runtime whose fetch trusts the cluster CA already.
 * const createFetch = (tls: TransportConfig): FetchFunction => {
 *   if (tls.certData !== undefined) throw new Error("client certificates need another fetch");
 *   return (request) => fetch(request);
 * };
 * assert.equal(typeof createFetch({ caData: "-----BEGIN CERTIFICATE-----..." }), "function");
 * assert.throws(() => createFetch({ certData: "...", keyData: "..." }), /client certificates/);
 * ```
 */
export interface TransportConfig {
  /** PEM CA bundle to verify the server with. */
  caData?: string;
  /** PEM client certificate (with `keyData`). */
  certData?: string;
  /** PEM client key (with `certData`). */
  keyData?: string;
  /** Do not verify the server certificate. */
  insecureSkipTlsVerify?: boolean;
  /** Name to verify the server certificate against, instead of the URL's host. */
  tlsServerName?: string;
  /**
   * Proxy to connect through (`http:`, `https:`, `socks5:` or `socks5h:`): the kubeconfig's
   * `proxy-url`, else the one `HTTPS_PROXY`/`HTTP_PROXY` give this server (`NO_PROXY` and
   * loopback excluded, by Go's rules). Absent: connect directly. A `fetch` built for this
   * config must not take a proxy from the environment itself: the loader has decided.
   */
  proxyUrl?: string;
  /**
   * Do not ask for compressed responses (the kubeconfig's `disable-compression: true`):
   * requests say `Accept-Encoding: identity`. Otherwise transports ask for gzip and decode it
   * as the body streams.
   */
  disableCompression?: boolean;
}

/** One capability a runtime's `fetch` may lack. */
export type TransportFeature =
  | "ca"
  | "clientCert"
  | "insecureSkipTlsVerify"
  | "tlsServerName"
  | "proxy"
  | "disableCompression";

/** A `fetch` built for a {@linkcode TransportConfig}, and how to release it. */
export interface HostFetch {
  /** Performs requests with the TLS and proxy settings applied. */
  fetch: FetchFunction;
  /** Releases the underlying HTTP client (idempotent). */
  close(): void;
}

/** How a runtime builds a `fetch` for TLS and proxy settings. */
export interface HostTransport {
  /** The settings `create` can apply. */
  supports: readonly TransportFeature[];
  /** Builds a `fetch` applying `transport` (which only holds supported settings). */
  create(transport: TransportConfig): HostFetch;
  /**
   * Whether the runtime's own `fetch` would take a proxy from the environment now
   * (`HTTPS_PROXY`, `NO_PROXY`, ... are set) by rules other than kubectl's. The loader then
   * builds every `fetch` with `create`, also when there is no setting to apply, and `create`
   * must connect directly when `proxyUrl` is absent.
   * @default () => false
   */
  readsProxyEnv?: (() => boolean) | undefined;
}

/** What a loader needs from a runtime. Each runtime entry point exports one. */
export interface ConfigHost {
  /** Runtime name for messages, e.g. `"Deno"`. */
  runtime: string;
  /** Reads a whole UTF-8 text file. */
  readFile(path: string): Promise<string>;
  /** Whether an error thrown by `readFile` means the file does not exist. */
  isNotFound(error: unknown): boolean;
  /** Reads an environment variable. */
  env(name: string): string | undefined;
  /** Separator of paths in `KUBECONFIG` (`":"`, or `";"` on Windows). */
  pathListSeparator: string;
  /** TLS/proxy support of the runtime's `fetch`; absent when it has none. */
  transport?: HostTransport | undefined;
  /**
   * Whether the runtime's `fetch` and every `fetch` `transport.create` builds read a body of
   * concatenated gzip members to its end (kube-apiserver 1.37's compressed streaming lists).
   * The loader then sets `watchListCompression: true` on what it returns, unless the caller
   * gave a `fetch` or `createFetch` of its own.
   * @default false
   */
  readsGzipMembers?: boolean | undefined;
  /** Runtime-specific advice added to `UnsupportedTls` errors, per setting. */
  hints?: Partial<Record<TransportFeature, string>> | undefined;
  /**
   * Runs an exec credential plugin (no shell); absent when the runtime cannot start
   * processes, and users with an `exec` plugin are then refused (`UnsupportedAuth`).
   */
  runCommand?: RunCommand | undefined;
  /**
   * Whether this process's standard input is a terminal (an exec plugin with
   * `interactiveMode: IfAvailable` or `Always` then reads it).
   * @default () => false
   */
  stdinIsTerminal?: (() => boolean) | undefined;
  /**
   * Writes bytes to this process's standard error: where an exec plugin's stderr goes, as
   * the plugin writes it, unless `execStderr` is given.
   * @default undefined (a plugin's stderr is dropped, apart from the error of a failed run)
   */
  writeStderr?: ((chunk: Uint8Array) => void) | undefined;
}

/** Where a set of client options came from. */
export type ConfigSource = "kubeconfig" | "in-cluster" | "kubectl-proxy";

/**
 * Options for `new KubeClient(...)` produced by a loader, plus what the loader learned: the
 * default namespace, the TLS settings, and `close()` to release a custom HTTP client.
 *
 * @example
 * ```ts
 * import { KubeClient } from "@kinformer/kinformer/client";
 * import { type ClusterClientOptions, kubectlProxy } from "@kinformer/kinformer/config";
 * import assert from "node:assert/strict";
 * const options: ClusterClientOptions = kubectlProxy();
 * const client = new KubeClient(options); // extra fields are ignored by KubeClient
 * assert.equal(client.server, "http://127.0.0.1:8001");
 * assert.equal(options.source, "kubectl-proxy");
 * assert.equal(options.namespace, undefined); // the proxy has no default namespace
 * options.close();
 * ```
 */
export interface ClusterClientOptions extends KubeClientOptions {
  /** Where the options came from. */
  source: ConfigSource;
  /** Default namespace of the context, or the pod's namespace; absent when none is set. */
  namespace?: string | undefined;
  /**
   * For `source: "kubeconfig"`: the kubeconfig file the context used came from (with a
   * `KUBECONFIG` list, the file that defines it).
   */
  kubeconfigPath?: string | undefined;
  /** For `source: "kubeconfig"`: every kubeconfig file read and merged, in order. */
  kubeconfigPaths?: string[] | undefined;
  /** Context used, for `source: "kubeconfig"`. */
  context?: string | undefined;
  /**
   * TLS and proxy settings of the connection, also when they were applied through `fetch`
   * (to build another `fetch` from them). An exec plugin's client certificate is not in it.
   */
  transport?: TransportConfig | undefined;
  /** Releases the HTTP client built for `transport`, if any. Safe to call more than once. */
  close(): void;
}

/**
 * Something a loader left out of the configuration on purpose, told through
 * {@linkcode ConnectOptions.onWarning}: names what and why, never a secret.
 *
 * @example
 * ```ts
 * import type { ConfigWarning } from "@kinformer/kinformer/config";
 * import assert from "node:assert/strict";
 * const warning: ConfigWarning = {
 *   code: "CredentialsNotSent",
 *   message: 'kubeconfig user "me" (/home/me/.kube/config): token not sent: ...',
 *   user: "me",
 *   cluster: "dev",
 *   path: "/home/me/.kube/config",
 *   credentials: ["token"],
 * };
 * assert.equal(warning.credentials.length, 1);
 * ```
 */
export interface ConfigWarning {
  /**
   * The rule that applied. `CredentialsNotSent`: the cluster's server is `http://`, so the
   * user's credentials are left out, as kubectl leaves them out (they would travel in clear
   * text); requests go out anonymous, and the server likely answers 401.
   */
  code: "CredentialsNotSent";
  /** One line naming the user, the file, what was left out and the rule. */
  message: string;
  /** The kubeconfig user whose credentials were left out. */
  user: string;
  /** The kubeconfig cluster (its server URL is not repeated: it may hold a password). */
  cluster: string;
  /** The kubeconfig file that defines the user. */
  path: string;
  /**
   * What was left out: `token`, `tokenFile`, `basic auth`, `client certificate`,
   * `exec plugin`, `auth-provider`.
   */
  credentials: readonly string[];
}

/** Options shared by every loader. */
export interface ConnectOptions {
  /**
   * `fetch` to use as-is. It must already apply the cluster's TLS settings (CA, client
   * certificate); the loader builds none, and refuses an exec plugin that gives a client
   * certificate (it could not reach this `fetch`).
   * @default built from the TLS settings (Deno: `Deno.createHttpClient`; Bun: `fetch`'s
   * `tls`; Node: `createNodeFetch` on `node:https`); `globalThis.fetch` when there are none
   */
  fetch?: FetchFunction | undefined;
  /**
   * Builds the `fetch` from the connection's TLS settings, instead of the runtime's own
   * support. Called only when there are settings to apply, and again with the new
   * certificate each time an exec plugin gives another client certificate.
   * @default undefined
   */
  createFetch?: ((transport: TransportConfig) => FetchFunction) | undefined;
  /**
   * Connect without the TLS settings this runtime's `fetch` cannot apply, instead of
   * throwing a `ClusterConfigError` with code `UnsupportedTls`: for a CA trusted some other
   * way. A client certificate is never dropped (requests would go out unauthenticated): it
   * is refused with `UnsupportedTls` even then. Deno, Bun and Node apply every setting, so
   * this matters only for a custom {@linkcode ConfigHost}.
   * @default false
   */
  ignoreUnsupportedTls?: boolean | undefined;
  /**
   * Time source for re-reading token files and client certificate files (certificate files
   * at most once a second, at a request, as client-go), for the expiry of exec plugin credentials and for the exec plugin's time
   * limit.
   * @default the system clock (`Date.now` and the global timers)
   */
  clock?: Clock | undefined;
  /**
   * An exec plugin running longer than this is stopped, with the processes it started, and
   * the requests waiting on it fail (`ExecCredentialError` code `Timeout`); `Infinity` for no
   * limit (as kubectl). Plugin runs are shared by every load of the same user configuration:
   * the first load's value holds.
   * @default 300_000
   */
  execTimeoutMs?: number | undefined;
  /**
   * Receives an exec plugin's stderr as it writes it (the first load of a user
   * configuration sets it, as `execTimeoutMs`).
   * @default the runtime's standard error (`ConfigHost.writeStderr`)
   */
  execStderr?: ((chunk: Uint8Array) => void) | undefined;
  /**
   * Token files are re-read at most once per this many milliseconds.
   * @default 60_000
   */
  tokenRefreshIntervalMs?: number | undefined;
  /**
   * Told when re-reading a token file fails (the cached token keeps being used), and when
   * client certificate and key files changed into a pair that cannot be used yet (the
   * previous pair keeps being used).
   * The context is the one `ErrorContext` of kinformer (phase `credentials`); it replaces
   * the default printing.
   * @default prints as every long-running object of kinformer does: the first failure of
   * each kind at once, then at most one line per kind per minute
   */
  onTokenError?: OnError | undefined;
  /**
   * Told, once per load, of what the loader left out of the configuration on purpose
   * ({@linkcode ConfigWarning}: a kubeconfig user's credentials for an `http://` server).
   * @default one `console.warn` line per distinct warning (a loader repeats none)
   */
  onWarning?: ((warning: ConfigWarning) => void) | undefined;
  /**
   * Aborts loading.
   * @default undefined
   */
  signal?: AbortSignal | undefined;
}

/** Options of {@linkcode ConfigLoader.loadKubeconfig}. */
export interface LoadKubeconfigOptions extends ConnectOptions {
  /**
   * The one kubeconfig file to read (as `kubectl --kubeconfig`): an error when it does not
   * exist.
   * @default the files of `KUBECONFIG` (split on `:`, or `;` on Windows; missing ones
   * skipped) merged as kubectl merges them, else `~/.kube/config`
   */
  path?: string | undefined;
  /**
   * Context to use.
   * @default the kubeconfig's `current-context`
   */
  context?: string | undefined;
}

/** Options of {@linkcode ConfigLoader.loadInCluster}. */
export interface LoadInClusterOptions extends ConnectOptions {
  /**
   * Folder holding the service account `token`, `ca.crt` and `namespace`.
   * @default "/var/run/secrets/kubernetes.io/serviceaccount"
   */
  serviceAccountDir?: string | undefined;
}

/** Options of {@linkcode ConfigLoader.loadFromDefault}. */
export interface LoadFromDefaultOptions extends ConnectOptions {
  /**
   * Context to use when a kubeconfig is found.
   * @default the kubeconfig's `current-context`
   */
  context?: string | undefined;
  /**
   * Service account folder used when falling back to in-cluster configuration.
   * @default "/var/run/secrets/kubernetes.io/serviceaccount"
   */
  serviceAccountDir?: string | undefined;
}

/** The loaders bound to one runtime; see {@linkcode createConfigLoader}. */
export interface ConfigLoader {
  /** Reads a kubeconfig and returns client options for one of its contexts. */
  loadKubeconfig(options?: LoadKubeconfigOptions): Promise<ClusterClientOptions>;
  /** Returns client options for the pod this runs in. */
  loadInCluster(options?: LoadInClusterOptions): Promise<ClusterClientOptions>;
  /**
   * The files of `KUBECONFIG` (merged), else `~/.kube/config`, else in-cluster (also when
   * they hold no configuration), as client-go's default loading rules.
   */
  loadFromDefault(options?: LoadFromDefaultOptions): Promise<ClusterClientOptions>;
  /**
   * The first kubeconfig file `loadKubeconfig` reads by default, or `undefined` without
   * `KUBECONFIG` or a home folder.
   */
  defaultKubeconfigPath(): string | undefined;
  /** Every kubeconfig file `loadKubeconfig` reads by default, in merge order. */
  defaultKubeconfigPaths(): string[];
}
