/**
 * The KServe v2 HTTP routes and Triton's extensions, as a small table of path patterns. Handlers
 * translate between HTTP and the InferenceService; they never touch models directly.
 */
import { decodeHttpInferRequest } from '../../kserve/codec/http-infer-request.js';
import { encodeHttpInferResponse } from '../../kserve/codec/http-infer-response.js';
import type { InferenceService } from '../inference-service.js';
import { ProtocolError, toProtocolError } from '../../kserve/protocol-error.js';
import type { RestrictedApi } from '../restricted-api.js';
import { cudaSharedMemoryStatus, registerCudaSharedMemory } from '../shared-memory.js';
import { forwardHeaders, takeTraceContext } from '../header-forwarding.js';
import { decodeContentEncoding } from './body.js';
import { AnswerStream, EMPTY, emptyAnswer, inferAnswer, JSON_HEADERS, jsonAnswer, type HttpAnswer } from './respond.js';
import { decodeGenerateRequest, generateErrorText, generateResponseText } from '../../kserve/codec/generate.js';
import type { FrontEndArrival, InferRequest, InferResponse } from '../../executor/types.js';
import { runToFinal } from '../../executor/decoupled.js';

/** A whole request as the front end received it (body complete, limits already applied). */
export interface HttpRequestIn {
  method: string;
  url: string;
  /** Names lower-cased; a repeated header's values joined with ", " (Content-Length: the first). */
  headers: Record<string, string>;
  body: Buffer;
  http10: boolean;
  /** Aborted when the client goes away before its answer (infer requests; server/cancellation.ts). */
  signal?: AbortSignal;
  /** While tracing, when the native front end received it (the trace extension). */
  received?: FrontEndArrival;
}

export interface RouteContext {
  req: HttpRequestIn;
  service: InferenceService;
  maxBody: number;
  /** Path parameters: model, version; a shared-memory region's name. */
  model?: string;
  version?: string;
  region?: string;
  /** --http-header-forward-pattern. */
  headerForwardPattern?: RegExp;
}

type Handler = (ctx: RouteContext) => Promise<HttpAnswer> | HttpAnswer;

interface Route {
  /** 'GET, POST': either (the logging extension reads with GET and changes with POST). */
  method: 'GET' | 'POST' | 'GET, POST';
  /** Triton's API group, for --http-restricted-api. */
  api: RestrictedApi;
  handler: Handler;
}

/** Splits /v2/models/{m}[/versions/{v}][/action] (or /v2/models/{m}/trace/setting) into its parts; undefined if it is not that shape. */
function parseModelPath(segments: string[]): { model: string; version?: string; action: string } | undefined {
  if (segments.length < 3 || segments[0] !== 'v2' || segments[1] !== 'models') return undefined;
  const model = segments[2]!;
  let rest = segments.slice(3);
  let version: string | undefined;
  if (rest[0] === 'versions') {
    if (rest.length < 2) return undefined;
    version = rest[1]!;
    rest = rest.slice(2);
  }
  if (version === undefined && rest.length === 2 && rest[0] === 'trace' && rest[1] === 'setting') return { model, action: 'trace/setting' };
  if (rest.length > 1) return undefined;
  return { model, version, action: rest[0] ?? '' };
}

const MODEL_ROUTES: Record<string, Route> = {
  '': { method: 'GET', api: 'metadata', handler: ({ service, model, version }) => jsonAnswer(200, service.modelMetadata(model!, version)) },
  ready: { method: 'GET', api: 'health', handler: ({ service, model, version }) => emptyAnswer(service.modelReady(model!, version) ? 200 : 400) },
  infer: { method: 'POST', api: 'inference', handler: handleInfer },
  generate: { method: 'POST', api: 'inference', handler: (ctx) => handleGenerate(ctx) },
  generate_stream: { method: 'POST', api: 'inference', handler: (ctx) => handleGenerateStream(ctx) },
  config: { method: 'GET', api: 'model-config', handler: ({ service, model, version }) => jsonAnswer(200, service.modelConfig(model!, version)) },
  stats: { method: 'GET', api: 'statistics', handler: ({ service, model, version }) => jsonAnswer(200, { model_stats: service.statistics(model, version) }) },
  status: { method: 'GET', api: 'health', handler: handleStatus },
  'trace/setting': { method: 'GET, POST', api: 'trace', handler: handleTraceSetting },
};

const FIXED_ROUTES: Record<string, Route> = {
  '/v2': { method: 'GET', api: 'metadata', handler: ({ service }) => jsonAnswer(200, service.serverMetadata()) },
  '/v2/health/live': { method: 'GET', api: 'health', handler: () => emptyAnswer(200) },
  '/v2/health/ready': { method: 'GET', api: 'health', handler: ({ service }) => emptyAnswer(service.serverReady() ? 200 : 400) },
  '/v2/models/stats': { method: 'GET', api: 'statistics', handler: ({ service }) => jsonAnswer(200, { model_stats: service.statistics() }) },
  '/v2/repository/index': { method: 'POST', api: 'model-repository', handler: handleIndex },
  '/v2/logging': { method: 'GET, POST', api: 'logging', handler: handleLogging },
  '/v2/trace/setting': { method: 'GET, POST', api: 'trace', handler: handleTraceSetting },
};

const LOAD_ROUTE: Route = { method: 'POST', api: 'model-repository', handler: handleLoad };
const UNLOAD_ROUTE: Route = { method: 'POST', api: 'model-repository', handler: handleUnload };

export interface RouteMatch {
  route: Route;
  model?: string;
  version?: string;
  region?: string;
}

/** Triton's shared-memory endpoints (server/shared-memory.ts answers them). */
const SHARED_MEMORY_ROUTES: Record<string, Record<string, Route>> = {
  systemsharedmemory: {
    status: { method: 'GET', api: 'shared-memory', handler: ({ service, region }) => jsonAnswer(200, service.sharedMemory.status(region)) },
    register: { method: 'POST', api: 'shared-memory', handler: handleRegisterSharedMemory },
    unregister: { method: 'POST', api: 'shared-memory', handler: ({ service, region }) => (service.sharedMemory.unregister(region), emptyAnswer(200)) },
  },
  cudasharedmemory: {
    status: { method: 'GET', api: 'shared-memory', handler: ({ region }) => jsonAnswer(200, cudaSharedMemoryStatus(region)) },
    register: { method: 'POST', api: 'shared-memory', handler: ({ region }) => registerCudaSharedMemory(region ?? '') },
    unregister: { method: 'POST', api: 'shared-memory', handler: () => emptyAnswer(200) },
  },
};

async function handleRegisterSharedMemory(ctx: RouteContext): Promise<HttpAnswer> {
  const body = await readJsonBody(ctx);
  ctx.service.sharedMemory.register(ctx.region ?? '', body.key, body.offset, body.byte_size);
  return emptyAnswer(200);
}

/** /v2/{system,cuda}sharedmemory[/region/{name}]/{status,register,unregister}; undefined if it is not that shape. */
function parseSharedMemoryPath(segments: string[]): { route?: Route; region?: string } | undefined {
  const routes = segments[0] === 'v2' ? SHARED_MEMORY_ROUTES[segments[1] ?? ''] : undefined;
  if (!routes) return undefined;
  const named = segments.length === 5 && segments[2] === 'region';
  if (!named && segments.length !== 3) return undefined;
  const action = segments[named ? 4 : 2]!;
  return { route: Object.hasOwn(routes, action) ? routes[action] : undefined, region: named ? segments[3] : undefined };
}

/** Finds the route for a request; throws 404/405 ProtocolErrors for the rest. */
export function route(method: string, url: string): RouteMatch {
  const q = url.indexOf('?');
  const path = q >= 0 ? url.slice(0, q) : url;
  const trimmed = path.length > 1 && path.endsWith('/') ? path.slice(0, -1) : path;
  let found: Route | undefined = FIXED_ROUTES[trimmed];
  let model: string | undefined;
  let version: string | undefined;
  let region: string | undefined;
  if (!found) {
    const segments = trimmed.split('/').slice(1).map(safeDecode);
    const repo = segments.length === 5 && segments[0] === 'v2' && segments[1] === 'repository' && segments[2] === 'models' ? segments : undefined;
    const shm = parseSharedMemoryPath(segments);
    if (repo && (repo[4] === 'load' || repo[4] === 'unload')) {
      found = repo[4] === 'load' ? LOAD_ROUTE : UNLOAD_ROUTE;
      model = repo[3];
    } else if (shm) {
      found = shm.route;
      region = shm.region;
    } else {
      const parsed = parseModelPath(segments);
      found = parsed ? MODEL_ROUTES[parsed.action] : undefined;
      model = parsed?.model;
      version = parsed?.version;
    }
  }
  if (!found) throw ProtocolError.notFound(`no endpoint ${method} ${path}; gebe serves the KServe v2 protocol under /v2`);
  const allowed = found.method.split(', ');
  if (!allowed.includes(method) && !(method === 'HEAD' && allowed.includes('GET'))) {
    throw new ProtocolError(`${method} is not allowed on ${path}; use ${allowed.join(' or ')}`, 400);
  }
  if (version !== undefined && !/^[0-9]+$/.test(version)) {
    throw ProtocolError.badRequest(`model version '${version}' in ${path} is not a number; versions are the numeric directory names`);
  }
  return { route: found, model, version, region };
}

function safeDecode(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    throw ProtocolError.badRequest(`path segment '${segment}' is not valid percent-encoding`);
  }
}

/** A POST to an infer URL (the requests that get a cancellation signal; routing decides the rest). */
export function looksLikeInfer(method: string, url: string): boolean {
  if (method !== 'POST') return false;
  const path = url.split('?', 1)[0]!;
  return path.endsWith('/infer') || path.endsWith('/generate') || path.endsWith('/generate_stream');
}

/**
 * Infer requests the native route does not answer (models without a native handle: ensembles and
 * Python models; and every infer request behind node:http(s)), decoded by the TS codec.
 */
async function handleInfer(ctx: RouteContext): Promise<HttpAnswer> {
  const { headers } = ctx.req;
  const body = await decodeContentEncoding(ctx.req.body, headers['content-encoding'], ctx.maxBody);
  const decoded = decodeHttpInferRequest(body, parseHeaderLength(headers['inference-header-content-length']), ctx.service.sharedMemory);
  forwardHeaders(decoded.request, ctx.headerForwardPattern, Object.entries(headers));
  takeTraceContext(decoded.request, Object.entries(headers));
  if (ctx.req.signal) decoded.request.signal = ctx.req.signal;
  if (ctx.req.received) decoded.request.received = ctx.req.received;
  const response = await ctx.service.infer(ctx.model!, ctx.version, decoded.request, decoded.encoding.classes, 'HTTP');
  return inferAnswer(encodeHttpInferResponse(response, decoded.encoding));
}

/** A generate request (Triton's generate extension), decoded against the model's inputs. */
async function generateRequest(ctx: RouteContext): Promise<InferRequest> {
  const body = await decodeContentEncoding(ctx.req.body, ctx.req.headers['content-encoding'], ctx.maxBody);
  const model = ctx.service.models.resolve(ctx.model!, ctx.version);
  const request = decodeGenerateRequest(body, model.inputs, model.maxBatchSize > 0);
  forwardHeaders(request, ctx.headerForwardPattern, Object.entries(ctx.req.headers));
  takeTraceContext(request, Object.entries(ctx.req.headers));
  if (ctx.req.signal) request.signal = ctx.req.signal;
  if (ctx.req.received) request.received = ctx.req.received;
  return request;
}

/** POST .../generate: one response object (a decoupled model must send exactly one response). */
async function handleGenerate(ctx: RouteContext): Promise<HttpAnswer> {
  const request = await generateRequest(ctx);
  let first: InferResponse | undefined;
  const count = await runToFinal((on) => ctx.service.inferStream(ctx.model!, ctx.version, request, undefined, on), (r) => (first ??= r));
  if (count !== 1) {
    throw ProtocolError.badRequest(`model '${ctx.model}' sent ${count} responses to a generate request, which answers exactly one; use generate_stream`);
  }
  return { status: 200, headers: JSON_HEADERS, body: Buffer.from(generateResponseText(first!), 'utf8') };
}

/**
 * POST .../generate_stream: each response as a Server-Sent Event (`data: {...}`), an error
 * response as `data: {"error": ...}`, as Triton sends them. The status goes out with the first
 * event; a request refused before any (a bad field, an unknown model) gets an ordinary error answer.
 */
function handleGenerateStream(ctx: RouteContext): Promise<HttpAnswer> {
  return generateRequest(ctx).then((request) => new Promise<HttpAnswer>((resolve, reject) => {
    const stream = new AnswerStream();
    let started = false;
    const event = (json: string): Buffer => Buffer.from(`data: ${json}\n\n`, 'utf8');
    const emit = (chunk: Buffer): void => {
      if (started) return stream.push(chunk);
      started = true;
      resolve({ status: 200, headers: SSE_HEADERS, body: chunk, stream });
    };
    ctx.service.inferStream(ctx.model!, ctx.version, request, undefined, (r) => {
      if (r.response) emit(event(generateResponseText(r.response)));
      if (r.error) emit(event(generateErrorText(r.error.message)));
    }).then(
      () => {
        if (!started) emit(EMPTY);  // no response at all: an empty stream
        stream.end();
      },
      (err: unknown) => {
        if (!started) return reject(err);
        stream.push(event(generateErrorText(toProtocolError(err).message)));
        stream.end();
      },
    );
  }));
}

const SSE_HEADERS = { 'Content-Type': 'text/event-stream; charset=utf-8', 'Cache-Control': 'no-cache' };

function parseHeaderLength(value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (!/^[0-9]+$/.test(value) || !Number.isSafeInteger(n)) {
    throw ProtocolError.badRequest(`Inference-Header-Content-Length must be a non-negative integer, got '${value}'`);
  }
  return n;
}

/** GET /v2/models/{m}/status, the form some Ascend guides use. */
function handleStatus({ service, model, version }: RouteContext): HttpAnswer {
  const versions = service.models.versions(model!);
  const chosen = version !== undefined ? versions.find((v) => v.version === version) : [...versions].reverse().find((v) => v.state === 'READY') ?? versions[versions.length - 1];
  if (!chosen) {
    const all = [...service.models.statuses()].filter((s) => s.name === model);
    const reason = all.map((s) => s.reason).find(Boolean);
    if (version !== undefined) throw ProtocolError.notFound(`Request for unknown model: '${model}' version ${version} is not found`);
    return jsonAnswer(200, { name: model, version: '', status: 'UNAVAILABLE', ...(reason ? { reason } : {}) });
  }
  const ready = chosen.state === 'READY';
  return jsonAnswer(200, { name: model, version: chosen.version, status: ready ? 'READY' : 'UNAVAILABLE', ...(!ready && chosen.reason ? { reason: chosen.reason } : {}) });
}

async function readJsonBody(ctx: RouteContext): Promise<Record<string, unknown>> {
  const body = await decodeContentEncoding(ctx.req.body, ctx.req.headers['content-encoding'], ctx.maxBody);
  if (body.byteLength === 0) return {};
  let parsed: unknown;
  try {
    parsed = JSON.parse(body.toString('utf8'));
  } catch (err) {
    throw ProtocolError.badRequest(`failed to parse the request JSON buffer: ${(err as Error).message}`);
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) throw ProtocolError.badRequest('the request JSON must be an object');
  return parsed as Record<string, unknown>;
}

async function handleIndex(ctx: RouteContext): Promise<HttpAnswer> {
  const body = await readJsonBody(ctx);
  if (body.ready !== undefined && typeof body.ready !== 'boolean') throw ProtocolError.badRequest(`'ready' must be a boolean, got ${JSON.stringify(body.ready)}`);
  return jsonAnswer(200, await ctx.service.models.index(body.ready === true));
}

async function handleLogging(ctx: RouteContext): Promise<HttpAnswer> {
  const changes = ctx.req.method === 'POST' ? await readJsonBody(ctx) : {};
  return jsonAnswer(200, ctx.service.logSettings(changes));
}

/** GET/POST /v2[/models/{m}]/trace/setting (the trace extension). */
async function handleTraceSetting(ctx: RouteContext): Promise<HttpAnswer> {
  const changes = ctx.req.method === 'POST' ? await readJsonBody(ctx) : undefined;
  return jsonAnswer(200, ctx.service.traceSettings(ctx.model, changes));
}

async function handleLoad(ctx: RouteContext): Promise<HttpAnswer> {
  const body = await readJsonBody(ctx);
  await ctx.service.models.requestLoad(ctx.model!, body.parameters);
  return jsonAnswer(200, {});
}

async function handleUnload(ctx: RouteContext): Promise<HttpAnswer> {
  const body = await readJsonBody(ctx);
  await ctx.service.models.requestUnload(ctx.model!, body.parameters);
  return jsonAnswer(200, {});
}

