/**
 * The gRPC control plane in JS: one function that answers a call given as (method path, request
 * bytes, metadata) for inference.GRPCInferenceService and grpc.health.v1.Health, decoding and
 * encoding with protobufjs and translating to and from the InferenceService. The native front end
 * hands it every call its infer route does not take (and the TLS front end every call). RPCs gebe
 * does not implement answer UNIMPLEMENTED with a message.
 */
import { status as GrpcStatus } from '@grpc/grpc-js';
import type protobuf from 'protobufjs';
import {
  decodeGrpcInferRequest, encodeGrpcInferResponse, encodeGrpcStreamResponse, grpcClassCounts, grpcSharedOutputs, wantsEmptyFinalResponse, type GrpcInferRequestMessage,
} from '../../kserve/codec/grpc-infer.js';
import type { InferenceService } from '../inference-service.js';
import type { Logger } from '../logger.js';
import type { FrontEndArrival } from '../../executor/types.js';
import { ProtocolError, toProtocolError } from '../../kserve/protocol-error.js';
import { GRPC_RESTRICTED_PREFIX, grpcRestrictedMessage, type RestrictedApi, type Restrictions } from '../restricted-api.js';
import { grpcRoot, toNumber, UndecodableMessage } from '../../kserve/grpc-proto.js';
import { cudaSharedMemoryStatus, registerCudaSharedMemory } from '../shared-memory.js';
import { traceChangesFromGrpc } from '../trace-settings.js';
import { forwardHeaders, takeTraceContext } from '../header-forwarding.js';

/** What a call gets back: OK with the response message's bytes, or an error status. */
export interface RpcResult {
  code: number;
  message: string;
  bytes?: Uint8Array;
}

/** The call's metadata: the value of one key (names lower-case); `entries`, all of them (text values). */
export interface MetadataLookup {
  (key: string): string | undefined;
  entries?: () => Array<[string, string]>;
}

export interface RpcHandler {
  /**
   * Answers one request message of the call `path`. `signal` aborts when the call goes away (its
   * client reset it, or its deadline passed): an inference the models JS runs still queue is dropped.
   * A ModelStreamInfer message for a decoupled model may have several responses: each but the last
   * goes to `more` as it comes; the result is the last (OK without bytes when there is nothing
   * more to send).
   */
  /** `received`: while tracing, when the native front end received the message (the trace extension). */
  handle(path: string, request: Uint8Array, metadata: MetadataLookup, signal?: AbortSignal, more?: (r: RpcResult) => void, received?: FrontEndArrival): RpcResult | Promise<RpcResult>;
  /** The refusal of a call to a restricted API whose metadata lacks its key; undefined when allowed. */
  refusal(path: string, metadata: MetadataLookup): RpcResult | undefined;
}

export const INFER_PATH = '/inference.GRPCInferenceService/ModelInfer';

/**
 * The one client-streaming RPC: each request message gets its responses (one, or a decoupled
 * model's any number), errors in band.
 */
export const STREAM_INFER_PATH = '/inference.GRPCInferenceService/ModelStreamInfer';

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

/** `emit`: ModelStreamInfer's responses to a message but its last (which is the result). */
type Method = (request: any, signal?: AbortSignal, emit?: (message: object) => void, metadata?: MetadataLookup, received?: FrontEndArrival) => unknown | Promise<unknown>;

/** A result that sends no message: the request's last response came without outputs, unasked for. */
const NO_MESSAGE = Symbol('no message');

class RpcFailure extends Error {
  constructor(readonly code: number, message: string) {
    super(message);
  }
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

/** A log setting as LogSettingsResponse's SettingValue oneof. */
function logSettingValue(v: string | boolean | number): Record<string, unknown> {
  if (typeof v === 'boolean') return { bool_param: v };
  return typeof v === 'number' ? { uint32_param: v } : { string_param: v };
}

function methods(s: InferenceService, headerForwardPattern: RegExp | undefined): Record<string, Method> {
  const version = (v: string): string | undefined => {
    if (!v) return undefined;
    if (!/^[0-9]+$/.test(v)) throw ProtocolError.badRequest(`model version '${v}' is not a number; versions are the numeric directory names`);
    return v;
  };
  const infer = (msg: GrpcInferRequestMessage, signal?: AbortSignal, _emit?: unknown, metadata?: MetadataLookup, received?: FrontEndArrival): Promise<Record<string, unknown>> => {
    const request = decodeGrpcInferRequest(msg, s.sharedMemory);
    forwardHeaders(request, headerForwardPattern, metadata?.entries?.() ?? []);
    takeTraceContext(request, metadata?.entries?.() ?? []);
    const shared = grpcSharedOutputs(msg, s.sharedMemory);
    if (signal) request.signal = signal;
    if (received) request.received = received;
    return s.infer(msg.model_name, version(msg.model_version), request, grpcClassCounts(msg), 'ModelInfer').then((r) => encodeGrpcInferResponse(r, shared));
  };
  // One request message of a stream: every response, errors in band, each marked final or not.
  const streamInfer = async (msg: GrpcInferRequestMessage, signal?: AbortSignal, emit?: (message: object) => void, metadata?: MetadataLookup,
    received?: FrontEndArrival): Promise<object | typeof NO_MESSAGE> => {
    const emptyFinal = wantsEmptyFinalResponse(msg);
    let last: object | typeof NO_MESSAGE = NO_MESSAGE;
    try {
      const request = decodeGrpcInferRequest(msg, s.sharedMemory);
      forwardHeaders(request, headerForwardPattern, metadata?.entries?.() ?? []);
      takeTraceContext(request, metadata?.entries?.() ?? []);
    takeTraceContext(request, metadata?.entries?.() ?? []);
      const shared = grpcSharedOutputs(msg, s.sharedMemory);
      if (signal) request.signal = signal;
      if (received) request.received = received;
      await s.inferStream(msg.model_name, version(msg.model_version), request, grpcClassCounts(msg), (r) => {
        const message = r.response || r.error || (r.final && emptyFinal) ? encodeGrpcStreamResponse(msg, r.final, r.response, r.error?.message, shared) : NO_MESSAGE;
        if (r.final) last = message;
        else if (message !== NO_MESSAGE) emit?.(message);
      });
      return last;
    } catch (err) {
      return encodeGrpcStreamResponse(msg, true, undefined, toProtocolError(err).message);
    }
  };
  return {
    ServerLive: () => ({ live: true }),
    ServerReady: () => ({ ready: s.serverReady() }),
    ModelReady: (r) => ({ ready: s.modelReady(r.name, version(r.version)) }),
    ServerMetadata: () => s.serverMetadata(),
    ModelMetadata: (r) => s.modelMetadata(r.name, version(r.version)),
    ModelInfer: infer,
    ModelStreamInfer: streamInfer,
    ModelConfig: (r) => ({ config: s.modelConfig(r.name, version(r.version)) }),
    ModelStatistics: (r) => ({ model_stats: s.statistics(r.name || undefined, version(r.version)) }),
    RepositoryIndex: async (r) => ({ models: (await s.models.index(Boolean(r.ready))).map((e) => ({ name: e.name, version: e.version ?? '', state: e.state ?? '', reason: e.reason ?? '' })) }),
    RepositoryModelLoad: async (r) => {
      await s.models.requestLoad(r.model_name, plainParameters(r.parameters));
      return {};
    },
    RepositoryModelUnload: async (r) => {
      await s.models.requestUnload(r.model_name, plainParameters(r.parameters));
      return {};
    },
    SystemSharedMemoryStatus: (r: { name: string }) => ({ regions: Object.fromEntries(s.sharedMemory.status(r.name).map((region) => [region.name, region])) }),
    SystemSharedMemoryRegister: (r: { name: string; key: string; offset: unknown; byte_size: unknown }) => {
      s.sharedMemory.register(r.name, r.key, toNumber(r.offset), toNumber(r.byte_size));
      return {};
    },
    SystemSharedMemoryUnregister: (r: { name: string }) => (s.sharedMemory.unregister(r.name), {}),
    CudaSharedMemoryStatus: (r: { name: string }) => ({ regions: Object.fromEntries(cudaSharedMemoryStatus(r.name)) }),
    CudaSharedMemoryRegister: (r: { name: string }) => registerCudaSharedMemory(r.name),
    CudaSharedMemoryUnregister: () => ({}),
    TraceSetting: (r: { settings?: Record<string, { value?: string[] }>; model_name?: string }) => {
      const changes = r.settings && Object.keys(r.settings).length > 0 ? traceChangesFromGrpc(r.settings) : undefined;
      const settings = s.traceSettings(r.model_name || undefined, changes);
      return { settings: Object.fromEntries(Object.entries(settings).map(([name, v]) => [name, { value: Array.isArray(v) ? v : [v] }])) };
    },
    LogSettings: (r: { settings?: Record<string, Record<string, unknown>> }) => {
      // Each value's oneof (bool_param, uint32_param, string_param) as the plain value HTTP's JSON carries.
      const changes = Object.fromEntries(Object.entries(r.settings ?? {}).map(([name, v]) => [name, v[v.parameter_choice as string] ?? null]));
      const settings = s.logSettings(changes);
      return { settings: Object.fromEntries(Object.entries(settings).map(([name, v]) => [name, logSettingValue(v)])) };
    },
    Check: (r: { service: string }) => {
      if (r.service !== '' && r.service !== 'inference.GRPCInferenceService') {
        throw new RpcFailure(GrpcStatus.NOT_FOUND, `unknown service '${r.service}'; gebe serves '' and 'inference.GRPCInferenceService'`);
      }
      return { status: s.serverReady() ? 'SERVING' : 'NOT_SERVING' };
    },
    Watch: () => {
      throw new RpcFailure(GrpcStatus.UNIMPLEMENTED, 'Health/Watch is not implemented by gebe serve; poll Health/Check');
    },
  };
}

/**
 * Responses the server builds itself with exactly the types protobufjs encodes (strings, numbers,
 * Uint8Arrays, no enums or oneofs) skip fromObject, a full copy of the message.
 */
const PLAIN_RESPONSES = new Set(['.inference.ModelInferResponse']);

interface Route {
  name: string;
  fn: Method;
  request: protobuf.Type;
  encode: (value: object) => Uint8Array;
  restrictedKey?: string;
  restrictedValue?: string;
}

/** `headerForwardPattern`: --grpc-header-forward-pattern (server/header-forwarding.ts). */
export function createRpcHandler(service: InferenceService, log: Logger, restrictions?: Restrictions, headerForwardPattern?: RegExp): RpcHandler {
  const table = methods(service, headerForwardPattern);
  const routes = new Map<string, Route>();
  for (const serviceName of ['inference.GRPCInferenceService', 'grpc.health.v1.Health']) {
    for (const method of Object.values(grpcRoot().lookupService(serviceName).methods)) {
      const fn = table[method.name];
      if (!fn) continue;
      const res = method.resolvedResponseType!;
      const restricted = RPC_API[method.name] !== undefined ? restrictions?.get(RPC_API[method.name]!) : undefined;
      routes.set(`/${serviceName}/${method.name}`, {
        name: method.name,
        fn,
        request: method.resolvedRequestType!,
        encode: PLAIN_RESPONSES.has(res.fullName) ? (v) => res.encode(v).finish() : (v) => res.encode(res.fromObject(v as Record<string, unknown>)).finish(),
        restrictedKey: restricted ? GRPC_RESTRICTED_PREFIX + restricted.key : undefined,
        restrictedValue: restricted?.value,
      });
    }
  }
  const failed = (err: unknown): RpcResult => {
    if (err instanceof RpcFailure) return { code: err.code, message: err.message };
    const e = toProtocolError(err);
    if (e.httpStatus === 500) log.error('grpc handler failed', { error: err instanceof Error ? err.stack ?? err.message : String(err) });
    return { code: e.grpcCode, message: e.message };
  };
  const refusal = (path: string, metadata: MetadataLookup): RpcResult | undefined => {
    const route = routes.get(path);
    if (route?.restrictedKey && metadata(route.restrictedKey) !== route.restrictedValue) {
      return { code: GrpcStatus.UNAVAILABLE, message: grpcRestrictedMessage(route.restrictedKey.slice(GRPC_RESTRICTED_PREFIX.length)) };
    }
    return undefined;
  };
  const handle = (path: string, bytes: Uint8Array, metadata: MetadataLookup, signal?: AbortSignal, more?: (r: RpcResult) => void, received?: FrontEndArrival): RpcResult | Promise<RpcResult> => {
    const route = routes.get(path);
    if (!route) return { code: GrpcStatus.UNIMPLEMENTED, message: `The server does not implement the method ${path}` };
    if (log.verboseEnabled) log.verbose('grpc call', { method: path });
    const refused = refusal(path, metadata);
    if (refused) return refused;
    let request: unknown;
    try {
      request = route.request.decode(bytes);
    } catch (err) {
      const undecodable = new UndecodableMessage(route.request.fullName.replace(/^\./, ''), (err as Error).message);
      if (path !== STREAM_INFER_PATH) return { code: GrpcStatus.INVALID_ARGUMENT, message: undecodable.message };
      return { code: GrpcStatus.OK, message: '', bytes: route.encode(encodeGrpcStreamResponse({}, true, undefined, undecodable.message)) };
    }
    const ok = (response: unknown): RpcResult =>
      response === NO_MESSAGE ? { code: GrpcStatus.OK, message: '' } : { code: GrpcStatus.OK, message: '', bytes: route.encode(response as object) };
    const emit = more ? (message: object) => more(ok(message)) : undefined;
    // Synchronous answers go back at once and promises are awaited with one reaction.
    let result: unknown;
    try {
      result = route.fn(request, signal, emit, metadata, received);
    } catch (err) {
      return failed(err);
    }
    if (result instanceof Promise) return result.then(ok, failed);
    return ok(result);
  };
  return { handle, refusal };
}
