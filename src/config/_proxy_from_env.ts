/**
 * Which proxy the environment gives a server URL, by the rules of Go's
 * `golang.org/x/net/http/httpproxy` (what kubectl and client-go follow), as a pure function of
 * the URL and the environment (internal, portable; the loaders pass `ConfigHost.env`):
 *
 * - `HTTPS_PROXY` for `https:` URLs, `HTTP_PROXY` for `http:` ones; the upper-case name wins
 *   over the lower-case one unless it is empty. Neither falls back to the other.
 * - A value without a scheme (`proxy.corp:3128`) means `http://`; a value that does not parse
 *   even so is ignored (Go ignores it too: the request goes direct).
 * - `NO_PROXY` (or `no_proxy`): a comma list of host names (`example.com` matches itself and
 *   its subdomains, `.example.com` and `*.example.com` only subdomains), IP addresses, CIDRs
 *   (`10.0.0.0/8`, `fd00::/8`), each optionally with a `:port` (`[::1]:6443` for IPv6), or
 *   `*` for everything. Matching ignores case; names are compared in their ASCII (punycode)
 *   form.
 * - `localhost` and loopback addresses (`127.0.0.0/8`, `::1`) are never proxied.
 * - With `REQUEST_METHOD` set (a CGI process), `HTTP_PROXY` is refused for `http:` URLs: a
 *   client could set it through the `Proxy` request header (golang.org/s/cgihttpproxy).
 * @module
 */
import { ClusterConfigError } from "./errors.ts";

/** Reads one environment variable (`undefined` when unset). */
export type EnvReader = (name: string) => string | undefined;

/** The proxy the environment gives a URL, and the variable it came from. */
export interface EnvProxy {
  /** The proxy URL as parsed (a scheme added when the value had none). */
  url: URL;
  /** The variable it came from, e.g. `HTTPS_PROXY` or `https_proxy`. */
  variable: string;
}

/**
 * The proxy `target` goes through according to `env`, or `undefined` for a direct connection.
 * Throws a {@linkcode ClusterConfigError} (`UnsupportedTls`) in the CGI case (see the module
 * documentation). The proxy's scheme is not checked here (the loader does).
 */
export function proxyFromEnv(target: URL, env: EnvReader): EnvProxy | undefined {
  const isHttps = target.protocol === "https:";
  if (!isHttps && target.protocol !== "http:") return undefined;
  const found = firstSet(
    env,
    isHttps ? ["HTTPS_PROXY", "https_proxy"] : ["HTTP_PROXY", "http_proxy"],
  );
  if (found === undefined) return undefined;
  const url = parseEnvProxy(found.value);
  if (url === undefined) return undefined;
  if (!isHttps && (env("REQUEST_METHOD") ?? "") !== "") {
    throw new ClusterConfigError(
      `refusing to use ${found.name} in a CGI environment (REQUEST_METHOD is set): a client ` +
        "may have set it; see golang.org/s/cgihttpproxy",
      { code: "UnsupportedTls", subject: found.name },
    );
  }
  const host = target.hostname.startsWith("[") ? target.hostname.slice(1, -1) : target.hostname;
  const port = target.port !== "" ? target.port : isHttps ? "443" : "80";
  const noProxy = firstSet(env, ["NO_PROXY", "no_proxy"])?.value ?? "";
  return useProxy(host.toLowerCase(), port, parseNoProxy(noProxy))
    ? { url, variable: found.name }
    : undefined;
}

/** The first of `names` set to a non-empty value (Go's `getEnvAny`). */
function firstSet(env: EnvReader, names: string[]): { name: string; value: string } | undefined {
  for (const name of names) {
    const value = env(name);
    if (value !== undefined && value !== "") return { name, value };
  }
  return undefined;
}

/** A proxy variable's value as a URL: `http://` is assumed when it has no scheme and host. */
function parseEnvProxy(value: string): URL | undefined {
  const url = tryUrl(value);
  if (url === undefined || url.host === "") return tryUrl(`http://${value}`) ?? url;
  return url;
}

function tryUrl(text: string): URL | undefined {
  try {
    return new URL(text);
  } catch {
    return undefined;
  }
}

// ------------------------------------------------------------------------------------------
// NO_PROXY

/** An IP address as 16 bytes; `v4` for IPv4 (and IPv4-mapped IPv6) addresses. */
interface Ip {
  bytes: Uint8Array;
  v4: boolean;
}

type Matcher =
  | { kind: "all" }
  | { kind: "cidr"; network: Ip; bits: number }
  | { kind: "ip"; ip: Ip; port: string }
  | { kind: "domain"; suffix: string; port: string; matchHost: boolean };

/** Parses a `NO_PROXY` value as Go does: best effort, malformed entries ignored. */
function parseNoProxy(value: string): Matcher[] {
  const matchers: Matcher[] = [];
  for (const raw of value.split(",")) {
    const entry = raw.trim().toLowerCase();
    if (entry === "") continue;
    if (entry === "*") return [{ kind: "all" }];
    const cidr = parseCidr(entry);
    if (cidr !== undefined) {
      matchers.push(cidr);
      continue;
    }
    const split = splitHostPort(entry);
    const host = split?.host ?? entry;
    const port = split?.port ?? "";
    if (split !== undefined && host === "") continue;
    const ip = parseIp(host);
    if (ip !== undefined) {
      matchers.push({ kind: "ip", ip, port });
      continue;
    }
    if (host === "") continue;
    let name = host.startsWith("*.") ? host.slice(1) : host;
    const matchHost = !name.startsWith(".");
    if (matchHost) name = `.${name}`;
    matchers.push({ kind: "domain", suffix: asciiName(name), port, matchHost });
  }
  return matchers;
}

/** Whether a request to `host:port` (host lower-case, no brackets) goes through the proxy. */
function useProxy(host: string, port: string, matchers: Matcher[]): boolean {
  if (host === "localhost") return false;
  const ip = parseIp(host);
  if (ip !== undefined && isLoopback(ip)) return false;
  for (const m of matchers) {
    switch (m.kind) {
      case "all":
        return false;
      case "cidr":
        if (ip !== undefined && inCidr(ip, m.network, m.bits)) return false;
        break;
      case "ip":
        if (ip !== undefined && sameIp(ip, m.ip) && (m.port === "" || m.port === port)) {
          return false;
        }
        break;
      case "domain":
        if (
          ip === undefined &&
          (host.endsWith(m.suffix) || (m.matchHost && host === m.suffix.slice(1))) &&
          (m.port === "" || m.port === port)
        ) return false;
        break;
    }
  }
  return true;
}

/** A host name in its ASCII form (punycode), as URLs hold it; unchanged when it has no form. */
function asciiName(dotted: string): string {
  if (!/[^\x20-\x7e]/.test(dotted)) return dotted;
  const url = tryUrl(`http://x${dotted}`);
  return url === undefined ? dotted : url.hostname.slice(1);
}

/** Go's `net.SplitHostPort`: `host:port` or `[v6]:port`; undefined when there is no port. */
function splitHostPort(text: string): { host: string; port: string } | undefined {
  if (text.startsWith("[")) {
    const end = text.indexOf("]");
    if (end < 0 || text[end + 1] !== ":") return undefined;
    const port = text.slice(end + 2);
    return /[[\]]/.test(port) ? undefined : { host: text.slice(1, end), port };
  }
  const colon = text.lastIndexOf(":");
  if (colon < 0) return undefined;
  const host = text.slice(0, colon);
  const port = text.slice(colon + 1);
  if (host.includes(":") || /[[\]]/.test(host + port)) return undefined;
  return { host, port };
}

function parseCidr(text: string): Matcher | undefined {
  const slash = text.indexOf("/");
  if (slash < 0) return undefined;
  const addressText = text.slice(0, slash);
  const ip = parseIp(addressText);
  const lengthText = text.slice(slash + 1);
  if (ip === undefined || !/^\d{1,3}$/.test(lengthText)) return undefined;
  const written = Number(lengthText);
  const v4Text = !addressText.includes(":");
  if (written > (v4Text ? 32 : 128)) return undefined;
  return { kind: "cidr", network: ip, bits: v4Text ? written + 96 : written };
}

function inCidr(ip: Ip, network: Ip, bits: number): boolean {
  if (ip.v4 !== network.v4) return false;
  for (let i = 0; i < 16 && bits > 0; i++, bits -= 8) {
    const mask = bits >= 8 ? 0xff : (0xff << (8 - bits)) & 0xff;
    if ((ip.bytes[i]! & mask) !== (network.bytes[i]! & mask)) return false;
  }
  return true;
}

function sameIp(a: Ip, b: Ip): boolean {
  return a.bytes.every((byte, i) => byte === b.bytes[i]);
}

function isLoopback(ip: Ip): boolean {
  if (ip.v4) return ip.bytes[12] === 127;
  return ip.bytes.every((byte, i) => byte === (i === 15 ? 1 : 0));
}

/** An IPv4 (dotted decimal, no leading zeros) or IPv6 address, as Go's `net.ParseIP`. */
function parseIp(text: string): Ip | undefined {
  const bytes = new Uint8Array(16);
  if (!text.includes(":")) {
    const v4 = parseIpv4(text);
    if (v4 === undefined) return undefined;
    bytes[10] = bytes[11] = 0xff;
    bytes.set(v4, 12);
    return { bytes, v4: true };
  }
  const groups: number[] = [];
  let gap = -1;
  let rest = text;
  if (rest.startsWith("::")) {
    gap = 0;
    rest = rest.slice(2);
  }
  while (rest !== "") {
    if (groups.length === 8) return undefined;
    const colon = rest.indexOf(":");
    const part = colon < 0 ? rest : rest.slice(0, colon);
    if (part.includes(".")) {
      // An embedded IPv4 address ends the text and counts as two groups.
      const v4 = colon < 0 && groups.length <= 6 ? parseIpv4(part) : undefined;
      if (v4 === undefined) return undefined;
      groups.push((v4[0]! << 8) | v4[1]!, (v4[2]! << 8) | v4[3]!);
      break;
    }
    if (!/^[0-9a-f]{1,4}$/i.test(part)) return undefined;
    groups.push(parseInt(part, 16));
    if (colon < 0) break;
    rest = rest.slice(colon + 1);
    if (rest.startsWith(":")) {
      if (gap >= 0) return undefined;
      gap = groups.length;
      rest = rest.slice(1);
    } else if (rest === "") return undefined;
  }
  if (gap < 0 ? groups.length !== 8 : groups.length > 7) return undefined;
  const full = gap < 0 ? groups : [
    ...groups.slice(0, gap),
    ...new Array<number>(8 - groups.length).fill(0),
    ...groups.slice(gap),
  ];
  full.forEach((group, i) => {
    bytes[2 * i] = group >> 8;
    bytes[2 * i + 1] = group & 0xff;
  });
  const mapped = bytes.subarray(0, 10).every((b) => b === 0) && bytes[10] === 0xff &&
    bytes[11] === 0xff;
  return { bytes, v4: mapped };
}

function parseIpv4(text: string): number[] | undefined {
  const parts = text.split(".");
  if (parts.length !== 4) return undefined;
  const out: number[] = [];
  for (const part of parts) {
    if (!/^(0|[1-9]\d{0,2})$/.test(part) || Number(part) > 255) return undefined;
    out.push(Number(part));
  }
  return out;
}
