/**
 * Bearer-token authentication of the simulated cluster (the `token` option).
 * @module
 */
import { statusResponse, unauthorized } from "../core/status.ts";

/**
 * The 401 Unauthorized answer for a request without `Authorization: Bearer <token>`, or
 * undefined when it may pass (or when the cluster has no token).
 */
export function rejectUnauthenticated(
  request: Request,
  token: string | undefined,
): Response | undefined {
  if (token === undefined) return undefined;
  const auth = request.headers.get("authorization");
  return auth === `Bearer ${token}` ? undefined : statusResponse(unauthorized());
}
