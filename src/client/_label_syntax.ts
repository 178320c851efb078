/**
 * The syntax of label keys and values (qualified names of at most 63 characters, optional DNS
 * subdomain prefix), shared by the selector parser and the simulated cluster. Internal.
 * @module
 */
import { isDnsSubdomain } from "../util/dns_names.ts";
import { describeValue } from "../util/values.ts";

const NAME_RE = /^[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?$/;

/** Why `key` is not a valid qualified label key, or `undefined` when it is. */
export function labelKeyProblem(key: string): string | undefined {
  if (key === "") return "a label key must not be empty";
  const slash = key.indexOf("/");
  let name = key;
  if (slash >= 0) {
    const prefix = key.slice(0, slash);
    name = key.slice(slash + 1);
    if (prefix === "") return `prefix part of label key ${describeValue(key)} must not be empty`;
    if (!isDnsSubdomain(prefix)) {
      return `prefix part of label key ${
        describeValue(key)
      } must be a lowercase DNS subdomain of at most 253 characters`;
    }
  }
  if (name === "") return `name part of label key ${describeValue(key)} must not be empty`;
  if (name.length > 63) {
    return `name part of label key ${describeValue(key)} must be no more than 63 characters`;
  }
  if (!NAME_RE.test(name)) {
    return `name part of label key ${
      describeValue(key)
    } must consist of alphanumerics, '-', '_' or '.', and start and end with an alphanumeric`;
  }
  return undefined;
}

/** Why `value` is not a valid label value, or `undefined` when it is. */
export function labelValueProblem(value: string): string | undefined {
  if (value === "") return undefined;
  if (value.length > 63) {
    return `label value ${describeValue(value)} must be no more than 63 characters`;
  }
  if (!NAME_RE.test(value)) {
    return `label value ${
      describeValue(value)
    } must be empty or consist of alphanumerics, '-', '_' or '.', and start and end with an alphanumeric`;
  }
  return undefined;
}
