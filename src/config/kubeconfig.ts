/**
 * The kubeconfig model: {@linkcode parseKubeconfig} turns a kubeconfig's text into typed
 * clusters, users, contexts and extensions (`kubeconfig_merge.ts` merges several files,
 * `resolve_kubeconfig.ts` picks one context).
 * @module
 */
import { invalidKubeconfig as invalid } from "./errors.ts";
import { parseKubeconfigYaml } from "./kubeconfig_yaml.ts";
import type { YamlMapping, YamlValue } from "./yaml/yaml_value.ts";
import { describeValue } from "../util/values.ts";

/** A cluster entry (`clusters[].cluster`, plus its `name`). */
export interface KubeconfigCluster {
  /** Name contexts refer to. */
  name: string;
  /** API server URL (`server`). */
  server?: string;
  /** Path of a PEM CA bundle (`certificate-authority`), relative to the kubeconfig's folder. */
  certificateAuthority?: string;
  /** Base64 of a PEM CA bundle (`certificate-authority-data`); wins over the path. */
  certificateAuthorityData?: string;
  /** Skip verifying the server certificate (`insecure-skip-tls-verify`). */
  insecureSkipTlsVerify?: boolean;
  /** Name to verify the server certificate against (`tls-server-name`). */
  tlsServerName?: string;
  /** HTTP(S) or SOCKS5 proxy to reach the server through (`proxy-url`). */
  proxyUrl?: string;
  /** Do not ask the server for compressed responses (`disable-compression`). */
  disableCompression?: boolean;
  /**
   * Named extensions (`extensions`); `client.authentication.k8s.io/exec` is handed to the
   * user's exec plugin as `spec.cluster.config` when it has `provideClusterInfo`.
   */
  extensions?: KubeconfigExtension[];
}

/** A named extension (`extensions[]`): `name` and its `extension`, any value. */
export interface KubeconfigExtension {
  /** Name of the extension. */
  name: string;
  /** The extension's value as parsed. */
  extension: YamlValue;
}

/** An exec credential plugin (`users[].user.exec`), run by the loaders (`ExecCredentialSource`). */
export interface KubeconfigExec {
  /** Program to run (`command`). */
  command: string;
  /** Arguments (`args`). */
  args?: string[];
  /** Extra environment variables (`env`). */
  env?: { name: string; value: string }[];
  /** `client.authentication.k8s.io` version the plugin speaks (`apiVersion`). */
  apiVersion?: string;
  /** Message to show when the command is missing (`installHint`). */
  installHint?: string;
  /** Whether the plugin gets the cluster information (`provideClusterInfo`). */
  provideClusterInfo?: boolean;
  /** `Never`, `IfAvailable` or `Always` (`interactiveMode`). */
  interactiveMode?: string;
}

/** A legacy auth-provider (`users[].user.auth-provider`); reported, not run, by kinformer. */
export interface KubeconfigAuthProvider {
  /** Provider name, e.g. `oidc`, `gcp`, `azure`. */
  name: string;
  /** Provider settings. */
  config?: Record<string, string>;
}

/** A user entry (`users[].user`, plus its `name`). */
export interface KubeconfigUser {
  /** Name contexts refer to. */
  name: string;
  /** Bearer token (`token`); wins over `tokenFile`. */
  token?: string;
  /** File holding a bearer token (`tokenFile`), re-read as it rotates. */
  tokenFile?: string;
  /** Path of the PEM client certificate (`client-certificate`). */
  clientCertificate?: string;
  /** Base64 of the PEM client certificate (`client-certificate-data`); wins over the path. */
  clientCertificateData?: string;
  /** Path of the PEM client key (`client-key`). */
  clientKey?: string;
  /** Base64 of the PEM client key (`client-key-data`); wins over the path. */
  clientKeyData?: string;
  /** Basic authentication user (`username`). */
  username?: string;
  /** Basic authentication password (`password`). */
  password?: string;
  /** User to impersonate (`as`). */
  impersonate?: string;
  /** UID to impersonate (`as-uid`). */
  impersonateUid?: string;
  /** Groups to impersonate (`as-groups`). */
  impersonateGroups?: string[];
  /** Extra fields to impersonate (`as-user-extra`). */
  impersonateUserExtra?: Record<string, string[]>;
  /** Exec credential plugin (`exec`). */
  exec?: KubeconfigExec;
  /** Legacy auth-provider (`auth-provider`). */
  authProvider?: KubeconfigAuthProvider;
}

/** A context entry (`contexts[].context`, plus its `name`). */
export interface KubeconfigContext {
  /** Name of the context. */
  name: string;
  /** Name of the cluster (`cluster`). */
  cluster: string;
  /** Name of the user (`user`); absent for anonymous access. */
  user?: string;
  /** Default namespace (`namespace`). */
  namespace?: string;
}

/**
 * A parsed kubeconfig: the parts kinformer uses, with camelCase names.
 *
 * @example
 * ```ts
 * import { type Kubeconfig, resolveKubeconfig } from "@kinformer/kinformer/config";
 * import assert from "node:assert/strict";
 * const config: Kubeconfig = {
 *   clusters: [{ name: "dev", server: "https://127.0.0.1:6443" }],
 *   users: [{ name: "ci", token: "abc" }],
 *   contexts: [{ name: "dev", cluster: "dev", user: "ci" }],
 *   currentContext: "dev",
 * };
 * assert.equal(resolveKubeconfig(config).token, "abc");
 * ```
 */
export interface Kubeconfig {
  /** Context used when none is asked for (`current-context`). */
  currentContext?: string;
  /** Clusters in file order. */
  clusters: KubeconfigCluster[];
  /** Users in file order. */
  users: KubeconfigUser[];
  /** Contexts in file order. */
  contexts: KubeconfigContext[];
  /** Named extensions (`extensions`), kept as data. */
  extensions?: KubeconfigExtension[];
}

/**
 * Parses a kubeconfig (YAML as kubectl writes it, or JSON) into a {@linkcode Kubeconfig}.
 * Unknown fields (`preferences`) are ignored, extensions kept as data; fields of the wrong type and
 * duplicate names are a {@linkcode ClusterConfigError} with code `InvalidKubeconfig`; text
 * beyond the supported YAML is a {@linkcode KubeconfigParseError}.
 *
 * @example
 * ```ts
 * import { parseKubeconfig } from "@kinformer/kinformer/config";
 * import assert from "node:assert/strict";
 * const config = parseKubeconfig(`
 * apiVersion: v1
 * kind: Config
 * clusters:
 * - cluster:
 *     server: https://127.0.0.1:6443
 *   name: dev
 * users:
 * - name: alice
 *   user:
 *     token: abc
 * contexts:
 * - context:
 *     cluster: dev
 *     user: alice
 *     namespace: team-a
 *   name: dev
 * current-context: dev
 * `);
 * assert.equal(config.currentContext, "dev");
 * assert.equal(config.clusters[0]?.server, "https://127.0.0.1:6443");
 * ```
 */
export function parseKubeconfig(text: string): Kubeconfig {
  const root = parseKubeconfigYaml(text);
  if (root === null) return { clusters: [], users: [], contexts: [] };
  const doc = asMapping(root, "the document");
  const kind = optString(doc, "kind", "kind");
  if (kind !== undefined && kind !== "" && kind !== "Config") {
    throw invalid(
      `this is not a kubeconfig: kind is ${describeValue(kind)}, not "Config"`,
      "kind",
    );
  }
  const config: Kubeconfig = {
    clusters: namedList(doc, "clusters", "cluster", readCluster),
    users: namedList(doc, "users", "user", readUser),
    contexts: namedList(doc, "contexts", "context", readContext),
  };
  const extensions = readExtensions(doc, "extensions");
  if (extensions !== undefined) config.extensions = extensions;
  const current = optString(doc, "current-context", "current-context");
  if (current !== undefined && current !== "") config.currentContext = current;
  return config;
}

function typeName(value: YamlValue): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "a list";
  return typeof value === "object" ? "a mapping" : `a ${typeof value}`;
}

function isMapping(value: YamlValue | undefined): value is YamlMapping {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function asMapping(value: YamlValue, field: string): YamlMapping {
  if (!isMapping(value)) throw invalid(`${field} must be a mapping, not ${typeName(value)}`, field);
  return value;
}

function own(m: YamlMapping, key: string): YamlValue | undefined {
  return Object.hasOwn(m, key) ? m[key] : undefined;
}

/**
 * A string field; numbers and booleans are taken as their text (kubectl does the same for
 * string fields), null as absent.
 */
function optString(m: YamlMapping, key: string, field: string): string | undefined {
  const v = own(m, key);
  if (v === undefined || v === null) return undefined;
  if (typeof v === "string") return v;
  if (typeof v === "number" || typeof v === "boolean") return String(v);
  throw invalid(`${field} must be a string, not ${typeName(v)}`, field);
}

function optBool(m: YamlMapping, key: string, field: string): boolean | undefined {
  const v = own(m, key);
  if (v === undefined || v === null) return undefined;
  if (typeof v === "boolean") return v;
  if (v === "true" || v === "false") return v === "true";
  throw invalid(`${field} must be true or false, not ${typeName(v)}`, field);
}

function optStringList(m: YamlMapping, key: string, field: string): string[] | undefined {
  const v = own(m, key);
  if (v === undefined || v === null) return undefined;
  if (!Array.isArray(v)) throw invalid(`${field} must be a list, not ${typeName(v)}`, field);
  return v.map((item, i) => {
    const s = optString({ item }, "item", `${field}[${i}]`);
    if (s === undefined) throw invalid(`${field}[${i}] must be a string, not null`, field);
    return s;
  });
}

function optMapping(m: YamlMapping, key: string, field: string): YamlMapping | undefined {
  const v = own(m, key);
  if (v === undefined || v === null) return undefined;
  return asMapping(v, field);
}

/**
 * Reads a kubeconfig list of `{ name, <inner>: {...} }` entries, refusing duplicate names
 * (as kubectl does).
 */
function namedList<T extends { name: string }>(
  doc: YamlMapping,
  listKey: string,
  innerKey: string,
  read: (inner: YamlMapping, name: string, field: string) => T,
): T[] {
  const list = own(doc, listKey);
  if (list === undefined || list === null) return [];
  if (!Array.isArray(list)) {
    throw invalid(`${listKey} must be a list, not ${typeName(list)}`, listKey);
  }
  const seen = new Set<string>();
  return list.map((entry, i) => {
    const at = `${listKey}[${i}]`;
    const item = asMapping(entry, at);
    const name = optString(item, "name", `${at}.name`);
    if (name === undefined || name === "") throw invalid(`${at} has no name`, `${at}.name`);
    if (seen.has(name)) {
      throw invalid(`${listKey} has two entries named ${describeValue(name)}`, at);
    }
    seen.add(name);
    const field = `${listKey}[${name}].${innerKey}`;
    return read(optMapping(item, innerKey, field) ?? {}, name, field);
  });
}

/** Sets `target[key]` when `value` is defined (keeps `exactOptionalPropertyTypes` happy). */
function put<T, K extends keyof T>(target: T, key: K, value: T[K] | undefined): void {
  if (value !== undefined) target[key] = value;
}

function readCluster(m: YamlMapping, name: string, field: string): KubeconfigCluster {
  const s = (key: string): string | undefined => optString(m, key, `${field}.${key}`);
  const cluster: KubeconfigCluster = { name };
  put(cluster, "server", s("server"));
  put(cluster, "certificateAuthority", s("certificate-authority"));
  put(cluster, "certificateAuthorityData", s("certificate-authority-data"));
  put(
    cluster,
    "insecureSkipTlsVerify",
    optBool(m, "insecure-skip-tls-verify", `${field}.insecure-skip-tls-verify`),
  );
  put(cluster, "tlsServerName", s("tls-server-name"));
  put(cluster, "proxyUrl", s("proxy-url"));
  put(
    cluster,
    "disableCompression",
    optBool(m, "disable-compression", `${field}.disable-compression`),
  );
  put(cluster, "extensions", readExtensions(m, `${field}.extensions`, "extensions"));
  return cluster;
}

function readUser(m: YamlMapping, name: string, field: string): KubeconfigUser {
  const s = (key: string): string | undefined => optString(m, key, `${field}.${key}`);
  const user: KubeconfigUser = { name };
  put(user, "token", s("token"));
  put(user, "tokenFile", s("tokenFile"));
  put(user, "clientCertificate", s("client-certificate"));
  put(user, "clientCertificateData", s("client-certificate-data"));
  put(user, "clientKey", s("client-key"));
  put(user, "clientKeyData", s("client-key-data"));
  put(user, "username", s("username"));
  put(user, "password", s("password"));
  put(user, "impersonate", s("as"));
  put(user, "impersonateUid", s("as-uid"));
  put(user, "impersonateGroups", optStringList(m, "as-groups", `${field}.as-groups`));
  const extra = optMapping(m, "as-user-extra", `${field}.as-user-extra`);
  if (extra !== undefined) {
    const out: Record<string, string[]> = {};
    for (const key of Object.keys(extra)) {
      Object.defineProperty(out, key, {
        value: optStringList(extra, key, `${field}.as-user-extra.${key}`) ?? [],
        enumerable: true,
        writable: true,
        configurable: true,
      });
    }
    user.impersonateUserExtra = out;
  }
  const exec = optMapping(m, "exec", `${field}.exec`);
  if (exec !== undefined) user.exec = readExec(exec, `${field}.exec`);
  const provider = optMapping(m, "auth-provider", `${field}.auth-provider`);
  if (provider !== undefined) {
    const at = `${field}.auth-provider`;
    const authProvider: KubeconfigAuthProvider = {
      name: optString(provider, "name", `${at}.name`) ?? "",
    };
    const config = optMapping(provider, "config", `${at}.config`);
    if (config !== undefined) {
      const out: Record<string, string> = {};
      for (const key of Object.keys(config)) {
        const value = optString(config, key, `${at}.config.${key}`);
        if (value !== undefined) {
          Object.defineProperty(out, key, {
            value,
            enumerable: true,
            writable: true,
            configurable: true,
          });
        }
      }
      authProvider.config = out;
    }
    user.authProvider = authProvider;
  }
  return user;
}

function readExec(m: YamlMapping, field: string): KubeconfigExec {
  const exec: KubeconfigExec = { command: optString(m, "command", `${field}.command`) ?? "" };
  put(exec, "args", optStringList(m, "args", `${field}.args`));
  const env = own(m, "env");
  if (env !== undefined && env !== null) {
    if (!Array.isArray(env)) throw invalid(`${field}.env must be a list`, `${field}.env`);
    exec.env = env.map((entry, i) => {
      const item = asMapping(entry, `${field}.env[${i}]`);
      return {
        name: optString(item, "name", `${field}.env[${i}].name`) ?? "",
        value: optString(item, "value", `${field}.env[${i}].value`) ?? "",
      };
    });
  }
  put(exec, "apiVersion", optString(m, "apiVersion", `${field}.apiVersion`));
  put(exec, "installHint", optString(m, "installHint", `${field}.installHint`));
  put(exec, "provideClusterInfo", optBool(m, "provideClusterInfo", `${field}.provideClusterInfo`));
  put(exec, "interactiveMode", optString(m, "interactiveMode", `${field}.interactiveMode`));
  return exec;
}

/**
 * Reads a named `extensions` list (`[{ name, extension }]`), refusing unnamed and duplicate
 * entries as kubectl does. `at` names the list in errors (`key` by default).
 */
function readExtensions(
  m: YamlMapping,
  at: string,
  key = at,
): KubeconfigExtension[] | undefined {
  const list = own(m, key);
  if (list === undefined || list === null) return undefined;
  if (!Array.isArray(list)) throw invalid(`${at} must be a list, not ${typeName(list)}`, at);
  const seen = new Set<string>();
  return list.map((entry, i) => {
    const item = asMapping(entry, `${at}[${i}]`);
    const name = optString(item, "name", `${at}[${i}].name`);
    if (name === undefined || name === "") throw invalid(`${at}[${i}] has no name`, `${at}[${i}]`);
    if (seen.has(name)) throw invalid(`${at} has two entries named ${describeValue(name)}`, at);
    seen.add(name);
    return { name, extension: own(item, "extension") ?? null };
  });
}

function readContext(m: YamlMapping, name: string, field: string): KubeconfigContext {
  const context: KubeconfigContext = {
    name,
    cluster: optString(m, "cluster", `${field}.cluster`) ?? "",
  };
  put(context, "user", optString(m, "user", `${field}.user`));
  put(context, "namespace", optString(m, "namespace", `${field}.namespace`));
  return context;
}
