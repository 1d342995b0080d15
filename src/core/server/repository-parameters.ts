/**
 * Parameters of a repository load request (Triton's model repository extension): `config` carries a
 * ModelConfig as JSON that replaces config.pbtxt for this load. `file:` parameters (model files sent
 * inline) are refused with a message saying what to do instead; a `config` over the size or
 * nesting a config may have is refused before it is parsed.
 */
import { MAX_CONFIG_NESTING } from '../config/limits.js';
import type { ModelConfig } from '../config/model-config.js';
import { MAX_CONFIG_BYTES } from '../repository/read-config.js';
import { configFromJson } from './config-json.js';
import { clientText, ProtocolError } from '../kserve/protocol-error.js';

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
      checkConfigBounds(value, model);
      out.config = configFromJson(value, model);
    } else if (key.startsWith('file:')) {
      throw ProtocolError.unsupported(`load parameter '${clientText(key)}' for '${model}': gebe does not accept model files inline; put the file into the model's directory in the repository and load again`);
    } else {
      throw ProtocolError.badRequest(`unknown load parameter '${clientText(key)}' for '${model}'; gebe accepts 'config'`);
    }
  }
  return out;
}

/**
 * Parameters of a repository unload request: `unload_dependents` (Triton's optional component of the
 * extension) also unloads the models an ensemble loaded for itself. Other keys are ignored, as Triton does.
 */
export function parseUnloadParameters(parameters: unknown, model: string): { unloadDependents: boolean } {
  if (parameters === undefined || parameters === null) return { unloadDependents: false };
  if (typeof parameters !== 'object' || Array.isArray(parameters)) {
    throw ProtocolError.badRequest(`'parameters' of the unload request for '${model}' must be an object`);
  }
  const value = (parameters as Record<string, unknown>).unload_dependents;
  if (value !== undefined && typeof value !== 'boolean') {
    throw ProtocolError.badRequest(`unload parameter 'unload_dependents' for '${model}' must be a boolean, got ${clientText(JSON.stringify(value) ?? String(value))}`);
  }
  return { unloadDependents: value === true };
}

/**
 * The same bounds a config.pbtxt on disk has (size, nesting), checked on the raw text before it
 * is parsed: JSON.parse of a flat 30 MB value costs over a gigabyte, and a deep one overflows the
 * stack of whatever walks it next.
 */
function checkConfigBounds(text: string, model: string): void {
  const bytes = Buffer.byteLength(text);
  if (bytes > MAX_CONFIG_BYTES) {
    throw ProtocolError.badRequest(`load parameter 'config' for '${model}' is ${bytes} bytes, over the limit of ${MAX_CONFIG_BYTES} bytes for a config`);
  }
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c) i++; // a backslash escapes the next character
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x5b || c === 0x7b) {
      if (++depth > MAX_CONFIG_NESTING) {
        throw ProtocolError.badRequest(`load parameter 'config' for '${model}' nests objects and arrays more than ${MAX_CONFIG_NESTING} levels deep, over the limit for a config`);
      }
    } else if (c === 0x5d || c === 0x7d) depth--;
  }
}
