// The resolution hook scripts/_workspace_node.mjs registers (it runs on Node's hooks thread).
import { pathToFileURL } from "node:url";
import { workspaceTarget } from "./_workspace.mjs";

/** Node's `resolve` hook: a workspace package's name to its source file, the rest unchanged. */
export async function resolve(specifier, context, next) {
  const target = workspaceTarget(specifier);
  if (target === undefined) return next(specifier, context);
  return { url: pathToFileURL(target).href, shortCircuit: true };
}
