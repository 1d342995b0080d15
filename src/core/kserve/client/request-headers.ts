/**
 * Headers the user adds to every request a client sends (perf_analyzer's `-H "Header:Value"`):
 * HTTP headers over HTTP, metadata over gRPC. For a server behind a proxy that wants a token, or
 * one that restricts APIs to clients with a header (Triton's and gebe's --http-restricted-api and
 * --grpc-restricted-protocol). Checked once, when the flag is read: a name the protocol cannot
 * carry, or a value that would end the header early, is refused then, naming the flag.
 */
import * as grpc from '@grpc/grpc-js';
import { UsageError } from '../../../errors.js';
import { isHttpHeaderName } from '../header-name.js';

export type RequestHeaders = ReadonlyArray<readonly [name: string, value: string]>;

// A value without CR, LF or NUL: RFC 9110's field-value allows tabs and visible characters (and
// obs-text bytes, which Node refuses, so not here).
const HTTP_VALUE = /^[\t\x20-\x7e]*$/;
// gRPC metadata keys: lower-case letters, digits, '-', '_', '.'; '-bin' keys carry binary values
// (base64 on the wire), which a command-line string is not. grpc: is gRPC's own prefix.
const GRPC_KEY = /^[0-9a-z_.-]+$/;
// Headers the clients write themselves (framing, the body's type, the connection): one the user
// added as well would make a request that says two things (two Content-Lengths, a second Host).
const CLIENT_OWNED = new Set(['host', 'content-length', 'transfer-encoding', 'content-type', 'connection', 'keep-alive', 'upgrade', 'te',
  'inference-header-content-length']);

/** One `-H Header:Value` as given: split at its first ':', name and value trimmed. */
export function parseRequestHeader(flag: string, given: string): readonly [string, string] {
  const at = given.indexOf(':');
  const name = at < 0 ? '' : given.slice(0, at).trim();
  const value = at < 0 ? '' : given.slice(at + 1).trim();
  if (at < 0 || name === '') throw new UsageError(`${flag} "${given}": expected Header:Value`, `for example ${flag} "Authorization: Bearer <token>"`);
  if (!isHttpHeaderName(name)) throw new UsageError(`${flag} "${given}": "${name}" is not a header name (letters, digits and !#$%&'*+.^_\`|~- only)`);
  if (CLIENT_OWNED.has(name.toLowerCase())) throw new UsageError(`${flag} "${given}": gebe writes ${name} itself; it cannot be set`);
  if (!HTTP_VALUE.test(value)) throw new UsageError(`${flag} "${given}": the value may hold printable ASCII characters and tabs only`);
  return [name, value];
}

/** The headers for a gRPC target: each name must make a metadata key (it is sent lower-cased). */
export function checkGrpcHeaders(flag: string, headers: RequestHeaders): void {
  for (const [name] of headers) {
    const key = name.toLowerCase();
    if (!GRPC_KEY.test(key) || key.endsWith('-bin') || key.startsWith('grpc-')) {
      throw new UsageError(`${flag} "${name}": not a gRPC metadata key gebe can send (lower-case letters, digits, '-', '_' and '.'; not grpc-* or *-bin)`);
    }
  }
}

/** grpc-js client options that add `headers` to every call's metadata (none: no options). */
export function grpcHeaderOptions(headers: RequestHeaders | undefined): grpc.ClientOptions {
  if (!headers || headers.length === 0) return {};
  const interceptor: grpc.Interceptor = (options, nextCall) => new grpc.InterceptingCall(nextCall(options), {
    start(metadata, listener, next) {
      for (const [name, value] of headers) metadata.add(name.toLowerCase(), value);
      next(metadata, listener);
    },
  });
  return { interceptors: [interceptor] };
}

/** `headers` as an object for node:http (a repeated name joins its values, as HTTP allows). */
export function httpHeaderObject(headers: RequestHeaders | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of headers ?? []) {
    const key = name.toLowerCase();
    out[key] = out[key] === undefined ? value : `${out[key]}, ${value}`;
  }
  return out;
}

/** `headers` as the lines of a serialised HTTP/1.1 request head ("Name: value\r\n" each). */
export function httpHeaderLines(headers: RequestHeaders | undefined): string {
  return (headers ?? []).map(([name, value]) => `${name}: ${value}\r\n`).join('');
}
