/**
 * Triton's logging extension (GET/POST /v2/logging, gRPC LogSettings): the settings in Triton's
 * names, and the one check of a client's changes for both protocols. Changes are checked as a
 * whole before any is applied, so a refused request changes nothing.
 */
import { ProtocolError } from '../kserve/protocol-error.js';
import type { LogControl, LogFormat, LogSettings } from './logger.js';

export type LogSettingValue = string | boolean | number;

/** The settings as Triton answers them: log_file is --log-file's path, or "" for stderr. */
export function logSettingsAnswer(control: LogControl): Record<string, LogSettingValue> {
  const s = control.settings;
  return {
    log_file: s.file, log_info: s.info, log_warning: s.warning, log_error: s.error, log_verbose_level: s.verboseLevel,
    log_format: s.format === 'json' ? 'json' : 'ISO8601',
  };
}

const BOOLEAN_SETTINGS = { log_info: 'info', log_warning: 'warning', log_error: 'error' } as const;
const KNOWN = ['log_file', 'log_info', 'log_warning', 'log_error', 'log_verbose_level', 'log_format'];
/** log_format's values: Triton's two ("default" and "ISO8601": gebe's text lines, which start with an ISO 8601 time) and gebe's json. */
const FORMATS: Record<string, LogFormat> = { default: 'text', ISO8601: 'text', json: 'json' };
/** Verbose levels above this are refused (gebe has one; Triton takes any uint32). */
const MAX_VERBOSE_LEVEL = 0xffffffff;

/** Checks `changes` (a setting's name → its new value; null leaves it as it is, as in Triton) and applies them. */
export function applyLogSettings(control: LogControl, changes: Record<string, unknown>): void {
  const next: Partial<LogSettings> = {};
  for (const [name, value] of Object.entries(changes)) {
    if (value === null || value === undefined) continue;
    if (!KNOWN.includes(name)) {
      throw ProtocolError.badRequest(`unknown log setting '${name.slice(0, 100)}'; the settings are ${KNOWN.join(', ')}`);
    }
    const got = JSON.stringify(value)?.slice(0, 100);
    if (name === 'log_file') {
      throw ProtocolError.badRequest('log file location can not be updated through network protocol (it is set at start with --log-file)');
    } else if (name in BOOLEAN_SETTINGS) {
      if (typeof value !== 'boolean') throw ProtocolError.badRequest(`log setting '${name}' must be a boolean, got ${got}`);
      next[BOOLEAN_SETTINGS[name as keyof typeof BOOLEAN_SETTINGS]] = value;
    } else if (name === 'log_verbose_level') {
      if (!Number.isSafeInteger(value) || (value as number) < 0 || (value as number) > MAX_VERBOSE_LEVEL) {
        throw ProtocolError.badRequest(`log setting 'log_verbose_level' must be an unsigned 32-bit integer, got ${got}`);
      }
      next.verboseLevel = value as number;
    } else {
      const format = typeof value === 'string' && Object.hasOwn(FORMATS, value) ? FORMATS[value] : undefined;
      if (!format) {
        throw ProtocolError.badRequest(`invalid argument for --log_format, got: ${got}; use ${Object.keys(FORMATS).join(', ')}`);
      }
      next.format = format;
    }
  }
  control.set(next);
}
