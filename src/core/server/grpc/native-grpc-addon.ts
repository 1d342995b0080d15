/** The native gRPC front end part of the addon, typed (see native/src/grpc/). */
import type { PublishedVersion } from '../http/publish-models.js';
import { nativeModule } from '../../executor/native.js';
import type { NativeFailureCount } from '../http/native-http-addon.js';
import type { TakenRequestSource } from '../native-request-log.js';
import type { NativeRequestTrace } from '../../executor/types.js';

export interface NativeGrpcServerOptions {
  host: string;
  port: number;
  /** The largest request message; more is RESOURCE_EXHAUSTED. */
  maxMessageBytes: number;
  /** Request bytes held by all calls together; past it a call is UNAVAILABLE with busyMessage. */
  maxInflightBytes?: number;
  maxConnections?: number;
  maxConcurrentStreams?: number;
  /** At close, calls are still taken this long before the GOAWAY. */
  drainGraceMs?: number;
  busyMessage: string;
  /** Response bytes a connection may hold unread; past it a call ends RESOURCE_EXHAUSTED with unsentMessage. */
  maxUnsentBytes?: number;
  unsentMessage: string;
  /** Streaming calls are handed to JS when they open (request null), for restriction checks. */
  announceStreams?: boolean;
  /** false: every call goes to the JS handler (nothing is published). */
  nativeInfer?: boolean;
  /** After each call and answer the loop polls this long (µs) before it sleeps; 0 or left out: never. */
  busyPollUs?: number;
  /** 0 none, 1 low, 2 medium, 3 high: infer responses compressed in what the client accepts (message_compression.h). */
  responseCompression?: number;
  /** Keepalive (native/src/grpc/keepalive.h); each left out takes gRPC core's default. */
  keepaliveTimeMs?: number;
  keepaliveTimeoutMs?: number;
  keepalivePermitWithoutCalls?: boolean;
  maxPingsWithoutData?: number;
  minRecvPingIntervalWithoutDataMs?: number;
  maxPingStrikes?: number;
}

/**
 * One call for JS: connection and stream identify it in answer(); metadata is [name, value, ...]
 * of its custom headers (names lower-case). `cancelled` is 0, or the gRPC code (CANCELLED,
 * DEADLINE_EXCEEDED) with which a call JS was handed went away before JS answered it (then path
 * is empty and request null): JS drops what it still queues for it. `received`, while tracing: when
 * the call began waiting for this message and when it was read (steady-clock ns).
 */
export type NativeGrpcHandler = (connection: number, stream: number, path: string, request: Buffer | null, metadata: string[], cancelled: number,
  received?: [bigint, bigint]) => void;

export interface NativeGrpcServer extends TakenRequestSource {
  listen(): number;
  close(timeoutMs: number): Promise<void>;
  /**
   * Answers a call: `final` ends it with `code`/`message` (after `bytes`, the last response message,
   * if any); otherwise `bytes` is one more message of a streaming call, the answer to one request
   * message, or with `more` one of several answers to it (a decoupled model's responses but the last).
   */
  /** `trace`: the trace of the request JS answers (the trace extension), whose send the server times. */
  answer(connection: number, stream: number, final: boolean, code: number, message: string, bytes: Uint8Array | null, more?: boolean,
    trace?: NativeRequestTrace): void;
  counters(): { connections: number; refused: number; inflightBytes: number };
  publish(model: string, versions: PublishedVersion[], defaultVersion: string): void;
  takeFailures(): NativeFailureCount[];
}

interface NativeGrpcModule {
  NativeGrpcServer: new (options: NativeGrpcServerOptions, handler: NativeGrpcHandler) => NativeGrpcServer;
}

export function createNativeGrpcServer(options: NativeGrpcServerOptions, handler: NativeGrpcHandler): NativeGrpcServer {
  const grpc = nativeModule<NativeGrpcModule>('grpc', 'the gRPC front end');
  return new grpc.NativeGrpcServer(options, handler);
}
