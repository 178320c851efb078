// The resolution hook scripts/_workspace_node.mjs registers (it runs on Node's hooks thread).
import { pathToFileURL } from "node:url";
import { importedFromCheckout, workspaceTarget } from "./_workspace.mjs";

/**
 * Node's `resolve` hook: a workspace package's name, imported by a file of this checkout, to its
 * source file; the rest unchanged. Code outside the checkout (an application staged in a temp
 * directory with the built package in its node_modules, as the tests stage one) resolves the
 * name as installed, even when it inherits this hook through NODE_OPTIONS.
 */
export async function resolve(specifier, context, next) {
  const target = importedFromCheckout(context.parentURL) ? workspaceTarget(specifier) : undefined;
  if (target === undefined) return next(specifier, context);
  return { url: pathToFileURL(target).href, shortCircuit: true };
}
