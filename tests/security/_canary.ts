// Canary helpers for the secret tests: unique secret strings, one per credential position, and
// the check that none of them shows in what a caller can see of an error or a report.
import assert from "node:assert/strict";

/** One canary per position, each unique, so a leak names its source. */
export const CANARY = {
  token: "cnry-token-a1b2c3d4e5",
  tokenFn: "cnry-tokenfn-f6a7b8c9d0",
  tokenFile: "cnry-tokenfile-1a2b3c4d5e",
  rotatedToken: "cnry-rotatedtoken-b7c8d9e0f1",
  clientKey: "cnry-clientkey-6f7a8b9c0d",
  rotatedKey: "cnry-rotatedkey-c2d3e4f5a6",
  execEnv: "cnry-execenv-2e3f4a5b6c",
  execArg: "cnry-execarg-7d8e9f0a1b",
  urlQuery: "cnry-urlquery-3c4d5e6f7a",
  urlUser: "cnry-urluser-8b9c0d1e2f",
  password: "cnry-password-4a5b6c7d8e",
  proxyPassword: "cnry-proxypass-d4e5f6a7b8",
  impersonate: "cnry-impersonate-e9f0a1b2c3",
  yamlToken: "cnry-yamltoken-9f0a1b2c3d",
  jsonToken: "cnry-jsontoken-5e6f7a8b9c",
  header: "cnry-header-0d1e2f3a4b",
  checkpoint: "cnry-checkpoint-f1a2b3c4d5",
} as const;
const ALL: readonly string[] = Object.values(CANARY);

/** Everything an error exposes: message, String(), JSON, stack, its fields and cause chain. */
export function exposedText(value: unknown, depth = 0): string {
  if (depth > 6 || value === undefined || value === null) return "";
  const parts: string[] = [String(value)];
  try {
    parts.push(JSON.stringify(value) ?? "");
  } catch {
    // cycles: String() above is enough
  }
  if (value instanceof Error) {
    parts.push(value.message, value.stack ?? "");
    for (const key of Object.keys(value)) {
      parts.push(exposedText((value as unknown as Record<string, unknown>)[key], depth + 1));
    }
    parts.push(exposedText(value.cause, depth + 1));
  } else if (Array.isArray(value)) {
    for (const item of value) parts.push(exposedText(item, depth + 1));
  }
  return parts.join("\n");
}

/** Fails when any canary appears in `what`. */
export function assertClean(what: string, value: unknown): void {
  const text = typeof value === "string" ? value : exposedText(value);
  const leaked = ALL.filter((c) => text.includes(c));
  assert.deepEqual(leaked, [], `${what} leaks ${leaked.join(", ")}:\n${text.slice(0, 2_000)}`);
}

/** Runs `fn`, returns what it threw (or rejected with), failing when it did not. */
export async function caught(fn: () => unknown): Promise<unknown> {
  try {
    await fn();
  } catch (error) {
    return error;
  }
  assert.fail("expected an error");
}

/** A kubeconfig (YAML) with one cluster at `server`, one user with `user`'s fields. */
export function kubeconfigYaml(
  user: Record<string, unknown>,
  extra = "",
  server = "https://127.0.0.1:6443",
): string {
  return `apiVersion: v1
kind: Config
clusters:
- name: c
  cluster:
    server: ${server}
users:
- name: u
  user:
${Object.entries(user).map(([k, v]) => `    ${k}: ${JSON.stringify(v)}`).join("\n")}${extra}
contexts:
- name: x
  context: {cluster: c, user: u}
current-context: x
`;
}

/** A kubeconfig (JSON) with one cluster and one user, the fields given. */
export function kubeconfigJson(
  cluster: Record<string, unknown>,
  user: Record<string, unknown>,
): string {
  return JSON.stringify({
    clusters: [{ name: "c", cluster }],
    users: [{ name: "u", user }],
    contexts: [{ name: "x", context: { cluster: "c", user: "u" } }],
    "current-context": "x",
  });
}
