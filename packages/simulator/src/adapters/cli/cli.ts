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
 * `--help` lists the options. It runs the Deno host (Deno.serve) on Deno and the Node host
 * (node:https) elsewhere; the command itself is `runCommand` of `@kinformer/simulator/command`.
 * @module
 */
export {}; // a module: its top-level await runs the command

if ("Deno" in globalThis) await (await import("../deno/cli_host.ts")).main();
else await (await import("../node/cli_host.ts")).main();
