/**
 * For the Deno and Bun loaders (internal): requests that repeat a header name (impersonated
 * groups, extra values) go through the Node transport, which sends one line per value; their
 * own `fetch` joins the values into one line, which kube-apiserver reads as one value.
 * @module
 */
import { hasRepeatedHeaderLines } from "../../config/_header_lines.ts";
import type { HostFetch, TransportConfig } from "../../config/config_loader_options.ts";
import { createNodeFetch } from "./fetch.ts";

/**
 * `native`, except that a request carrying repeated header lines goes through a
 * `createNodeFetch(transport)` made on first need; `close()` closes both.
 */
export function withRepeatedHeaderLines(native: HostFetch, transport: TransportConfig): HostFetch {
  let node: HostFetch | undefined;
  let closed = false;
  return {
    fetch: (request) => {
      if (closed || !hasRepeatedHeaderLines(request)) return native.fetch(request);
      node ??= createNodeFetch(transport);
      return node.fetch(request);
    },
    close: () => {
      if (closed) return;
      closed = true;
      native.close();
      node?.close();
    },
  };
}
