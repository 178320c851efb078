/**
 * CORS of the simulated cluster, so browser code (a page or a Web Worker on another origin)
 * can call it: the answer to preflight (`OPTIONS`) requests.
 * @module
 */
import { COMMON_HEADERS } from "./_status.ts";

/** The 204 answer to a CORS preflight request. */
export function preflight(request: Request): Response {
  const asked = request.headers.get("access-control-request-headers");
  return new Response(null, {
    status: 204,
    headers: {
      ...COMMON_HEADERS,
      "Access-Control-Allow-Methods": "GET, POST, PUT, PATCH, DELETE, OPTIONS",
      "Access-Control-Allow-Headers": asked ?? "Authorization, Content-Type, Accept",
      "Access-Control-Max-Age": "600",
    },
  });
}
