/**
 * The gRPC front end: inference.GRPCInferenceService and grpc.health.v1.Health on @grpc/grpc-js,
 * translating messages to and from the InferenceService. RPCs gebe does not implement answer
 * UNIMPLEMENTED with a message.
 */
import net from 'node:net';
import * as grpc from '@grpc/grpc-js';
import { decodeGrpcInferRequest, encodeGrpcInferResponse, grpcClassCounts, type GrpcInferRequestMessage } from '../codec/grpc-infer.js';
import type { InferenceService } from '../inference-service.js';
import { DRAIN_IDLE_GRACE_MS, maxConnectionsMessage } from '../limits.js';
import type { Logger } from '../logger.js';
import { ProtocolError, toProtocolError } from '../protocol-error.js';
import { parseLoadParameters, parseUnloadParameters } from '../repository-parameters.js';
import { GRPC_RESTRICTED_PREFIX, grpcRestrictedMessage, type RestrictedApi, type Restrictions } from '../restricted-api.js';
import { serviceDefinition, toNumber, UndecodableMessage } from './proto.js';

export interface GrpcOptions {
  host: string;
  port: number;
  /** Largest message accepted, in bytes (the same limit as the HTTP body). */
  maxMessageBytes: number;
  /** --grpc-restricted-protocol. */
  restrictions?: Restrictions;
  /** --max-connections: open gRPC connections; one more is closed at once. */
  maxConnections?: number;
  /** --grpc-use-ssl: PEM server certificate and key; root certificate for --grpc-use-ssl-mutual. */
  tls?: { cert: Buffer; key: Buffer; rootCert?: Buffer; mutual: boolean };
}

/** Triton's API group of each RPC, for --grpc-restricted-protocol. */
const RPC_API: Record<string, RestrictedApi> = {
  ServerLive: 'health', ServerReady: 'health', ModelReady: 'health', Check: 'health', Watch: 'health',
  ServerMetadata: 'metadata', ModelMetadata: 'metadata',
  ModelInfer: 'inference', ModelStreamInfer: 'inference',
  ModelConfig: 'model-config', ModelStatistics: 'statistics',
  RepositoryIndex: 'model-repository', RepositoryModelLoad: 'model-repository', RepositoryModelUnload: 'model-repository',
  SystemSharedMemoryStatus: 'shared-memory', SystemSharedMemoryRegister: 'shared-memory', SystemSharedMemoryUnregister: 'shared-memory',
  CudaSharedMemoryStatus: 'shared-memory', CudaSharedMemoryRegister: 'shared-memory', CudaSharedMemoryUnregister: 'shared-memory',
  TraceSetting: 'trace', LogSettings: 'logging',
};

/** Wraps each handler of a restricted API with Triton's check of its metadata key. */
function restrict(handlers: grpc.UntypedServiceImplementation, restrictions: Restrictions | undefined): grpc.UntypedServiceImplementation {
  if (!restrictions || restrictions.size === 0) return handlers;
  const out: grpc.UntypedServiceImplementation = {};
  for (const [name, handler] of Object.entries(handlers)) {
    const r = RPC_API[name] !== undefined ? restrictions.get(RPC_API[name]!) : undefined;
    if (!r) {
      out[name] = handler;
      continue;
    }
    const key = GRPC_RESTRICTED_PREFIX + r.key;
    const denied = { code: grpc.status.UNAVAILABLE, details: grpcRestrictedMessage(r.key) };
    out[name] = (call: any, callback?: grpc.sendUnaryData<any>) => {
      const got = (call.metadata as grpc.Metadata).get(key);
      if (got.length === 1 && String(got[0]) === r.value) return (handler as (c: any, cb?: any) => void)(call, callback);
      if (callback) callback(denied);
      else call.emit('error', denied);  // streams
    };
  }
  return out;
}

type Unary = (call: grpc.ServerUnaryCall<any, any>, callback: grpc.sendUnaryData<any>) => void;

function unary(log: Logger, fn: (request: any) => unknown | Promise<unknown>): Unary {
  return (call, callback) => {
    if (log.verboseEnabled) log.verbose('grpc call', { method: call.getPath() });
    if (call.request instanceof UndecodableMessage) {
      callback({ code: grpc.status.INVALID_ARGUMENT, details: call.request.message });
      return;
    }
    // Synchronous answers go back at once and promises are awaited with one reaction: no
    // promise chain of our own on the ModelInfer hot path.
    let result: unknown;
    try {
      result = fn(call.request);
    } catch (err) {
      callback(grpcError(err, log));
      return;
    }
    if (result instanceof Promise) {
      result.then((response) => callback(null, response as object), (err: unknown) => callback(grpcError(err, log)));
    } else {
      callback(null, result as object);
    }
  };
}

function grpcError(err: unknown, log: Logger): Partial<grpc.StatusObject> {
  const e = toProtocolError(err);
  if (e.httpStatus === 500) log.error('grpc handler failed', { error: err instanceof Error ? err.stack ?? err.message : String(err) });
  return { code: e.grpcCode, details: e.message };
}

/** Repository parameters arrive as ModelRepositoryParameter oneofs; unwrap them to plain values. */
function plainParameters(params: Record<string, Record<string, unknown>> | undefined): Record<string, unknown> | undefined {
  if (!params || Object.keys(params).length === 0) return undefined;
  const out: Record<string, unknown> = {};
  for (const [key, p] of Object.entries(params)) {
    const choice = p.parameter_choice as string | undefined;
    let v = choice ? p[choice] : undefined;
    if (choice === 'int64_param') v = toNumber(v);
    if (choice === 'bytes_param' && key === 'config') v = Buffer.from(v as Uint8Array).toString('utf8');
    out[key] = v;
  }
  return out;
}

/**
 * Calls one gRPC connection may run at once. Above the concurrency a load test puts on one channel
 * (gebe perf and perf_analyzer drive all of theirs over one), so it bounds clients without shaping
 * measurements; a client's transport (nghttp2) queues calls beyond it until one finishes.
 */
export const GRPC_MAX_CONCURRENT_STREAMS = 1024;

export class GrpcFrontend {
  private readonly server: grpc.Server;
  private listener?: net.Server;
  private connections = 0;
  /** Connections closed at once for --max-connections (for tests and logs). */
  refusedConnections = 0;

  constructor(private readonly service: InferenceService, private readonly options: GrpcOptions, private readonly log: Logger) {
    this.server = new grpc.Server({
      'grpc.max_receive_message_length': options.maxMessageBytes,
      'grpc.max_send_message_length': -1,
      // HTTP/2 SETTINGS_MAX_CONCURRENT_STREAMS (Node's default is 2^32 - 1): with --max-connections
      // it bounds the calls clients can have in the server at once.
      'grpc.max_concurrent_streams': GRPC_MAX_CONCURRENT_STREAMS,
      // gebe serves no channelz service; its per-call bookkeeping showed as 5% of a ModelInfer call.
      'grpc.enable_channelz': 0,
    });
    this.server.addService(serviceDefinition('inference.GRPCInferenceService', 'server'), restrict(this.inferenceHandlers(), options.restrictions));
    this.server.addService(serviceDefinition('grpc.health.v1.Health', 'server'), restrict(this.healthHandlers(), options.restrictions));
  }

  private inferenceHandlers(): grpc.UntypedServiceImplementation {
    const s = this.service;
    const log = this.log;
    const version = (v: string): string | undefined => {
      if (!v) return undefined;
      if (!/^[0-9]+$/.test(v)) throw ProtocolError.badRequest(`model version '${v}' is not a number; versions are the numeric directory names`);
      return v;
    };
    const unimplemented = (name: string): Unary => (_call, callback) =>
      callback({ code: grpc.status.UNIMPLEMENTED, details: `${name} is not implemented by gebe serve` });
    const infer = (msg: GrpcInferRequestMessage): Promise<Record<string, unknown>> => {
      let response;
      try {
        response = s.infer(msg.model_name, version(msg.model_version), decodeGrpcInferRequest(msg), grpcClassCounts(msg));
      } catch (err) {
        return Promise.reject(err);
      }
      return response.then(encodeGrpcInferResponse);
    };
    return {
      ServerLive: unary(log, () => ({ live: true })),
      ServerReady: unary(log, () => ({ ready: s.serverReady() })),
      ModelReady: unary(log, (r) => ({ ready: s.modelReady(r.name, version(r.version)) })),
      ServerMetadata: unary(log, () => s.serverMetadata()),
      ModelMetadata: unary(log, (r) => s.modelMetadata(r.name, version(r.version))),
      ModelInfer: unary(log, infer),
      ModelStreamInfer: (call: grpc.ServerDuplexStream<GrpcInferRequestMessage, object>) => {
        // Responses go back in completion order; each carries the request id, errors travel in-band.
        let pending = 0;
        let ended = false;
        const maybeEnd = (): void => {
          if (ended && pending === 0) call.end();
        };
        call.on('data', (msg: GrpcInferRequestMessage | UndecodableMessage) => {
          if (msg instanceof UndecodableMessage) {
            call.write({ error_message: msg.message, infer_response: {} });
            return;
          }
          pending++;
          infer(msg)
            .then((infer_response) => call.write({ error_message: '', infer_response }))
            .catch((err) => call.write({ error_message: toProtocolError(err).message, infer_response: { id: msg.id ?? '', model_name: msg.model_name ?? '', model_version: msg.model_version ?? '' } }))
            .finally(() => {
              pending--;
              maybeEnd();
            });
        });
        call.on('end', () => {
          ended = true;
          maybeEnd();
        });
        call.on('error', () => undefined);
      },
      ModelConfig: unary(log, (r) => ({ config: s.modelConfig(r.name, version(r.version)) })),
      ModelStatistics: unary(log, (r) => ({ model_stats: s.statistics(r.name || undefined, version(r.version)) })),
      RepositoryIndex: unary(log, async (r) => ({ models: (await s.models.index(Boolean(r.ready))).map((e) => ({ name: e.name, version: e.version ?? '', state: e.state ?? '', reason: e.reason ?? '' })) })),
      RepositoryModelLoad: unary(log, async (r) => {
        const { config } = parseLoadParameters(plainParameters(r.parameters), r.model_name);
        s.requireExplicitControl('load');
        await s.models.load(r.model_name, config);
        return {};
      }),
      RepositoryModelUnload: unary(log, async (r) => {
        const { unloadDependents } = parseUnloadParameters(plainParameters(r.parameters), r.model_name);
        s.requireExplicitControl('unload');
        await s.models.unload(r.model_name, undefined, { dependents: unloadDependents });
        return {};
      }),
      SystemSharedMemoryStatus: unimplemented('SystemSharedMemoryStatus'),
      SystemSharedMemoryRegister: unimplemented('SystemSharedMemoryRegister'),
      SystemSharedMemoryUnregister: unimplemented('SystemSharedMemoryUnregister'),
      CudaSharedMemoryStatus: unimplemented('CudaSharedMemoryStatus'),
      CudaSharedMemoryRegister: unimplemented('CudaSharedMemoryRegister'),
      CudaSharedMemoryUnregister: unimplemented('CudaSharedMemoryUnregister'),
      TraceSetting: unimplemented('TraceSetting'),
      LogSettings: unimplemented('LogSettings'),
    };
  }

  private healthHandlers(): grpc.UntypedServiceImplementation {
    const s = this.service;
    return {
      Check: (call: grpc.ServerUnaryCall<{ service: string } | UndecodableMessage, object>, callback: grpc.sendUnaryData<object>) => {
        if (call.request instanceof UndecodableMessage) {
          callback({ code: grpc.status.INVALID_ARGUMENT, details: call.request.message });
          return;
        }
        const name = call.request.service;
        if (name !== '' && name !== 'inference.GRPCInferenceService') {
          callback({ code: grpc.status.NOT_FOUND, details: `unknown service '${name}'; gebe serves '' and 'inference.GRPCInferenceService'` });
          return;
        }
        callback(null, { status: s.serverReady() ? 'SERVING' : 'NOT_SERVING' });
      },
      Watch: (call: grpc.ServerWritableStream<object, object>) => {
        call.emit('error', { code: grpc.status.UNIMPLEMENTED, details: 'Health/Watch is not implemented by gebe serve; poll Health/Check' });
      },
    };
  }

  /**
   * Listens on a net.Server of its own and hands each accepted socket to grpc-js through its public
   * connection injector (Server.createConnectionInjector; TLS, when configured, is done by the
   * injector's http2 server): grpc-js's bindAsync offers no hook to count or refuse connections,
   * and --max-connections must bound gRPC clients as it bounds HTTP ones.
   */
  listen(): Promise<number> {
    const tls = this.options.tls;
    const credentials = tls
      ? grpc.ServerCredentials.createSsl(tls.rootCert ?? null, [{ private_key: tls.key, cert_chain: tls.cert }], tls.mutual)
      : grpc.ServerCredentials.createInsecure();
    const injector = this.server.createConnectionInjector(credentials);
    const listener = net.createServer({ noDelay: true }, (socket) => this.onConnection(socket, injector));
    this.listener = listener;
    return new Promise((resolve, reject) => {
      listener.once('error', reject);
      listener.listen({ host: this.options.host, port: this.options.port }, () => {
        listener.off('error', reject);
        // A failed accept (EMFILE and the like) is an 'error' event: log it, never crash on it.
        listener.on('error', (err) => this.log.warn(`gRPC: cannot accept a connection: ${err.message}`));
        resolve((listener.address() as net.AddressInfo).port);
      });
    });
  }

  /** gRPC connections open now (refused ones excluded). */
  get connectionCount(): number {
    return this.connections;
  }

  /**
   * Beyond --max-connections a connection is closed before any HTTP/2 byte: a gRPC client sees
   * UNAVAILABLE and retries, as with a server that is not listening (an HTTP/2 GOAWAY would need a
   * session, and under TLS a handshake, that the limit exists to avoid).
   */
  private onConnection(socket: net.Socket, injector: grpc.ConnectionInjector): void {
    const max = this.options.maxConnections;
    if (max !== undefined && this.connections >= max) {
      this.refusedConnections++;
      this.log.warn(`gRPC: ${maxConnectionsMessage(max)}`);
      socket.destroy();
      return;
    }
    this.connections++;
    socket.once('close', () => this.connections--);
    injector.injectConnection(socket);
  }

  /**
   * Stops accepting connections at once; goes on accepting calls on open connections for
   * DRAIN_IDLE_GRACE_MS (as the HTTP front ends do for idle keep-alive connections), so a call its
   * client sent just before the stop is not met by a GOAWAY that refuses it (grpc-js would retry it
   * on a new connection, which the closed listener refuses: UNAVAILABLE); then GOAWAY, running calls
   * finish (up to `timeoutMs` in all), and the connections close.
   */
  async close(timeoutMs: number): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    this.listener?.close();
    await new Promise((resolve) => setTimeout(resolve, Math.min(DRAIN_IDLE_GRACE_MS, timeoutMs)));
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.server.forceShutdown();
        resolve();
      }, Math.max(0, deadline - Date.now()));
      timer.unref();
      this.server.tryShutdown(() => {
        clearTimeout(timer);
        resolve();
      });
    });
  }
}
