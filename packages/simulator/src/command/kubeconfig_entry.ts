/**
 * The command's kubeconfig edits, as text in and text out (no file access here): add a
 * context (its cluster and user of the same name) and make it current, or take it out again
 * and give back the context that was current before. A file is read with the library's YAML
 * parser and written as YAML (block style, strings double-quoted).
 * @module
 */
import { isRecord, parseYaml } from "@kinformer/kinformer/internal";

/** One context the command adds: a cluster, a token user and a context, all named `name`. */
export interface KubeconfigEntry {
  /** Name of the context, its cluster and its user. */
  readonly name: string;
  /** `https://...` of the server. */
  readonly server: string;
  /** PEM of the CA that signed the server's certificate (embedded as data). */
  readonly caCert: string;
  /** Bearer token of the user. */
  readonly token: string;
  /** Namespace of the context. */
  readonly namespace: string;
}

type Config = Record<string, unknown>;
const LISTS = ["clusters", "users", "contexts"] as const;

/** The kubeconfig `text` (undefined or blank: none yet) as an object; throws a clear error. */
function parse(text: string | undefined, path: string): Config {
  if (text === undefined || text.trim() === "") {
    return { apiVersion: "v1", kind: "Config", preferences: {} };
  }
  let value: unknown;
  try {
    value = parseYaml(text, { source: path });
  } catch (error) {
    throw new TypeError(`${path} is not a kubeconfig: ${(error as Error).message}`);
  }
  if (value === null || value === undefined) return { apiVersion: "v1", kind: "Config" };
  if (!isRecord(value)) throw new TypeError(`${path} is not a kubeconfig: not a mapping`);
  for (const list of LISTS) {
    const items = value[list];
    if (items !== undefined && items !== null && !Array.isArray(items)) {
      throw new TypeError(`${path} is not a kubeconfig: ${list} is not a list`);
    }
  }
  return { ...value };
}

/** `config[list]` without the entry named `name`. */
function without(config: Config, list: string, name: string): unknown[] {
  const items = Array.isArray(config[list]) ? config[list] as unknown[] : [];
  return items.filter((item) => !(isRecord(item) && item["name"] === name));
}

/**
 * `text` (a kubeconfig, or undefined for a new one) with `entry` added (replacing entries of
 * that name) and made the current context; `previous` is the current context it had.
 *
 * @example
 * ```ts
 * import { addContext } from "@kinformer/simulator/command";
 * import assert from "node:assert/strict";
 * const { text, previous } = addContext(undefined, "config", {
 *   name: "sim", server: "https://127.0.0.1:6443", caCert: "-----BEGIN CERTIFICATE-----\n",
 *   token: "t", namespace: "default",
 * });
 * assert.match(text, /^current-context: "sim"$/m);
 * assert.equal(previous, undefined);
 * ```
 */
export function addContext(
  text: string | undefined,
  path: string,
  entry: KubeconfigEntry,
): { text: string; previous: string | undefined } {
  const config = parse(text, path);
  const current = config["current-context"];
  const previous = typeof current === "string" && current !== "" && current !== entry.name
    ? current
    : undefined;
  config["clusters"] = [...without(config, "clusters", entry.name), {
    name: entry.name,
    cluster: { server: entry.server, "certificate-authority-data": btoa(entry.caCert) },
  }];
  config["users"] = [...without(config, "users", entry.name), {
    name: entry.name,
    user: { token: entry.token },
  }];
  config["contexts"] = [...without(config, "contexts", entry.name), {
    name: entry.name,
    context: { cluster: entry.name, user: entry.name, namespace: entry.namespace },
  }];
  config["current-context"] = entry.name;
  return { text: toYaml(config), previous };
}

/**
 * `text` without the context, cluster and user named `name`; when it was the current context,
 * `previous` is current again (or none); `empty` when no context, cluster or user is left (a
 * file the command created can then be deleted).
 *
 * @example
 * ```ts
 * import { addContext, removeContext } from "@kinformer/simulator/command";
 * import assert from "node:assert/strict";
 * const entry = {
 *   name: "sim", server: "https://127.0.0.1:6443", caCert: "-----BEGIN CERTIFICATE-----\n",
 *   token: "t", namespace: "default",
 * };
 * const added = addContext("current-context: mine\n", "config", entry);
 * assert.equal(added.previous, "mine");
 * const removed = removeContext(added.text, "config", "sim", added.previous);
 * assert.match(removed.text, /^current-context: "mine"$/m);
 * assert.equal(removed.empty, true);
 * ```
 */
export function removeContext(
  text: string,
  path: string,
  name: string,
  previous: string | undefined,
): { text: string; empty: boolean } {
  const config = parse(text, path);
  for (const list of LISTS) config[list] = without(config, list, name);
  if (config["current-context"] === name) {
    if (previous === undefined) delete config["current-context"];
    else config["current-context"] = previous;
  }
  const empty = LISTS.every((list) => (config[list] as unknown[]).length === 0);
  return { text: toYaml(config), empty };
}

/** YAML of `value` in block style, strings double-quoted (JSON escapes are YAML escapes). */
export function toYaml(value: unknown, indent = ""): string {
  if (Array.isArray(value)) {
    if (value.length === 0) return "[]\n";
    return value.map((item) => {
      const body = toYaml(item, indent + "  ");
      return isRecord(item) && Object.keys(item).length > 0 || Array.isArray(item) && item.length
        ? `${indent}- ${body.slice(indent.length + 2)}`
        : `${indent}- ${body}`;
    }).join("");
  }
  if (isRecord(value)) {
    const keys = Object.keys(value).filter((k) => value[k] !== undefined);
    if (keys.length === 0) return "{}\n";
    return keys.map((key) => {
      const item = value[key];
      const nested = (isRecord(item) && Object.keys(item).length > 0) ||
        (Array.isArray(item) && item.length > 0);
      const label = `${indent}${/^[A-Za-z0-9_.-]+$/.test(key) ? key : JSON.stringify(key)}:`;
      return nested ? `${label}\n${toYaml(item, indent + "  ")}` : `${label} ${toYaml(item)}`;
    }).join("");
  }
  if (typeof value === "string") return `${JSON.stringify(value)}\n`;
  if (value === null) return "null\n";
  return `${String(value)}\n`;
}
