/**
 * Checking a proxy URL (a kubeconfig `proxy-url`, or one taken from `HTTPS_PROXY`/`HTTP_PROXY`)
 * before anything connects through it (internal, portable). Messages never show the user name
 * or password, whatever characters they hold.
 * @module
 */
import { redactUrl } from "../client/http.ts";
import { describeValue } from "../util/values.ts";

/** Proxy URL schemes every loader accepts (client-go's list: http, https, socks5). */
export const PROXY_PROTOCOLS: readonly string[] = ["http:", "https:", "socks5:", "socks5h:"];

/**
 * Parses a proxy URL; throws a TypeError naming `what` (e.g. `proxy-url`) when it is not an
 * `http:`, `https:`, `socks5:` or `socks5h:` URL with a host. A URL whose path, query or
 * fragment holds an `@` is refused too: that is a user name or password with an unencoded
 * `/`, `?` or `#`, which a URL parser reads as the end of the host (and a message would show).
 * The parser's own error is not kept as `cause`: on some runtimes it quotes the input.
 */
export function parseProxyUrl(text: string, what = "proxy-url"): URL {
  let url: URL | undefined;
  try {
    url = new URL(text);
  } catch {
    url = undefined;
  }
  if (url === undefined) {
    throw new TypeError(
      `${what} ${describeValue(redactUrl(text))} is not a URL (percent-encode "@", "/", "?", ` +
        `"#" and ":" in its user name and password)`,
    );
  }
  if (!PROXY_PROTOCOLS.includes(url.protocol)) {
    throw new TypeError(
      `${what} must be an http:, https:, socks5: or socks5h: URL, got ${url.protocol}`,
    );
  }
  if (`${url.pathname}${url.search}${url.hash}`.includes("@")) {
    throw new TypeError(
      `${what} has an "@" after its host: percent-encode "/", "?" and "#" in its user name ` +
        "and password",
    );
  }
  if (url.hostname === "") throw new TypeError(`${what} has no host`);
  return url;
}
