/**
 * One line per server event, as text (`2026-01-01T00:00:00.000Z I model ready model=mnist`) or as
 * JSON objects (`--log-format json`) for log collectors. Verbose lines only with `--log-verbose`, or
 * once a client has turned them on (the logging extension: `control`, server/log-settings.ts).
 * Warnings and errors are rate-limited per message: a client sending bad requests in a loop cannot
 * flood the log; the lines left out are counted on the next one that is written.
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
  /** What may change while the server runs (Triton's logging extension); absent: nothing may. */
  readonly control?: LogControl;
}

/** Which lines are written, and how (the settings of Triton's logging extension gebe has). */
export interface LogSettings {
  info: boolean;
  warning: boolean;
  error: boolean;
  /** 0: no verbose lines; gebe has one verbose level, so any higher number writes them all. */
  verboseLevel: number;
  format: LogFormat;
  /** Where the lines go: Triton's --log-file, or '' for stderr. Fixed at start. */
  file: string;
}

export interface LogControl {
  readonly settings: Readonly<LogSettings>;
  /** Applies `changes` (checked by the caller: server/log-settings.ts). */
  set(changes: Partial<LogSettings>): void;
  /** Calls `listener` whenever verbose logging turns on or off; returns the way to stop. */
  onVerboseChange(listener: (on: boolean) => void): () => void;
}

const LEVEL_LETTER = { info: 'I', warn: 'W', error: 'E', verbose: 'V' } as const;

/** Lines of one warn/error message written per second; the rest are counted, not written. */
export const LOG_LINES_PER_SECOND = 10;
/** Messages tracked at once (a bound on the limiter's own memory). */
const TRACKED_MESSAGES = 1000;

interface Window {
  start: number;
  written: number;
  suppressed: number;
}

/** `file`: the path `out` writes to, when it is Triton's --log-file (the logging extension answers it). */
export function createLogger(out: Writable, format: LogFormat = 'text', verbose = false, now: () => Date = () => new Date(), file = ''): Logger {
  const settings: LogSettings = { info: true, warning: true, error: true, verboseLevel: verbose ? 1 : 0, format, file };
  const verboseListeners = new Set<(on: boolean) => void>();
  const control: LogControl = {
    settings,
    set(changes) {
      const was = settings.verboseLevel > 0;
      Object.assign(settings, changes);
      if (was !== settings.verboseLevel > 0) for (const listener of verboseListeners) listener(!was);
    },
    onVerboseChange(listener) {
      verboseListeners.add(listener);
      return () => verboseListeners.delete(listener);
    },
  };
  const write = (level: keyof typeof LEVEL_LETTER, message: string, fields: LogFields = {}): void => {
    const time = now().toISOString();
    if (settings.format === 'json') {
      out.write(`${JSON.stringify({ time, level, message, ...fields })}\n`);
      return;
    }
    const extra = Object.entries(fields)
      .filter(([, v]) => v !== undefined)
      .map(([k, v]) => `${k}=${typeof v === 'string' && /[\s"=]/.test(v) ? JSON.stringify(v) : String(v)}`)
      .join(' ');
    out.write(`${time} ${LEVEL_LETTER[level]} ${message}${extra ? ` ${extra}` : ''}\n`);
  };
  const windows = new Map<string, Window>();
  const limited = (level: 'warn' | 'error', message: string, fields?: LogFields): void => {
    const t = now().getTime();
    let w = windows.get(message);
    if (!w || t - w.start >= 1000) {
      const suppressed = w?.suppressed ?? 0;
      if (!w && windows.size >= TRACKED_MESSAGES) windows.clear();
      w = { start: t, written: 0, suppressed: 0 };
      windows.set(message, w);
      if (suppressed > 0) fields = { ...fields, suppressed_before: suppressed };
    }
    if (w.written >= LOG_LINES_PER_SECOND) {
      w.suppressed++;
      return;
    }
    w.written++;
    write(level, message, fields);
  };
  return {
    info: (m, f) => (settings.info ? write('info', m, f) : undefined),
    warn: (m, f) => (settings.warning ? limited('warn', m, f) : undefined),
    error: (m, f) => (settings.error ? limited('error', m, f) : undefined),
    verbose: (m, f) => (settings.verboseLevel > 0 ? write('verbose', m, f) : undefined),
    get verboseEnabled() {
      return settings.verboseLevel > 0;
    },
    control,
  };
}

/** A logger that drops everything (library use and tests that do not read logs). */
export const silentLogger: Logger = { info() {}, warn() {}, error() {}, verbose() {}, verboseEnabled: false };
