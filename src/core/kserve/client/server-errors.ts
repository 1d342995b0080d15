/**
 * What a KServe v2 server's refusals mean, worded once for HTTP and gRPC alike: `infer`, `perf` and
 * `warmup` show the same message for the same condition whichever protocol carried it. gRPC codes
 * are read as the HTTP statuses Triton pairs them with, so one table decides both.
 */
import { status as GrpcStatus } from '@grpc/grpc-js';
import { GebeError } from '../../../errors.js';
import { parseJsonAllowingNonFinite } from '../../json/nan-json.js';
import { GRPC_BY_HTTP, type HttpStatus } from '../protocol-error.js';

const HTTP_BY_GRPC = new Map<GrpcStatus, HttpStatus>(
  (Object.entries(GRPC_BY_HTTP) as Array<[string, GrpcStatus]>).map(([http, code]) => [code, Number(http) as HttpStatus]),
);

/** A server's answer: an HTTP status, or a gRPC code (shown by name, judged as its HTTP pair). */
export type ServerStatus = { http: number } | { grpc: GrpcStatus };

function httpEquivalent(s: ServerStatus): number {
  return 'http' in s ? s.http : HTTP_BY_GRPC.get(s.grpc) ?? 500;
}

function statusLabel(s: ServerStatus): string {
  return 'http' in s ? `HTTP ${s.http}` : `gRPC ${GrpcStatus[s.grpc] ?? s.grpc}`;
}

/**
 * The message of a server's error answer: KServe v2's `{"error": "..."}` (as text or parsed), or,
 * from something that is not a KServe server, the start of what it sent.
 */
export function errorText(body: unknown): string {
  let value = body;
  if (typeof body === 'string') {
    try {
      value = parseJsonAllowingNonFinite(body);
    } catch {
      return body.slice(0, 200);
    }
  }
  if (value && typeof value === 'object' && 'error' in value) return String((value as { error: unknown }).error);
  return typeof body === 'string' ? body.slice(0, 200) : JSON.stringify(value);
}

/** Nothing answered at `where`: no server, a wrong port, or the wrong protocol. */
export function unreachable(where: string, why: string, protocol: 'http' | 'grpc' = 'http'): GebeError {
  if (isTlsFailure(why)) return tlsRefused(where, why, protocol);
  return protocol === 'http'
    ? new GebeError(`cannot reach a KServe v2 server at ${where} (${why}); start one with \`gebe serve <repo>\` or pass the right -u host:port`)
    : new GebeError(`cannot reach a KServe v2 gRPC server at ${where} (${why}); start one with \`gebe serve <repo>\` or pass the right -u host:port with -i grpc`);
}

/**
 * Whether an error code or text is a failed TLS certificate check or handshake, as OpenSSL and
 * Node name them (UNABLE_TO_VERIFY_LEAF_SIGNATURE, DEPTH_ZERO_SELF_SIGNED_CERT,
 * ERR_TLS_CERT_ALTNAME_INVALID, EPROTO for a port that does not speak TLS; gRPC's details in words).
 */
export function isTlsFailure(why: string): boolean {
  return /CERT|SSL|TLS|VERIFY|ISSUER|EPROTO|self[- ]signed|certificate|handshake|wrong version number/i.test(why);
}

/** The TLS handshake failed: the certificate was not trusted, or the port does not speak TLS. */
function tlsRefused(where: string, why: string, protocol: 'http' | 'grpc'): GebeError {
  const flags = protocol === 'http'
    ? '--ssl-https-ca-certificates-file <ca.pem> to trust its CA (or --ssl-https-verify-peer 0 to skip the check)'
    : '--ssl-grpc-root-certifications-file <ca.pem> to trust its CA';
  return new GebeError(`the TLS handshake with ${where} failed (${why})`, { hint: `pass ${flags}; or is the port not a TLS one?` });
}

/**
 * The server refused to describe the model: not there (404), not ready (503), or something else.
 * `known` lists the models the server has, when it said.
 */
export function modelRefused(what: string, where: string, status: ServerStatus, detail: string, known: string[] = []): GebeError {
  const code = httpEquivalent(status);
  if (code === 404 || code === 400) {
    const has = known.length > 0 ? `; the server has ${[...new Set(known)].map((n) => `"${n}"`).join(', ')}` : '';
    return new GebeError(`${what} is not on the server at ${where} (${detail})${has}; check -m/--model-version`);
  }
  if (code === 503) {
    return new GebeError(`${what} is not ready on ${where} (${detail}); fix what the server reports, or wait for the model to load`);
  }
  return new GebeError(`the server at ${where} answered ${statusLabel(status)} when asked about ${what}: ${detail}`);
}

/** The server answered an inference request with an error. */
export function inferenceRefused(where: string, status: ServerStatus, detail: string): GebeError {
  const ready = httpEquivalent(status) === 503 ? '; the model may be loading, unloaded or overloaded: check `/v2/models/<name>/ready` and the server log' : '';
  return new GebeError(`the server at ${where} answered ${statusLabel(status)} to an inference request: ${detail}${ready}`);
}

/** An error a server sent in band on a ModelStreamInfer stream (the call itself goes on). */
export function streamedRefusal(where: string, detail: string): GebeError {
  return new GebeError(`the server at ${where} answered an inference request on its ModelStreamInfer stream with an error: ${detail}`);
}

/** The server would not register a system shared-memory region (perf's --shared-memory system). */
export function sharedMemoryRefused(where: string, region: string, detail: string): GebeError {
  return new GebeError(`the server at ${where} refused to register shared memory region '${region}': ${detail}`, {
    hint: 'system shared memory needs the server on this host, with the shared-memory extension; leave --shared-memory out to send tensors in the requests',
  });
}

/** The server would not take trace settings (perf's --trace-level, --trace-rate, ...). */
export function traceSettingsRefused(where: string, detail: string): GebeError {
  return new GebeError(`the server at ${where} refused the trace settings: ${detail}`, {
    hint: 'the server must trace (Triton\'s trace extension; gebe serve needs --trace-config triton,file=<path> to write traces); leave the --trace-* options out to measure without tracing',
  });
}
