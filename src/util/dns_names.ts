/**
 * Kubernetes name syntax: DNS labels (RFC 1123, at most 63 characters) and DNS subdomains
 * (dot-separated labels, at most 253 characters), lowercase letters, digits and `-`; and the
 * looser rule every name that becomes a URL path segment must pass.
 * @module
 */

const LABEL_RE = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
const SUBDOMAIN_RE = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;

/** Whether `name` is a DNS label of at most `max` (default 63) characters. */
export function isDnsLabel(name: string, max = 63): boolean {
  return name.length <= max && LABEL_RE.test(name);
}

/** Whether `name` is a DNS subdomain of at most 253 characters. */
export function isDnsSubdomain(name: string): boolean {
  return name.length <= 253 && SUBDOMAIN_RE.test(name);
}

/**
 * Whether `name` can be one segment of a request path, as kube-apiserver and client-go require
 * of every object name (`IsValidPathSegmentName`): not `.` or `..`, no `/` or `%`.
 */
export function isPathSegmentName(name: string): boolean {
  return name !== "." && name !== ".." && !name.includes("/") && !name.includes("%");
}
