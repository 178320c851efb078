/**
 * Kubernetes name syntax: DNS labels (RFC 1123, at most 63 characters) and DNS subdomains
 * (dot-separated labels, at most 253 characters), lowercase letters, digits and `-`.
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
