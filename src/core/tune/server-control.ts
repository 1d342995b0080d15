/**
 * Trials against a running server: Triton's model-control API reloads the model with each
 * candidate's config (`POST /v2/repository/models/<m>/load` with `parameters.config`, which
 * gebe serve and Triton accept in explicit model-control mode), and the config extension
 * (`GET /v2/models/<m>/config`) gives the config to start from. Through the KServe client, so
 * TLS and the user's headers (-H) reach these requests as every other.
 */
import { GebeError } from '../../errors.js';
import type { ModelConfig } from '../config/model-config.js';
import { normalizeBaseUrl } from '../kserve/client/base-url.js';
import type { RemoteConnection } from '../kserve/client/connection.js';
import { requestServerJson } from '../kserve/client/http-control.js';

async function call(url: string, path: string, body: unknown, what: string, connection: RemoteConnection | undefined): Promise<unknown> {
  const reply = await requestServerJson(url, path, body, connection);
  if (reply.status < 200 || reply.status >= 300) {
    const error = (reply.body as { error?: string } | undefined)?.error ?? String(reply.body ?? '').slice(0, 200);
    const hint = reply.status === 503 || /explicit/i.test(error) ? 'start the server with --model-control-mode explicit so tune may reload the model per trial' : undefined;
    throw new GebeError(`${normalizeBaseUrl(url)}${path} answered HTTP ${reply.status} when asked to ${what}: ${error}`, hint ? { hint } : {});
  }
  return reply.body ?? {};
}

export async function fetchServerConfig(url: string, model: string, connection?: RemoteConnection): Promise<ModelConfig> {
  return (await call(url, `/v2/models/${encodeURIComponent(model)}/config`, undefined, `read the config of "${model}"`, connection)) as ModelConfig;
}

/** Reloads `model` on the server with `config` (the server swaps versions in when they are ready). */
export async function loadOnServer(url: string, model: string, config: ModelConfig, connection?: RemoteConnection): Promise<void> {
  await call(url, `/v2/repository/models/${encodeURIComponent(model)}/load`, { parameters: { config: JSON.stringify({ ...config, name: model }) } },
    `load "${model}" with a trial config`, connection);
}
