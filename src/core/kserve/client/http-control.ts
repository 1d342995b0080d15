/**
 * KServe v2 over HTTP/1.1: the model's control plane (metadata, readiness, config, statistics) and
 * one-shot inference (http-infer.ts). Perf's data plane is HttpInferClient (http-load-client.ts).
 */
import http from 'node:http';
import https from 'node:https';
import type { Datatype, InferTensor, ModelStatistics, TensorMetadata } from '../../executor/types.js';
import { parseJsonAllowingNonFinite } from '../../json/nan-json.js';
import { latest } from './latest-stats.js';
import { errorText, modelRefused, sharedMemoryRefused, traceSettingsRefused, unreachable } from './server-errors.js';
import { normalizeBaseUrl } from './base-url.js';
import { httpInfer } from './http-infer.js';
import { httpHeaderObject, type RequestHeaders } from './request-headers.js';
import { isHttps, tlsOptions, type RemoteConnection } from './connection.js';
import type { ModelDescription, RemoteModel, TraceSettings } from './types.js';

export interface JsonReply {
  status: number;
  body: unknown;
}

/**
 * GET on the keep-alive agent. A server may close an idle keep-alive socket just as the agent
 * reuses it (EPIPE or ECONNRESET on a reused socket); the request, a GET, is sent once more on a
 * fresh socket, as HTTP clients do, instead of reporting a healthy server as unreachable.
 */
async function getJson(agent: http.Agent, base: string, path: string, headers?: RequestHeaders): Promise<JsonReply> {
  try {
    return await requestJsonOnce(agent, base, path, undefined, headers);
  } catch (err) {
    if (!(err instanceof StaleSocket)) throw err;
    return requestJsonOnce(agent, base, path, undefined, headers).catch((again: unknown) => {
      throw again instanceof StaleSocket ? unreachable(base, again.code) : again;
    });
  }
}

class StaleSocket extends Error {
  constructor(readonly code: string) {
    super(`a reused keep-alive socket failed (${code})`);
  }
}

/** One request (a GET, or a POST of `body` as JSON) and its JSON reply; `headers`: the user's (-H). */
function requestJsonOnce(agent: http.Agent, base: string, path: string, body?: unknown, headers?: RequestHeaders): Promise<JsonReply> {
  return new Promise((resolve, reject) => {
    const payload = body === undefined ? undefined : JSON.stringify(body);
    const extra = httpHeaderObject(headers);
    const options = payload === undefined ? { agent, headers: extra } : { agent, method: 'POST', headers: { ...extra, 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(payload) } };
    const req = (isHttps(base) ? https : http).request(`${base}${path}`, options, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        let body: unknown = text;
        try { body = text ? parseJsonAllowingNonFinite(text) : undefined; } catch { /* keep text */ }
        resolve({ status: res.statusCode ?? 0, body });
      });
      res.on('error', reject);
    });
    req.on('error', (err: NodeJS.ErrnoException) => {
      const stale = req.reusedSocket && (err.code === 'ECONNRESET' || err.code === 'EPIPE');
      reject(stale ? new StaleSocket(err.code!) : unreachable(base, err.code ?? err.message));
    });
    req.end(payload);
  });
}


/** A keep-alive agent for `base`, over TLS as `connection` says when it is https. */
export function httpAgent(base: string, connection: RemoteConnection | undefined, maxSockets: number): http.Agent {
  return isHttps(base) ? new https.Agent({ keepAlive: true, maxSockets, ...tlsOptions(connection) }) : new http.Agent({ keepAlive: true, maxSockets });
}

/**
 * One JSON request to a server outside an endpoint (a GET, or a POST of `body`): its status and
 * its body, parsed where it is JSON. Throws the unreachable error when nothing answers.
 */
export async function requestServerJson(url: string, path: string, body: unknown, connection?: RemoteConnection): Promise<JsonReply> {
  const base = normalizeBaseUrl(url);
  const agent = httpAgent(base, connection, 1);
  try {
    return await requestJsonOnce(agent, base, path, body, connection?.headers);
  } finally {
    agent.destroy();
  }
}

export class HttpModelEndpoint implements RemoteModel {
  private readonly agent: http.Agent;
  private readonly base: string;
  private version?: string;

  /** `connection`: TLS for an https:// URL, and the user's headers on every request (perf_analyzer's -H). */
  constructor(url: string, private readonly model: string, requestedVersion?: string, private readonly connection?: RemoteConnection) {
    this.base = normalizeBaseUrl(url);
    this.agent = httpAgent(this.base, connection, 2);
    this.version = requestedVersion;
  }

  private modelPath(): string {
    const m = encodeURIComponent(this.model);
    return this.version ? `/v2/models/${m}/versions/${encodeURIComponent(this.version)}` : `/v2/models/${m}`;
  }

  async describe(): Promise<ModelDescription> {
    const meta = await getJson(this.agent, this.base, this.modelPath(), this.connection?.headers);
    if (meta.status !== 200) {
      const what = this.version ? `model "${this.model}" version ${this.version}` : `model "${this.model}"`;
      let known: string[] = [];
      if (meta.status === 404 || meta.status === 400) {
        const index = await getJson(this.agent, this.base, '/v2/models/stats', this.connection?.headers).catch(() => undefined);
        known = (index?.body as { model_stats?: Array<{ name: string }> } | undefined)?.model_stats?.map((s) => s.name) ?? [];
      }
      throw modelRefused(what, this.base, { http: meta.status }, errorText(meta.body), known);
    }
    const body = meta.body as { name: string; versions?: string[]; inputs: TensorMetadata[]; outputs: TensorMetadata[] };
    // Address one version explicitly so statistics and inference refer to the same one.
    if (!this.version && body.versions && body.versions.length > 0) {
      this.version = [...body.versions].sort((a, b) => Number(b) - Number(a))[0];
    }
    const ready = await getJson(this.agent, this.base, `${this.modelPath()}/ready`, this.connection?.headers);
    if (ready.status !== 200) {
      throw modelRefused(`model "${this.model}"${this.version ? ` version ${this.version}` : ''}`, this.base, { http: 503 }, `ready answered HTTP ${ready.status}`);
    }
    const config = await getJson(this.agent, this.base, `${this.modelPath()}/config`, this.connection?.headers);
    let maxBatchSize: number;
    if (config.status === 200 && config.body && typeof config.body === 'object') {
      maxBatchSize = Number((config.body as { max_batch_size?: number }).max_batch_size ?? 0);
    } else {
      // Without the config extension, a leading -1 on every input is the sign of a batching model.
      maxBatchSize = body.inputs.every((i) => i.shape[0] === -1) ? Number.MAX_SAFE_INTEGER : 0;
    }
    return {
      name: body.name,
      version: this.version ?? '',
      maxBatchSize,
      inputs: body.inputs.map((i) => ({ name: i.name, datatype: i.datatype as Datatype, shape: i.shape.map(Number) })),
      outputs: body.outputs.map((o) => ({ name: o.name, datatype: o.datatype as Datatype, shape: o.shape.map(Number) })),
      ...(config.status === 200 && config.body && typeof config.body === 'object' ? { config: config.body as Record<string, unknown> } : {}),
    };
  }

  async statistics(): Promise<ModelStatistics | undefined> {
    const reply = await getJson(this.agent, this.base, `${this.modelPath()}/stats`, this.connection?.headers);
    if (reply.status !== 200) return undefined;
    const stats = (reply.body as { model_stats?: ModelStatistics[] }).model_stats;
    if (!stats || stats.length === 0) return undefined;
    return stats.find((s) => s.version === this.version) ?? stats[0];
  }

  async statisticsOf(model: string): Promise<ModelStatistics | undefined> {
    const reply = await getJson(this.agent, this.base, `/v2/models/${encodeURIComponent(model)}/stats`, this.connection?.headers);
    if (reply.status !== 200) return undefined;
    return latest((reply.body as { model_stats?: ModelStatistics[] }).model_stats);
  }

  /** Triton's system shared-memory extension: registers bytes [offset, offset + byteSize) of POSIX shared-memory object `key` as region `name`. */
  async registerSystemSharedMemory(name: string, key: string, offset: number, byteSize: number): Promise<void> {
    const reply = await requestJsonOnce(this.agent, this.base, `/v2/systemsharedmemory/region/${encodeURIComponent(name)}/register`, { key, offset, byte_size: byteSize }, this.connection?.headers);
    if (reply.status !== 200) throw sharedMemoryRefused(this.base, name, errorText(reply.body));
  }

  /** Unregisters region `name`; a failure is not reported (the run is ending). */
  async unregisterSystemSharedMemory(name: string): Promise<void> {
    await requestJsonOnce(this.agent, this.base, `/v2/systemsharedmemory/region/${encodeURIComponent(name)}/unregister`, {}, this.connection?.headers).catch(() => undefined);
  }

  /** Triton's trace extension: applies `settings` to `model`'s own trace setting (undefined: the global one) and answers the settings. */
  async updateTraceSettings(model: string | undefined, settings: TraceSettings): Promise<Record<string, string | string[]>> {
    const path = model === undefined ? '/v2/trace/setting' : `/v2/models/${encodeURIComponent(model)}/trace/setting`;
    const reply = await requestJsonOnce(this.agent, this.base, path, settings, this.connection?.headers);
    if (reply.status !== 200) throw traceSettingsRefused(this.base, errorText(reply.body));
    return reply.body as Record<string, string | string[]>;
  }

  /** The infer path for the version describe() settled on. */
  inferPath(): string {
    return `${this.modelPath()}/infer`;
  }

  where(): string {
    return this.base;
  }

  infer(inputs: InferTensor[], outputs: string[]): Promise<InferTensor[]> {
    return httpInfer(this.base, this.inferPath(), inputs, outputs, this.connection);
  }

  async close(): Promise<void> {
    this.agent.destroy();
  }
}
