/**
 * Which client certificate authenticated a request: the HTTPS serve adapters
 * (`src/adapters/`) record it, the request pipeline reads it (the user name is the
 * certificate subject's CN, as the API server's x509 authenticator takes it). No runtime APIs.
 * @module
 */

/** Users authenticated by a client certificate, per request handed to the handler. */
const clientCertUsers = new WeakMap<Request, string>();

/** Records that `request` came over a connection authenticated as `user` (adapters only). */
export function setClientCertUser(request: Request, user: string): void {
  clientCertUsers.set(request, user);
}

/**
 * The user a verified client certificate authenticated `request` as (its CN), when an HTTPS
 * adapter with `tls.clientCa` served it; undefined otherwise.
 */
export function clientCertUser(request: Request): string | undefined {
  return clientCertUsers.get(request);
}
