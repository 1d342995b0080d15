/**
 * The gRPC front end on the gRPC port. By default the addon's native server (native/src/grpc/:
 * HTTP/2 from the nghttp2 Node.js exports, on a libuv loop of its own) owns the port: it answers
 * ModelInfer / ModelStreamInfer of published models natively and hands every other call to the
 * one JS handler (rpc-handler.ts) as (method, request bytes, metadata). With --grpc-use-ssl,
 * @grpc/grpc-js serves the port instead (the native server speaks cleartext HTTP/2 only), calling
 * the same handler with the same bytes.
 */
import net from 'node:net';
import * as grpc from '@grpc/grpc-js';
import type { PublishedVersion } from '../http/publish-models.js';
import type { NativeFailureCount } from '../http/native-http-addon.js';
import type { InferenceService } from '../inference-service.js';
import { defaultMaxInflightBodyBytes, DRAIN_IDLE_GRACE_MS, inflightBodyMessage, maxConnectionsMessage, maxUnsentAnswerBytes, passesUnsentBound, unsentAnswersMessage } from '../limits.js';
import { logNativeRequests } from '../native-request-log.js';
import type { Logger } from '../logger.js';
import type { Restrictions } from '../restricted-api.js';
import { createNativeGrpcServer, type NativeGrpcServer } from './native-grpc-addon.js';
import { createRpcHandler, INFER_PATH, STREAM_INFER_PATH, type MetadataLookup, type RpcHandler, type RpcResult } from './rpc-handler.js';
import { HeldCalls, tlsCallSignal } from './held-calls.js';
import { cancellationError } from '../../executor/cancellation.js';
import type { FrontEndArrival } from '../../executor/types.js';
import { grpcRoot } from '../../kserve/grpc-proto.js';

/**
 * gRPC keepalive, with gRPC core's server defaults (grpc/doc/keepalive.md), as Triton's
 * --grpc-keepalive-* and --grpc-http2-* flags set them. The native front end implements all six
 * (native/src/grpc/keepalive.h); grpc-js, which serves --grpc-use-ssl, only the first two.
 */
export interface GrpcKeepalive {
  /** A ping goes out this long after the last one was acknowledged (or the connection opened). */
  timeMs: number;
  /** An unacknowledged ping closes the connection after this long. */
  timeoutMs: number;
  /** Ping connections with no call open, and let clients ping them at minRecvPingIntervalWithoutDataMs. */
  permitWithoutCalls: boolean;
  /** Pings sent while no data went out; 0: no limit. */
  maxPingsWithoutData: number;
  /** While the server sends nothing, a client ping sooner than this after the last is a strike. */
  minRecvPingIntervalWithoutDataMs: number;
  /** Strikes tolerated before GOAWAY ENHANCE_YOUR_CALM "too_many_pings"; 0: any number. */
  maxPingStrikes: number;
}

export const DEFAULT_GRPC_KEEPALIVE: GrpcKeepalive = {
  timeMs: 7_200_000, timeoutMs: 20_000, permitWithoutCalls: false,
  maxPingsWithoutData: 2, minRecvPingIntervalWithoutDataMs: 300_000, maxPingStrikes: 2,
};

export interface GrpcOptions {
  host: string;
  port: number;
  /** Largest message accepted, in bytes (the same limit as the HTTP body). */
  maxMessageBytes: number;
  /** --grpc-restricted-protocol. */
  restrictions?: Restrictions;
  /** --grpc-header-forward-pattern (server/header-forwarding.ts). */
  headerForwardPattern?: RegExp;
  /** --max-connections: open gRPC connections; one more is closed at once. */
  maxConnections?: number;
  /** Request bytes held by all calls together (--http-max-inflight-body's budget, for gRPC). */
  maxInflightBytes?: number;
  /** --grpc-use-ssl: PEM server certificate and key; root certificate for --grpc-use-ssl-mutual. */
  tls?: { cert: Buffer; key: Buffer; rootCert?: Buffer; mutual: boolean };
  /** The native front end's busy poll after each call and answer, in µs (grpc-js, under TLS, has none). */
  busyPollUs?: number;
  /** Default DEFAULT_GRPC_KEEPALIVE. */
  keepalive?: GrpcKeepalive;
  /** Triton's --grpc-infer-response-compression-level (native port only; default none). */
  responseCompression?: ResponseCompressionLevel;
}

/** Triton's --grpc-infer-response-compression-level values, in the native option's order (0-3). */
export const RESPONSE_COMPRESSION_LEVELS = ['none', 'low', 'medium', 'high'] as const;
export type ResponseCompressionLevel = (typeof RESPONSE_COMPRESSION_LEVELS)[number];

/**
 * Calls one gRPC connection may run at once. Above the concurrency a load test puts on one channel
 * (gebe perf and perf_analyzer drive all of theirs over one), so it bounds clients without shaping
 * measurements; a client's transport queues calls beyond it until one finishes.
 */
export const GRPC_MAX_CONCURRENT_STREAMS = 1024;

type Publication = [versions: PublishedVersion[], defaultVersion: string];

function metadataOf(flat: string[]): MetadataLookup {
  const lookup: MetadataLookup = (key) => {
    let found: string | undefined;
    for (let i = 0; i < flat.length; i += 2) {
      if (flat[i] !== key) continue;
      if (found !== undefined) return undefined;  // repeated: refused as grpc-js's check refuses it
      found = flat[i + 1];
    }
    return found;
  };
  lookup.entries = () => Array.from({ length: flat.length >> 1 }, (_, i) => [flat[2 * i]!, flat[2 * i + 1]!]);
  return lookup;
}

function nativeKeepalive(k: GrpcKeepalive) {
  return {
    keepaliveTimeMs: k.timeMs, keepaliveTimeoutMs: k.timeoutMs, keepalivePermitWithoutCalls: k.permitWithoutCalls,
    maxPingsWithoutData: k.maxPingsWithoutData, minRecvPingIntervalWithoutDataMs: k.minRecvPingIntervalWithoutDataMs, maxPingStrikes: k.maxPingStrikes,
  };
}

export class GrpcFrontend {
  private readonly handler: RpcHandler;
  private native?: NativeGrpcServer;
  private tlsServer?: grpc.Server;
  private listener?: net.Server;
  private tlsConnections = 0;
  private tlsRefused = 0;
  private readonly published = new Map<string, Publication>();
  private readonly calls = new HeldCalls();
  /** Logs what the native route answered once the server has closed (a no-op unless verbose). */
  private stopRequestLog: () => void = () => undefined;

  constructor(private readonly service: InferenceService, private readonly options: GrpcOptions, private readonly log: Logger) {
    this.handler = createRpcHandler(service, log, options.restrictions, options.headerForwardPattern);
  }

  /** Opens the port; resolves to the port number. */
  listen(): Promise<number> {
    if (this.options.tls) return this.listenTls(this.options.tls);
    const o = this.options;
    // With a restricted inference API every call has its metadata checked in JS: nothing goes native.
    const nativeInfer = !o.restrictions?.has('inference');
    const maxInflight = o.maxInflightBytes ?? defaultMaxInflightBodyBytes(o.maxMessageBytes);
    const maxUnsent = maxUnsentAnswerBytes(o.maxMessageBytes);
    const native = createNativeGrpcServer({
      host: o.host, port: o.port, maxMessageBytes: o.maxMessageBytes, maxInflightBytes: maxInflight,
      maxConnections: o.maxConnections, maxConcurrentStreams: GRPC_MAX_CONCURRENT_STREAMS, drainGraceMs: DRAIN_IDLE_GRACE_MS,
      busyMessage: inflightBodyMessage(maxInflight), nativeInfer,
      maxUnsentBytes: maxUnsent, unsentMessage: unsentAnswersMessage(maxUnsent), announceStreams: Boolean(o.restrictions?.has('inference')),
      busyPollUs: o.busyPollUs, responseCompression: RESPONSE_COMPRESSION_LEVELS.indexOf(o.responseCompression ?? 'none'),
      ...nativeKeepalive(o.keepalive ?? DEFAULT_GRPC_KEEPALIVE),
    }, (connection, stream, path, request, metadata, cancelled, received) => this.onCall(connection, stream, path, request, metadata, cancelled, received));
    let port: number;
    try {
      port = native.listen();
    } catch (err) {
      return Promise.reject(err);
    }
    this.native = native;
    this.stopRequestLog = logNativeRequests(native, this.log, (_method, path) => this.log.verbose('grpc call', { method: path, route: 'native' }), 'grpc calls not logged');
    if (nativeInfer) for (const [model, [versions, defaultVersion]] of this.published) native.publish(model, versions, defaultVersion);
    return Promise.resolve(port);
  }

  private onCall(connection: number, stream: number, path: string, request: Buffer | null, metadata: string[], cancelled: number, received?: [bigint, bigint]): void {
    const native = this.native;
    if (!native) return;
    if (cancelled !== 0) {
      this.calls.cancel(`${connection}:${stream}`, cancelled === grpc.status.DEADLINE_EXCEEDED ? 'DEADLINE_EXCEEDED' : 'CANCELLED');
      return;
    }
    const streaming = path === STREAM_INFER_PATH;
    // Inference calls carry a signal that aborts if the call goes away while JS holds it.
    const held = request !== null && (streaming || path === INFER_PATH) ? this.calls.hold(`${connection}:${stream}`) : undefined;
    // While tracing, when the message came; a trace JS makes of the request waits on it to be sent.
    const arrival = received ? { protocol: 'grpc' as const, startNs: received[0], endNs: received[1] } as FrontEndArrival : undefined;
    const send = (r: RpcResult): void => {
      held?.release();
      native.answer(connection, stream, !streaming || r.code !== 0, r.code, r.message, r.bytes ?? null, undefined, arrival?.trace);
    };
    if (request === null) {
      // A streaming call opens: refused now when its API is restricted, otherwise its messages follow.
      const refused = this.handler.refusal(path, metadataOf(metadata));
      if (refused) send(refused);
      return;
    }
    // A decoupled model's responses to a stream message, but its last, go out as they come.
    const more = streaming ? (r: RpcResult) => native.answer(connection, stream, false, r.code, r.message, r.bytes ?? null, true) : undefined;
    const result = this.handler.handle(path, request, metadataOf(metadata), held?.signal, more, arrival);
    if (result instanceof Promise) result.then(send, (err: unknown) => send({ code: grpc.status.INTERNAL, message: `internal error: ${(err as Error).message}` }));
    else send(result);
  }

  /** What the native infer route may run for `model` (PublishTarget of publish-models.ts). */
  publish(model: string, versions: PublishedVersion[], defaultVersion: string): void {
    if (versions.length === 0) this.published.delete(model);
    else this.published.set(model, [versions, defaultVersion]);
    if (this.native && !this.options.restrictions?.has('inference')) this.native.publish(model, versions, defaultVersion);
  }

  /** Failures of the native infer route since the last call, for nv_inference_request_failure. */
  takeFailures(): NativeFailureCount[] {
    return this.native?.takeFailures() ?? [];
  }

  /** gRPC connections open now (refused ones excluded). */
  get connectionCount(): number {
    return this.native ? this.native.counters().connections : this.tlsConnections;
  }

  /** Connections closed at once for --max-connections (for tests and logs). */
  get refusedConnections(): number {
    return this.native ? this.native.counters().refused : this.tlsRefused;
  }

  /**
   * Stops accepting connections at once; goes on taking calls on open connections for
   * DRAIN_IDLE_GRACE_MS (as the HTTP front ends do for idle keep-alive connections), so a call its
   * client sent just before the stop is not met by a GOAWAY that refuses it (grpc-js would retry it
   * on a new connection, which the closed listener refuses: UNAVAILABLE); then GOAWAY, running calls
   * finish (up to `timeoutMs` in all), and the connections close.
   */
  async close(timeoutMs: number): Promise<void> {
    if (this.native) {
      await this.native.close(timeoutMs);
      this.stopRequestLog();
      return;
    }
    return this.closeTls(timeoutMs);
  }

  /**
   * --grpc-use-ssl: grpc-js over TLS on a net.Server of gebe's own (so --max-connections counts its
   * sockets), every method registered with raw bytes in and out and answered by the same handler.
   */
  private listenTls(tls: NonNullable<GrpcOptions['tls']>): Promise<number> {
    const server = new grpc.Server({
      'grpc.max_receive_message_length': this.options.maxMessageBytes,
      'grpc.max_send_message_length': -1,
      'grpc.max_concurrent_streams': GRPC_MAX_CONCURRENT_STREAMS,
      'grpc.enable_channelz': 0,
      // grpc-js has no ping policy: the other keepalive settings apply to the native server only.
      'grpc.keepalive_time_ms': (this.options.keepalive ?? DEFAULT_GRPC_KEEPALIVE).timeMs,
      'grpc.keepalive_timeout_ms': (this.options.keepalive ?? DEFAULT_GRPC_KEEPALIVE).timeoutMs,
    });
    for (const serviceName of ['inference.GRPCInferenceService', 'grpc.health.v1.Health']) {
      const definition: Record<string, grpc.MethodDefinition<Buffer, Uint8Array>> = {};
      const handlers: grpc.UntypedServiceImplementation = {};
      for (const method of Object.values(grpcRoot().lookupService(serviceName).methods)) {
        const path = `/${serviceName}/${method.name}`;
        definition[method.name] = {
          path, requestStream: Boolean(method.requestStream), responseStream: Boolean(method.responseStream),
          requestSerialize: (b: Buffer) => b, requestDeserialize: (b: Buffer) => b,
          responseSerialize: (b: Uint8Array) => Buffer.from(b.buffer, b.byteOffset, b.byteLength), responseDeserialize: (b: Buffer) => b,
          originalName: method.name,
        };
        handlers[method.name] = method.requestStream ? this.tlsStream(path) : this.tlsUnary(path);
      }
      server.addService(definition, handlers);
    }
    this.tlsServer = server;
    const credentials = grpc.ServerCredentials.createSsl(tls.rootCert ?? null, [{ private_key: tls.key, cert_chain: tls.cert }], tls.mutual);
    const injector = server.createConnectionInjector(credentials);
    const max = this.options.maxConnections;
    const listener = net.createServer({ noDelay: true }, (socket) => {
      if (max !== undefined && this.tlsConnections >= max) {
        this.tlsRefused++;
        this.log.warn(`gRPC: ${maxConnectionsMessage(max)}`);
        socket.destroy();
        return;
      }
      this.tlsConnections++;
      socket.once('close', () => this.tlsConnections--);
      injector.injectConnection(socket);
    });
    this.listener = listener;
    return new Promise((resolve, reject) => {
      listener.once('error', reject);
      listener.listen({ host: this.options.host, port: this.options.port }, () => {
        listener.off('error', reject);
        listener.on('error', (err) => this.log.warn(`gRPC: cannot accept a connection: ${err.message}`));
        resolve((listener.address() as net.AddressInfo).port);
      });
    });
  }

  private tlsUnary(path: string) {
    return (call: grpc.ServerUnaryCall<Buffer, Uint8Array>, callback: grpc.sendUnaryData<Uint8Array>): void => {
      const done = (r: RpcResult): void => (r.code === 0 ? callback(null, r.bytes!) : callback({ code: r.code, details: r.message }));
      const result = this.handler.handle(path, call.request, tlsMetadata(call.metadata), tlsCallSignal(call));
      if (result instanceof Promise) result.then(done, (err: unknown) => done({ code: grpc.status.INTERNAL, message: String(err) }));
      else done(result);
    };
  }

  private tlsStream(path: string) {
    return (call: grpc.ServerDuplexStream<Buffer, Uint8Array>): void => {
      const refused = this.handler.refusal(path, tlsMetadata(call.metadata));
      if (refused) {
        call.emit('error', { code: refused.code, details: refused.message });
        return;
      }
      // Responses go back in completion order; each carries the request id, errors travel in-band.
      const cut = new AbortController();
      const signal = AbortSignal.any([tlsCallSignal(call), cut.signal]);
      let pending = 0;
      let ended = false;
      let failed = false;
      const fail = (code: number, details: string): void => {
        failed = true;
        call.emit('error', { code, details });
      };
      // Bytes written and not yet taken by the HTTP/2 stream (its flow control holds them while
      // the client reads nothing): past the bound the call's requests are cancelled, as natively.
      const maxUnsent = maxUnsentAnswerBytes(this.options.maxMessageBytes);
      let unsent = 0;
      const send = (bytes: Uint8Array | undefined): void => {
        if (failed || !bytes) return;
        if (passesUnsentBound(unsent, bytes.byteLength, maxUnsent)) {
          cut.abort(cancellationError('CANCELLED'));
          return fail(grpc.status.RESOURCE_EXHAUSTED, unsentAnswersMessage(maxUnsent));
        }
        unsent += bytes.byteLength;
        call.write(bytes, () => (unsent -= bytes.byteLength));
      };
      const settle = (r: RpcResult): void => {
        pending--;
        if (failed) return;
        if (r.code !== 0) return fail(r.code, r.message);
        send(r.bytes);
        if (ended && pending === 0 && !failed) call.end();
      };
      const more = (r: RpcResult): void => send(r.bytes);
      call.on('data', (msg: Buffer) => {
        pending++;
        const result = this.handler.handle(path, msg, tlsMetadata(call.metadata), signal, more);
        if (result instanceof Promise) result.then(settle, (err: unknown) => settle({ code: grpc.status.INTERNAL, message: String(err) }));
        else settle(result);
      });
      call.on('end', () => {
        ended = true;
        if (pending === 0 && !failed) call.end();
      });
      call.on('error', () => undefined);
    };
  }

  private async closeTls(timeoutMs: number): Promise<void> {
    const server = this.tlsServer;
    if (!server) return;
    const deadline = Date.now() + timeoutMs;
    this.listener?.close();
    await new Promise((resolve) => setTimeout(resolve, Math.min(DRAIN_IDLE_GRACE_MS, timeoutMs)));
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        server.forceShutdown();
        resolve();
      }, Math.max(0, deadline - Date.now()));
      timer.unref();
      server.tryShutdown(() => {
        clearTimeout(timer);
        resolve();
      });
    });
  }
}

/** grpc-js's metadata of a call (--grpc-use-ssl) as the handler reads it. */
function tlsMetadata(metadata: grpc.Metadata): MetadataLookup {
  const lookup: MetadataLookup = (key) => {
    const got = metadata.get(key);
    return got.length === 1 ? String(got[0]) : undefined;
  };
  lookup.entries = () => Object.entries(metadata.getMap()).flatMap(([k, v]) => (typeof v === 'string' ? [[k, v] as [string, string]] : []));
  return lookup;
}
