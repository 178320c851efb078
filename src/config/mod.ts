/**
 * Cluster configuration for kinformer: kubeconfig parsing and resolution, in-cluster service
 * account configuration, `kubectl proxy`, and the portable loader core. This module uses Web
 * APIs only; the loaders that read files and build TLS-capable `fetch` functions live in one
 * entry point per runtime: `@kinformer/kinformer/config/deno`, `.../config/bun`,
 * `.../config/node`, each exporting `loadKubeconfig`, `loadInCluster` and `loadFromDefault`.
 *
 * ## Guides
 * - [Getting started](https://github.com/kinformer/kinformer/blob/main/docs/getting-started.md):
 *   install and a first informer on each runtime.
 * - [Cluster access](https://github.com/kinformer/kinformer/blob/main/docs/cluster-access.md):
 *   kubeconfig rules, in-cluster, exec plugins, proxies, TLS per runtime.
 *
 * @example
 * ```ts
 * import { KubeClient } from "@kinformer/kinformer/client";
 * import { kubectlProxy, parseKubeconfig, resolveKubeconfig } from "@kinformer/kinformer/config";
 * import assert from "node:assert/strict";
 *
 * // Any runtime: a kubeconfig's text (from a secret, a file, a bundle) ...
 * const config = parseKubeconfig(`
 * apiVersion: v1
 * kind: Config
 * clusters:
 * - cluster:
 *     server: https://127.0.0.1:6443
 *   name: dev
 * users:
 * - name: ci
 *   user:
 *     token: abc
 * contexts:
 * - context:
 *     cluster: dev
 *     user: ci
 *     namespace: apps
 *   name: dev
 * current-context: dev
 * `);
 * const { server, token, namespace } = resolveKubeconfig(config);
 * assert.equal(server, "https://127.0.0.1:6443");
 * assert.equal(namespace, "apps");
 * const direct = new KubeClient({ server, token });
 * assert.equal(direct.server, "https://127.0.0.1:6443");
 *
 * // ... or `kubectl proxy`.
 * const proxied = new KubeClient(kubectlProxy());
 * assert.equal(proxied.server, "http://127.0.0.1:8001");
 * ```
 * @module
 */
export { ClusterConfigError, KubeconfigParseError } from "./errors.ts";
export { YamlSyntaxError } from "./yaml/yaml_syntax_error.ts";
export type { YamlSyntaxErrorOptions } from "./yaml/yaml_syntax_error.ts";
export type {
  ClusterConfigErrorCode,
  ClusterConfigErrorOptions,
  KubeconfigParseErrorOptions,
} from "./errors.ts";
export type { YamlMapping, YamlValue } from "./yaml/yaml_value.ts";
export { parseKubeconfig } from "./kubeconfig.ts";
export { resolveKubeconfig } from "./resolve_kubeconfig.ts";
export type {
  Impersonation,
  ResolvedClusterConfig,
  ResolveKubeconfigOptions,
} from "./resolve_kubeconfig.ts";
export { mergeKubeconfigs } from "./kubeconfig_merge.ts";
export type { KubeconfigFile } from "./kubeconfig_merge.ts";
export type {
  Kubeconfig,
  KubeconfigAuthProvider,
  KubeconfigCluster,
  KubeconfigContext,
  KubeconfigExec,
  KubeconfigExtension,
  KubeconfigUser,
} from "./kubeconfig.ts";
export { tokenFileSource } from "./token_file.ts";
export type { TokenFileSource, TokenFileSourceOptions } from "./token_file.ts";
export { loadInClusterConfig } from "./in_cluster.ts";
export type { InClusterConfig, InClusterConfigOptions } from "./in_cluster.ts";
export { kubectlProxy } from "./kubectl_proxy.ts";
export { ExecCredentialSource } from "./exec_credential.ts";
export type {
  ExecCredentialRequestOptions,
  ExecCredentialSourceOptions,
} from "./exec_credential.ts";
export type {
  ExecClusterInfo,
  ExecCommand,
  ExecCommandResult,
  ExecCredential,
  RunCommand,
} from "./exec_command.ts";
export { ExecCredentialError } from "./exec_credential_error.ts";
export type {
  ExecCredentialErrorCode,
  ExecCredentialErrorOptions,
} from "./exec_credential_error.ts";
export { createConfigLoader } from "./config_loader.ts";
export type {
  ClusterClientOptions,
  ConfigHost,
  ConfigLoader,
  ConfigSource,
  ConfigWarning,
  ConnectOptions,
  FetchFunction,
  HostFetch,
  HostTransport,
  LoadFromDefaultOptions,
  LoadInClusterOptions,
  LoadKubeconfigOptions,
  TransportConfig,
  TransportFeature,
} from "./config_loader_options.ts";
