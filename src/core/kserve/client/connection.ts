/**
 * How a client reaches a server beyond its address: the user's headers (-H) and TLS (an https://
 * URL, or perf_analyzer's --ssl-grpc-use-ssl), with perf_analyzer's certificate options. Every
 * client of core/kserve/client takes one, control plane and data plane alike, so a command that
 * reaches a server reaches it the same way for every request.
 */
import * as grpc from '@grpc/grpc-js';
import tls from 'node:tls';
import { grpcHeaderOptions, type RequestHeaders } from './request-headers.js';

export interface ClientTls {
  /** PEM: the certificate authorities to trust (default: Node's bundled roots). */
  ca?: string;
  /** PEM: a client certificate (chain) and its key, for servers that want one (mutual TLS). */
  cert?: string;
  key?: string;
  /** HTTPS: check the server's certificate (perf_analyzer's --ssl-https-verify-peer 1) and its name (--ssl-https-verify-host 2). */
  verifyPeer: boolean;
  verifyHost: boolean;
}

export interface RemoteConnection {
  headers?: RequestHeaders;
  /** gRPC: requests compressed with this algorithm (perf_analyzer's --grpc-compression-algorithm). */
  grpcCompression?: 'gzip' | 'deflate';
  /** gRPC: TLS on when present. HTTP: the URL's scheme decides (https://); these are its settings. */
  tls?: ClientTls;
}

/** Whether an HTTP base URL (normalizeBaseUrl's) is https. */
export function isHttps(baseUrl: string): boolean {
  return /^https:\/\//i.test(baseUrl);
}

/** node:tls / node:https options for `connection`'s TLS (Node's defaults without one). */
export function tlsOptions(connection: RemoteConnection | undefined): tls.ConnectionOptions {
  const t = connection?.tls;
  if (!t) return {};
  return {
    ...(t.ca !== undefined ? { ca: t.ca } : {}),
    ...(t.cert !== undefined ? { cert: t.cert } : {}),
    ...(t.key !== undefined ? { key: t.key } : {}),
    rejectUnauthorized: t.verifyPeer,
    ...(t.verifyHost ? {} : { checkServerIdentity: () => undefined }),
  };
}

/** A grpc-js client for `address` as `connection` says: TLS or not, the user's headers as metadata. */
export function grpcClient(address: string, connection: RemoteConnection | undefined): grpc.Client {
  const t = connection?.tls;
  const credentials = t
    ? grpc.credentials.createSsl(t.ca !== undefined ? Buffer.from(t.ca) : null, t.key !== undefined ? Buffer.from(t.key) : null, t.cert !== undefined ? Buffer.from(t.cert) : null)
    : grpc.credentials.createInsecure();
  // grpc-js's algorithm numbers: 1 deflate, 2 gzip.
  const compression = connection?.grpcCompression ? { 'grpc.default_compression_algorithm': connection.grpcCompression === 'gzip' ? 2 : 1 } : {};
  return new grpc.Client(address, credentials, { ...grpcHeaderOptions(connection?.headers), ...compression });
}
