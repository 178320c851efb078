// `node --import ./scripts/_workspace_node.mjs`: resolves the workspace's packages to this
// checkout's sources (scripts/_workspace.mjs) with a module resolution hook.
import { register } from "node:module";

register("./_workspace_hooks.mjs", import.meta.url);
