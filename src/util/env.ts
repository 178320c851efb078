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
