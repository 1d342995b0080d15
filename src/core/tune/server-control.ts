/**
 * Trials against a running server: Triton's model-control API reloads the model with each
 * candidate's config (`POST /v2/repository/models/<m>/load` with `parameters.config`, which
 * gebe serve and Triton accept in explicit model-control mode), and the config extension
 * (`GET /v2/models/<m>/config`) gives the config to start from.
 */
import { GebeError } from '../../errors.js';
import { parseJsonAllowingNonFinite } from '../json/nan-json.js';
import type { ModelConfig } from '../config/model-config.js';
import { normalizeBaseUrl } from '../kserve/client/base-url.js';
import { httpHeaderObject, type RequestHeaders } from '../kserve/client/request-headers.js';

/** `headers`: the user's (-H), added to the request. */
async function call(url: string, init: RequestInit, what: string, headers?: RequestHeaders): Promise<unknown> {
  let res: Response;
  try {
    res = await fetch(url, { ...init, headers: { ...httpHeaderObject(headers), ...(init.headers as Record<string, string> | undefined) } });
  } catch (err) {
    throw new GebeError(`cannot reach ${url} to ${what}: ${((err as Error).cause as Error | undefined)?.message ?? (err as Error).message}`, { hint: 'check -u and that the server is running' });
  }
  const text = await res.text();
  let body: unknown;
  try {
    body = text === '' ? {} : parseJsonAllowingNonFinite(text);
  } catch {
    body = { error: text.slice(0, 200) };
  }
  if (!res.ok) {
    const error = (body as { error?: string }).error ?? text.slice(0, 200);
    const hint = res.status === 503 || /explicit/i.test(error) ? 'start the server with --model-control-mode explicit so tune may reload the model per trial' : undefined;
    throw new GebeError(`${url} answered HTTP ${res.status} when asked to ${what}: ${error}`, hint ? { hint } : {});
  }
  return body;
}

export async function fetchServerConfig(url: string, model: string, headers?: RequestHeaders): Promise<ModelConfig> {
  return (await call(`${normalizeBaseUrl(url)}/v2/models/${encodeURIComponent(model)}/config`, {}, `read the config of "${model}"`, headers)) as ModelConfig;
}

/** Reloads `model` on the server with `config` (the server swaps versions in when they are ready). */
export async function loadOnServer(url: string, model: string, config: ModelConfig, headers?: RequestHeaders): Promise<void> {
  await call(`${normalizeBaseUrl(url)}/v2/repository/models/${encodeURIComponent(model)}/load`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ parameters: { config: JSON.stringify({ ...config, name: model }) } }),
  }, `load "${model}" with a trial config`, headers);
}
