/**
 * How the loaders wire an exec credential plugin into client options (internal): running it at
 * load, and taking its client certificates to the TLS layer.
 * @module
 */
import { abortable } from "../util/abort.ts";
import { dirnameOf, isAbsolutePath, resolveFrom } from "./_path.ts";
import type {
  ClusterClientOptions,
  ConfigHost,
  FetchFunction,
  HostFetch,
  LoadKubeconfigOptions,
} from "./config_loader_options.ts";
import { ClusterConfigError } from "./errors.ts";
import { ExecCredentialSource } from "./exec_credential.ts";
import type { ExecCredential } from "./exec_credential.ts";
import type { ResolvedClusterConfig } from "./resolve_kubeconfig.ts";

/**
 * The exec plugin of the kubeconfig user, if any, set up and run once now, so that its
 * credential is known (token or client certificate) and a missing or broken plugin fails the
 * load.
 */
export async function startExec(
  host: ConfigHost,
  resolved: ResolvedClusterConfig,
  path: string,
  caData: string | undefined,
  options: LoadKubeconfigOptions,
): Promise<{ source: ExecCredentialSource; first: ExecCredential } | undefined> {
  const exec = resolved.exec;
  if (exec === undefined) return undefined;
  const user = resolved.userName ?? "";
  if (
    resolved.token !== undefined || resolved.tokenFile !== undefined ||
    resolved.username !== undefined
  ) {
    throw new ClusterConfigError(
      `${path}: user ${JSON.stringify(user)} has an exec plugin and a token or ` +
        "username/password; keep one",
      { code: "InvalidKubeconfig", path, subject: `users[${user}].user.exec` },
    );
  }
  if (host.runCommand === undefined) {
    throw new ClusterConfigError(
      `${path}: user ${JSON.stringify(user)} gets its credentials from the exec plugin ` +
        `${JSON.stringify(exec.command)}, and ${host.runtime} cannot run programs here. ` +
        "Use a token instead, or run `kubectl proxy` and connect with kubectlProxy().",
      { code: "UnsupportedAuth", path, subject: resolved.userName },
    );
  }
  // Like kubectl: a relative command with a slash is relative to the kubeconfig's folder;
  // a bare name is looked up in PATH.
  const command = /[\\/]/.test(exec.command) && !isAbsolutePath(exec.command)
    ? resolveFrom(dirnameOf(path), exec.command)
    : exec.command;
  const source = new ExecCredentialSource({
    exec: { ...exec, command },
    run: host.runCommand,
    isNotFound: (error) => host.isNotFound(error),
    user,
    cluster: {
      server: resolved.server,
      caData,
      tlsServerName: resolved.tlsServerName,
      insecureSkipTlsVerify: resolved.insecureSkipTlsVerify,
      proxyUrl: resolved.proxyUrl,
    },
    clock: options.clock,
  });
  const first = await abortable(source.credential(), options.signal);
  return { source, first };
}

/**
 * Wraps `result.fetch` so that a client certificate from the exec plugin reaches the TLS
 * layer: each request asks the plugin's (cached) credential, and a new certificate gets a
 * new `fetch` built for it, closing the previous one, whose connections were made with the
 * old certificate (open watches then reconnect, as with client-go).
 */
export function withExecCertificates(
  result: ClusterClientOptions,
  source: ExecCredentialSource,
  build: (credential: ExecCredential) => HostFetch | undefined,
  plain: HostFetch | undefined,
  first: ExecCredential | undefined,
): ClusterClientOptions {
  const runtimeFetch: FetchFunction = (request) => globalThis.fetch(request);
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
  // The first certificate is applied now, so an unsupported one fails the load.
  if (first !== undefined) use(first);
  result.fetch = async (request) => {
    if (closed) throw new TypeError("these client options were closed (close() was called)");
    const credential = await abortable(source.credential(), request.signal);
    if (credential.clientCertificateData === undefined) {
      return (plain?.fetch ?? runtimeFetch)(request);
    }
    const built = use(credential);
    source.markServed(request, credential);
    return (built?.fetch ?? runtimeFetch)(request);
  };
  result.close = () => {
    if (closed) return;
    closed = true;
    plain?.close();
    current?.built?.close();
  };
  return result;
}
