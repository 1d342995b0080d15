/**
 * The KServe v2 HTTP routes and Triton's extensions, as a small table of path patterns. Handlers
 * translate between HTTP and the InferenceService; they never touch models directly.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { decodeHttpInferRequest } from '../codec/http-infer-request.js';
import { encodeHttpInferResponse } from '../codec/http-infer-response.js';
import type { InferenceService } from '../inference-service.js';
import { ProtocolError } from '../protocol-error.js';
import { parseLoadParameters } from '../repository-parameters.js';
import { readBody } from './body.js';
import { sendEmpty, sendInferResponse, sendJson } from './respond.js';

export interface RouteContext {
  req: IncomingMessage;
  res: ServerResponse;
  service: InferenceService;
  maxBody: number;
  /** Path parameters: model, version. */
  model?: string;
  version?: string;
}

type Handler = (ctx: RouteContext) => Promise<void> | void;

interface Route {
  method: 'GET' | 'POST';
  handler: Handler;
}

/** Splits /v2/models/{m}[/versions/{v}][/action] into its parts; undefined if it is not that shape. */
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
  if (rest.length > 1) return undefined;
  return { model, version, action: rest[0] ?? '' };
}

const MODEL_ROUTES: Record<string, Route> = {
  '': { method: 'GET', handler: ({ res, service, model, version }) => sendJson(res, 200, service.modelMetadata(model!, version)) },
  ready: { method: 'GET', handler: ({ res, service, model, version }) => sendEmpty(res, service.modelReady(model!, version) ? 200 : 400) },
  infer: { method: 'POST', handler: handleInfer },
  config: { method: 'GET', handler: ({ res, service, model, version }) => sendJson(res, 200, service.modelConfig(model!, version)) },
  stats: { method: 'GET', handler: ({ res, service, model, version }) => sendJson(res, 200, { model_stats: service.statistics(model, version) }) },
  status: { method: 'GET', handler: handleStatus },
};

const FIXED_ROUTES: Record<string, Route> = {
  '/v2': { method: 'GET', handler: ({ res, service }) => sendJson(res, 200, service.serverMetadata()) },
  '/v2/health/live': { method: 'GET', handler: ({ res }) => sendEmpty(res, 200) },
  '/v2/health/ready': { method: 'GET', handler: ({ res, service }) => sendEmpty(res, service.serverReady() ? 200 : 400) },
  '/v2/models/stats': { method: 'GET', handler: ({ res, service }) => sendJson(res, 200, { model_stats: service.statistics() }) },
  '/v2/repository/index': { method: 'POST', handler: handleIndex },
};

/** Finds the route for a request; throws 404/405 ProtocolErrors for the rest. */
export function route(method: string, url: string): { route: Route; model?: string; version?: string } {
  const q = url.indexOf('?');
  const path = q >= 0 ? url.slice(0, q) : url;
  const trimmed = path.length > 1 && path.endsWith('/') ? path.slice(0, -1) : path;
  let found: Route | undefined = FIXED_ROUTES[trimmed];
  let model: string | undefined;
  let version: string | undefined;
  if (!found) {
    const segments = trimmed.split('/').slice(1).map(safeDecode);
    const repo = segments.length === 5 && segments[0] === 'v2' && segments[1] === 'repository' && segments[2] === 'models' ? segments : undefined;
    if (repo && (repo[4] === 'load' || repo[4] === 'unload')) {
      found = { method: 'POST', handler: repo[4] === 'load' ? handleLoad : handleUnload };
      model = repo[3];
    } else {
      const parsed = parseModelPath(segments);
      found = parsed ? MODEL_ROUTES[parsed.action] : undefined;
      model = parsed?.model;
      version = parsed?.version;
    }
  }
  if (!found) throw ProtocolError.notFound(`no endpoint ${method} ${path}; gebe serves the KServe v2 protocol under /v2`);
  if (found.method !== method && !(method === 'HEAD' && found.method === 'GET')) {
    throw new ProtocolError(`${method} is not allowed on ${path}; use ${found.method}`, 400);
  }
  if (version !== undefined && !/^[0-9]+$/.test(version)) {
    throw ProtocolError.badRequest(`model version '${version}' in ${path} is not a number; versions are the numeric directory names`);
  }
  return { route: found, model, version };
}

function safeDecode(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    throw ProtocolError.badRequest(`path segment '${segment}' is not valid percent-encoding`);
  }
}

async function handleInfer(ctx: RouteContext): Promise<void> {
  const body = await readBody(ctx.req, ctx.maxBody);
  const headerValue = ctx.req.headers['inference-header-content-length'];
  let headerLength: number | undefined;
  if (headerValue !== undefined) {
    headerLength = Number(headerValue);
    if (!/^[0-9]+$/.test(String(headerValue)) || !Number.isSafeInteger(headerLength)) {
      throw ProtocolError.badRequest(`Inference-Header-Content-Length must be a non-negative integer, got '${String(headerValue)}'`);
    }
  }
  const { request, encoding } = decodeHttpInferRequest(body, headerLength);
  const response = await ctx.service.infer(ctx.model!, ctx.version, request);
  sendInferResponse(ctx.res, encodeHttpInferResponse(response, encoding));
}

/** GET /v2/models/{m}/status, the form some Ascend guides use. */
function handleStatus({ res, service, model, version }: RouteContext): void {
  const versions = service.models.versions(model!);
  const chosen = version !== undefined ? versions.find((v) => v.version === version) : [...versions].reverse().find((v) => v.state === 'READY') ?? versions[versions.length - 1];
  if (!chosen) {
    const all = [...service.models.statuses()].filter((s) => s.name === model);
    const reason = all.map((s) => s.reason).find(Boolean);
    if (version !== undefined) throw ProtocolError.notFound(`Request for unknown model: '${model}' version ${version} is not found`);
    sendJson(res, 200, { name: model, version: '', status: 'UNAVAILABLE', ...(reason ? { reason } : {}) });
    return;
  }
  const ready = chosen.state === 'READY';
  sendJson(res, 200, { name: model, version: chosen.version, status: ready ? 'READY' : 'UNAVAILABLE', ...(!ready && chosen.reason ? { reason: chosen.reason } : {}) });
}

async function readJsonBody(ctx: RouteContext): Promise<Record<string, unknown>> {
  const body = await readBody(ctx.req, ctx.maxBody);
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

async function handleIndex(ctx: RouteContext): Promise<void> {
  const body = await readJsonBody(ctx);
  if (body.ready !== undefined && typeof body.ready !== 'boolean') throw ProtocolError.badRequest(`'ready' must be a boolean, got ${JSON.stringify(body.ready)}`);
  sendJson(ctx.res, 200, await ctx.service.models.index(body.ready === true));
}

async function handleLoad(ctx: RouteContext): Promise<void> {
  const body = await readJsonBody(ctx);
  const { config } = parseLoadParameters(body.parameters, ctx.model!);
  ctx.service.requireExplicitControl('load');
  await ctx.service.models.load(ctx.model!, config);
  sendJson(ctx.res, 200, {});
}

async function handleUnload(ctx: RouteContext): Promise<void> {
  await readJsonBody(ctx);
  ctx.service.requireExplicitControl('unload');
  await ctx.service.models.unload(ctx.model!);
  sendJson(ctx.res, 200, {});
}

