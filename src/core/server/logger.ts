/**
 * One line per server event, as text (`2026-01-01T00:00:00.000Z I model ready model=mnist`) or as
 * JSON objects (`--log-format json`) for log collectors. Verbose lines only with `--log-verbose`.
 */
import type { Writable } from '../../io.js';

export type LogFormat = 'text' | 'json';
export type LogFields = Record<string, string | number | boolean | undefined>;

export interface Logger {
  info(message: string, fields?: LogFields): void;
  warn(message: string, fields?: LogFields): void;
  error(message: string, fields?: LogFields): void;
  verbose(message: string, fields?: LogFields): void;
  readonly verboseEnabled: boolean;
}

const LEVEL_LETTER = { info: 'I', warn: 'W', error: 'E', verbose: 'V' } as const;

export function createLogger(out: Writable, format: LogFormat = 'text', verbose = false, now: () => Date = () => new Date()): Logger {
  const write = (level: keyof typeof LEVEL_LETTER, message: string, fields: LogFields = {}): void => {
    const time = now().toISOString();
    if (format === 'json') {
      out.write(`${JSON.stringify({ time, level, message, ...fields })}\n`);
      return;
    }
    const extra = Object.entries(fields)
      .filter(([, v]) => v !== undefined)
      .map(([k, v]) => `${k}=${typeof v === 'string' && /[\s"=]/.test(v) ? JSON.stringify(v) : String(v)}`)
      .join(' ');
    out.write(`${time} ${LEVEL_LETTER[level]} ${message}${extra ? ` ${extra}` : ''}\n`);
  };
  return {
    info: (m, f) => write('info', m, f),
    warn: (m, f) => write('warn', m, f),
    error: (m, f) => write('error', m, f),
    verbose: (m, f) => (verbose ? write('verbose', m, f) : undefined),
    verboseEnabled: verbose,
  };
}

/** A logger that drops everything (library use and tests that do not read logs). */
export const silentLogger: Logger = { info() {}, warn() {}, error() {}, verbose() {}, verboseEnabled: false };
