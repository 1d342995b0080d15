/**
 * `-H, --header <Header:Value>` of the commands that address a running server (infer, perf,
 * warmup, compare, tune), as perf_analyzer's -H: added to every request, an HTTP header or gRPC
 * metadata. One flag text, one check, one wording.
 */
import { UsageError } from '../errors.js';
import { checkGrpcHeaders, parseRequestHeader, type RequestHeaders } from '../core/kserve/client/request-headers.js';
import type { RemoteProtocol } from './protocol-option.js';

export const HEADER_FLAG = '-H, --header <Header:Value>';
export const HEADER_HELP = 'add this header to every request to the server, as perf_analyzer\'s -H: an HTTP header, or gRPC metadata (repeatable)';

/** Commander's collector for the repeatable flag. */
export function collectHeader(value: string, previous: string[] = []): string[] {
  return [...previous, value];
}

/**
 * The headers given, checked for the protocol they travel over; a usage error without a server
 * (`addServer`: the flag that names one, as the error suggests it).
 */
export function parseHeaders(given: readonly string[] | undefined, server: string | undefined, protocol: RemoteProtocol, addServer = '-u host:port'): RequestHeaders | undefined {
  if (!given || given.length === 0) return undefined;
  if (server === undefined) throw new UsageError(`-H/--header is sent to a server: add ${addServer}`);
  const headers = given.map((h) => parseRequestHeader('-H', h));
  if (protocol === 'grpc') checkGrpcHeaders('-H', headers);
  return headers;
}
