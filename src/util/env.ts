/**
 * Reading an environment switch without depending on a runtime. Internal.
 * @module
 */

interface EnvHosts {
  Deno?: {
    env?: { get(name: string): string | undefined };
    permissions?: { querySync?(d: { name: "env"; variable: string }): { state: string } };
  };
  process?: { env?: Record<string, string | undefined> };
}

/**
 * The value of environment variable `name` where the runtime has an environment (Node, Bun,
 * Deno when env access is already granted: this never prompts), else undefined. Never throws.
 */
export function envVar(name: string): string | undefined {
  const g = globalThis as EnvHosts;
  try {
    const deno = g.Deno;
    if (deno?.env !== undefined) {
      const state = deno.permissions?.querySync?.({ name: "env", variable: name }).state;
      return state === "granted" ? deno.env.get(name) : undefined;
    }
    return g.process?.env?.[name];
  } catch {
    return undefined;
  }
}

/** Whether environment variable `name` is set to `1` or `true`. */
export function envFlag(name: string): boolean {
  const value = envVar(name)?.toLowerCase();
  return value === "1" || value === "true";
}

/** Proxy variables a runtime's own `fetch` may read (Deno and Bun do; Node's does not). */
const PROXY_VARIABLES = ["HTTPS_PROXY", "https_proxy", "HTTP_PROXY", "http_proxy", "ALL_PROXY"];

/**
 * Whether a proxy variable a runtime's `fetch` may follow by itself is set to a non-empty
 * value (`HTTPS_PROXY`, `HTTP_PROXY`, `ALL_PROXY`, either case).
 */
export function proxyVariablesSet(): boolean {
  return [...PROXY_VARIABLES, "all_proxy"].some((name) => (envVar(name) ?? "") !== "");
}

/** Whether `NO_PROXY` or `no_proxy` is set to a non-empty value. */
export function noProxySet(): boolean {
  return (envVar("NO_PROXY") ?? "") !== "" || (envVar("no_proxy") ?? "") !== "";
}
