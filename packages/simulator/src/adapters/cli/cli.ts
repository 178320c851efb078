#!/usr/bin/env node
/**
 * `kinformer-sim`, the command that starts a simulated cluster: a simulated Kubernetes API
 * server on HTTPS, a context for it in your kubeconfig, a status line until Ctrl-C.
 *
 * ```sh
 * npx @kinformer/simulator --fixtures demo
 * deno run -A jsr:@kinformer/simulator/cli --fixtures demo
 * ```
 *
 * `--help` lists the options. Run as a program, this module runs the command; imported, it only
 * exports {@linkcode main}. It runs the Deno host (Deno.serve) on Deno and the Node host
 * (node:https) elsewhere; the command itself is `runCommand` of `@kinformer/simulator/command`.
 * @module
 */

/**
 * Runs `kinformer-sim` with this process's arguments until SIGINT or SIGTERM, and sets the
 * process's exit code (0; 1 when it could not start; 2 for wrong arguments).
 *
 * @example
 * ```ts ignore
 * // Not run as an example: it serves until the process gets SIGINT or SIGTERM.
 * import { main } from "@kinformer/simulator/cli";
 * await main();
 * ```
 */
export async function main(): Promise<void> {
  if ("Deno" in globalThis) await (await import("../deno/cli_host.ts")).main();
  else await (await import("../node/cli_host.ts")).main();
}

/**
 * Whether this module is the program being run: `import.meta.main` (Deno, Bun, Node 22.18 and
 * 24.2 on), else whether the script Node was started with is this file, through symlinks (npm's
 * `.bin/kinformer-sim`).
 */
async function runAsProgram(): Promise<boolean> {
  const flag = (import.meta as { main?: unknown }).main;
  if (typeof flag === "boolean") return flag;
  const [{ realpathSync }, { fileURLToPath }, { argv }] = await Promise.all([
    import("node:fs"),
    import("node:url"),
    import("node:process"),
  ]);
  try {
    return argv[1] !== undefined && realpathSync(argv[1]) === fileURLToPath(import.meta.url);
  } catch {
    return false;
  }
}

if (await runAsProgram()) await main();
