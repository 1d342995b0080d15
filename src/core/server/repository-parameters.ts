/**
 * Parameters of a repository load request (Triton's model repository extension): `config` carries a
 * ModelConfig as JSON that replaces config.pbtxt for this load. `file:` parameters (model files sent
 * inline) are refused with a message saying what to do instead.
 */
import type { ModelConfig } from '../config/model-config.js';
import { configFromJson } from './config-json.js';
import { ProtocolError } from './protocol-error.js';

export interface LoadParameters {
  config?: ModelConfig;
}

/** `parameters` as sent over HTTP (plain JSON values) or gRPC (already unwrapped to plain values). */
export function parseLoadParameters(parameters: unknown, model: string): LoadParameters {
  if (parameters === undefined) return {};
  if (parameters === null || typeof parameters !== 'object' || Array.isArray(parameters)) {
    throw ProtocolError.badRequest(`'parameters' of the load request for '${model}' must be an object`);
  }
  const out: LoadParameters = {};
  for (const [key, value] of Object.entries(parameters as Record<string, unknown>)) {
    if (key === 'config') {
      if (typeof value !== 'string') throw ProtocolError.badRequest(`load parameter 'config' for '${model}' must be a string holding the model configuration as JSON`);
      out.config = configFromJson(value, model);
    } else if (key.startsWith('file:')) {
      throw ProtocolError.unsupported(`load parameter '${key}' for '${model}': gebe does not accept model files inline; put the file into the repository (<repo>/${model}/${key.slice(5)}) and load again`);
    } else {
      throw ProtocolError.badRequest(`unknown load parameter '${key}' for '${model}'; gebe accepts 'config'`);
    }
  }
  return out;
}
