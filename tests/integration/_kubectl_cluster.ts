// A simulated cluster served on 127.0.0.1 with a kubeconfig for it, and kubectl (1.33, see
// _kubectl.ts) run against it: what the kubectl_* tests share. The cluster runs on a
// ManualClock: while kubectl runs, the clock is advanced in steps of the controllers' delay (so
// `kubectl delete --wait` sees the garbage collector and the namespace controller work), unless
// the test holds it to look at a state in between.
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type {
  SimulatedCluster,
  SimulatedClusterOptions,
} from "../../src/testing/simulated_cluster.ts";
import { serveCluster } from "../_serve.ts";
import { KUBECTL } from "./_kubectl.ts";
import { ManualClock } from "../../src/testing/manual_clock.ts";
import { CONTROLLER_DELAY_MS } from "../../src/testing/controllers/cluster_controllers.ts";

/** How one kubectl run ended. */
export interface KubectlRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** How to run kubectl. */
export interface RunOptions {
  /** Do not advance the cluster's clock while kubectl runs. @default false */
  hold?: boolean;
}

/** A served cluster and kubectl pointed at it. */
export interface KubectlCluster {
  /** The cluster (its control API and request log). */
  readonly cluster: SimulatedCluster;
  /** The cluster's clock. */
  readonly clock: ManualClock;
  /** Runs kubectl to its end; fails the test unless it exits 0. */
  kubectl(args: string[], options?: RunOptions): Promise<KubectlRun>;
  /** Runs kubectl to its end, whatever its exit code. */
  run(args: string[], options?: RunOptions): Promise<KubectlRun>;
  /** Lets the cluster's controllers act on what is pending. */
  settle(): Promise<void>;
  /** Writes `text` to a file of the session's folder; its path. */
  file(name: string, text: string): Promise<string>;
  /** Stops the server and removes the folder. */
  close(): Promise<void>;
}

/** Serves a new simulated cluster and writes a kubeconfig for it, default namespace `default`. */
export async function kubectlCluster(
  options: SimulatedClusterOptions = {},
): Promise<KubectlCluster> {
  const clock = new ManualClock();
  const { cluster, server, close } = await serveCluster({ seed: 7, clock, ...options });
  const dir = await mkdtemp(join(tmpdir(), "kinformer-kubectl-"));
  const kubeconfig = join(dir, "config");
  await writeFile(
    kubeconfig,
    [
      "apiVersion: v1",
      "kind: Config",
      "clusters:",
      "- name: sim",
      "  cluster:",
      `    server: ${server.url}`,
      "users:",
      "- name: sim",
      "  user: {}",
      "contexts:",
      "- name: sim",
      "  context:",
      "    cluster: sim",
      "    user: sim",
      "    namespace: default",
      "current-context: sim",
      "",
    ].join("\n"),
  );
  const base = [
    "--kubeconfig",
    kubeconfig,
    "--cache-dir",
    join(dir, "cache"),
    "--request-timeout",
    "20s",
  ];
  const env = { ...process.env, HOME: dir, KUBECONFIG: kubeconfig };
  const run = async (args: string[], runOptions: RunOptions = {}): Promise<KubectlRun> => {
    let ended = false;
    const done = new Promise<KubectlRun>((resolve, reject) => {
      const child = spawn(KUBECTL, [...base, ...args], { env, stdio: ["ignore", "pipe", "pipe"] });
      let stdout = "";
      let stderr = "";
      child.stdout.on("data", (d: Uint8Array) => (stdout += new TextDecoder().decode(d)));
      child.stderr.on("data", (d: Uint8Array) => (stderr += new TextDecoder().decode(d)));
      child.on("error", reject);
      child.on("close", (code) => {
        ended = true;
        resolve({ code, stdout, stderr });
      });
    });
    while (!ended) {
      // Real time for kubectl and the sockets; cluster time for the controllers.
      await new Promise((resolve) => setTimeout(resolve, 5));
      if (!runOptions.hold) await clock.advance(CONTROLLER_DELAY_MS);
    }
    return await done;
  };
  return {
    cluster,
    clock,
    run,
    settle: () => clock.advance(CONTROLLER_DELAY_MS),
    kubectl: async (args, runOptions) => {
      const r = await run(args, runOptions);
      assert.equal(r.code, 0, `kubectl ${args.join(" ")} failed: ${r.stderr}`);
      return r;
    },
    file: async (name, text) => {
      const path = join(dir, name);
      await writeFile(path, text);
      return path;
    },
    close: async () => {
      await close();
      await rm(dir, { recursive: true, force: true });
    },
  };
}
