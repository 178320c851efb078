/**
 * The `kinformer-sim` command as functions: {@linkcode runCommand} (the whole command, given a
 * {@linkcode CommandHost} for files, output and serving), {@linkcode startSimulator}, and its
 * parts: the argument parser, the throwaway CA and server certificate, the kubeconfig edits,
 * the manifests it applies. The runnable command is `@kinformer/simulator/cli`.
 *
 * @example
 * ```ts
 * import { parseCommandArgs, USAGE } from "@kinformer/simulator/command";
 * import assert from "node:assert/strict";
 * assert.equal(parseCommandArgs(["--help"]), "help");
 * assert.match(USAGE, /--fixtures NAME/);
 * ```
 * @module
 */
export { createCertificates } from "./certificates.ts";
export type { CertificateOptions, ServerCertificates } from "./certificates.ts";
export {
  type CommandOptions,
  CommandUsageError,
  parseCommandArgs,
  USAGE,
} from "./command_options.ts";
export { FIXTURE_SETS } from "./fixture_sets.ts";
export { addContext, removeContext } from "./kubeconfig_entry.ts";
export type { KubeconfigEntry } from "./kubeconfig_entry.ts";
export { applyManifests, parseManifests } from "./manifests.ts";
export type { ApplyManifestsOptions, Manifest } from "./manifests.ts";
export { formatStatus, runCommand, startSimulator } from "./run_command.ts";
export type {
  CommandHost,
  CommandServer,
  RunningSimulator,
  SimulatorStatus,
} from "./run_command.ts";
