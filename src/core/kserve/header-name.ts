/** RFC 9110's field name: one or more token characters (letters, digits and !#$%&'*+.^_`|~-). */
export function isHttpHeaderName(name: string): boolean {
  return /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/.test(name);
}
