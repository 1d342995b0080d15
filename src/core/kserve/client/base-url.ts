/** How gebe reads a server address given for HTTP (-u, --url). */

/** `host:port`, `http://host:port` or a URL with a path prefix → base URL without trailing slash. */
export function normalizeBaseUrl(url: string): string {
  const withScheme = /^[a-z]+:\/\//i.test(url) ? url : `http://${url}`;
  return withScheme.replace(/\/+$/, '');
}
