/**
 * How the loaders wire an exec credential plugin into client options (internal): one shared
 * {@linkcode ExecCredentialSource} per distinct user configuration in the process (nothing runs
 * at load), and the plugin's client certificates taken to the TLS layer.
 * @module
 */
import type { Clock } from "../util/clock.ts";
import { systemClock } from "../util/clock.ts";
import type {
  ClusterClientOptions,
  ConfigHost,
  FetchFunction,
  HostFetch,
  LoadKubeconfigOptions,
} from "./config_loader_options.ts";
import { ClusterConfigError } from "./errors.ts";
import type { ExecClusterInfo, ExecCredential, RunCommand } from "./exec_command.ts";
import { ExecCredentialSource } from "./exec_credential.ts";
import type { KubeconfigExec } from "./kubeconfig.ts";
import type { ResolvedClusterConfig } from "./resolve_kubeconfig.ts";
import { describeValue } from "../util/values.ts";

/**
 * The credential sources of the process, by runner and clock (one of each in a program; tests
 * bring their own) and then by user configuration: the exec block and the cluster, as
 * client-go keys its cache. A later load of the same user reuses the source, and with it the
 * cached credential and any run in progress.
 */
const sources = new WeakMap<RunCommand, WeakMap<Clock, Map<string, ExecCredentialSource>>>();

/** The key of a user configuration: everything the plugin is run with. */
function keyOf(exec: KubeconfigExec, cluster: ExecClusterInfo): string {
  return JSON.stringify([
    exec.command,
    exec.args ?? [],
    (exec.env ?? []).map((e) => [e.name, e.value]),
    exec.apiVersion ?? "",
    exec.interactiveMode ?? "",
    exec.provideClusterInfo === true,
    exec.installHint ?? "",
    cluster,
  ]);
}

/**
 * The exec plugin source of the user: checked now (a bad `exec` block, or a runtime that
 * cannot run programs, fails the load), shared with every other load of the same user
 * configuration, run only when a request first needs a credential.
 */
export function execSource(
  host: ConfigHost,
  resolved: ResolvedClusterConfig,
  exec: KubeconfigExec,
  caData: string | undefined,
  where: string,
  options: LoadKubeconfigOptions,
): ExecCredentialSource {
  const user = resolved.userName ?? "";
  const run = host.runCommand;
  if (run === undefined) {
    throw new ClusterConfigError(
      `${where}: user ${describeValue(user)} gets its credentials from the exec plugin ` +
        `${exec.command.includes("\0") ? "<command>" : describeValue(exec.command)}, and ` +
        `${host.runtime} cannot run programs here. Use a token instead, or run ` +
        "`kubectl proxy` and connect with kubectlProxy().",
      { code: "UnsupportedAuth", path: where, subject: resolved.userName },
    );
  }
  const cluster: ExecClusterInfo = {
    server: resolved.server,
    caData,
    tlsServerName: resolved.tlsServerName,
    insecureSkipTlsVerify: resolved.insecureSkipTlsVerify,
    proxyUrl: resolved.proxyUrl,
    disableCompression: resolved.disableCompression,
    config: resolved.execClusterConfig,
  };
  const clock = options.clock ?? systemClock;
  let byClock = sources.get(run);
  if (byClock === undefined) sources.set(run, byClock = new WeakMap());
  let byKey = byClock.get(clock);
  if (byKey === undefined) byClock.set(clock, byKey = new Map());
  const key = keyOf(exec, cluster);
  const known = byKey.get(key);
  if (known !== undefined) return known;
  const source = new ExecCredentialSource({
    exec,
    run,
    isNotFound: (error) => host.isNotFound(error),
    user,
    cluster,
    clock,
    timeoutMs: options.execTimeoutMs,
    onStderr: options.execStderr ?? host.writeStderr,
    isTerminal: host.stdinIsTerminal,
  });
  byKey.set(key, source);
  return source;
}

/**
 * Wraps `result.fetch` so that each request gets the plugin's (cached) credential first, and a
 * client certificate from it reaches the TLS layer: a new certificate gets a new `fetch` built
 * for it, closing the previous one, whose connections were made with the old certificate (open
 * watches then reconnect, as with client-go). With the caller's own `fetch`, which no
 * certificate can reach, a certificate fails the request (`UnsupportedTls`).
 */
export function withExecCredentials(
  result: ClusterClientOptions,
  source: ExecCredentialSource,
  build: (credential: ExecCredential) => HostFetch | undefined,
  plain: HostFetch | undefined,
  given: FetchFunction | undefined,
  user: string,
): ClusterClientOptions {
  const base: FetchFunction = given ?? plain?.fetch ?? ((request) => globalThis.fetch(request));
  let current: { credential: ExecCredential; built: HostFetch | undefined } | undefined;
  let closed = false;
  const use = (credential: ExecCredential): HostFetch | undefined => {
    const same = current !== undefined && (current.credential === credential || (
      current.credential.clientCertificateData === credential.clientCertificateData &&
      current.credential.clientKeyData === credential.clientKeyData
    ));
    if (!same) {
      current?.built?.close();
      current = { credential, built: build(credential) };
    }
    return current!.built;
  };
  result.fetch = async (request) => {
    if (closed) throw new TypeError("these client options were closed (close() was called)");
    const credential = await source.credential({ signal: request.signal });
    if (credential.clientCertificateData === undefined) return base(request);
    if (given !== undefined) {
      throw new ClusterConfigError(
        `the exec plugin of user ${describeValue(user)} gave a client ` +
          "certificate, which cannot reach the `fetch` option: pass `createFetch` instead",
        { code: "UnsupportedTls", subject: "clientCert" },
      );
    }
    const built = use(credential);
    source.markServed(request, credential);
    return (built?.fetch ?? base)(request);
  };
  result.close = () => {
    if (closed) return;
    closed = true;
    plain?.close();
    current?.built?.close();
  };
  return result;
}
