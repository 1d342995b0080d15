/**
 * Triton's --trace-config for gebe serve: `<setting>=<value>` for the global settings (rate, level,
 * count, mode) and `triton,<setting>=<value>` for the trace file's (file, log-frequency), each
 * flag one setting, repeatable. The values go through the trace extension's own check
 * (server/trace-settings.ts), so the flag and the API accept the same things.
 */
import path from 'node:path';
import { UsageError } from '../../errors.js';
import { checkWritableFile } from './writable-file.js';
import { ProtocolError } from '../../core/kserve/protocol-error.js';
import { DEFAULT_TRACE_SETTING, parseSetting, type TraceSetting } from '../../core/server/trace-settings.js';

/** --trace-config's names → the trace extension's. */
const API_NAME: Record<string, string> = { rate: 'trace_rate', level: 'trace_level', count: 'trace_count', mode: 'trace_mode', 'log-frequency': 'log_frequency' };
const FLAG = '--trace-config';

export interface TraceConfig {
  /** The trace file, resolved; '' when none was given. */
  file: string;
  setting: TraceSetting;
}

export function parseTraceConfig(specs: string[], cwd: string): TraceConfig {
  let file = '';
  const setting: TraceSetting = { ...DEFAULT_TRACE_SETTING };
  const levels: string[] = [];
  for (const spec of specs) {
    const m = /^(?:(triton|opentelemetry),)?([a-z_-]+)=(.*)$/.exec(spec);
    if (!m) throw new UsageError(`${FLAG} must be [triton,]<setting>=<value>, got '${spec}'`, `for example ${FLAG} triton,file=/tmp/trace.json ${FLAG} level=TIMESTAMPS ${FLAG} rate=1`);
    const [, mode, name, value] = m as unknown as [string, string | undefined, string, string];
    if (mode === 'opentelemetry' || (name === 'mode' && value === 'opentelemetry')) {
      throw new UsageError(`${FLAG} '${spec}': gebe writes Triton's JSON trace files only (mode triton); OpenTelemetry export is not supported`);
    }
    if (name === 'file') {
      if (value === '') throw new UsageError(`${FLAG} triton,file= needs a path`);
      file = path.resolve(cwd, value);
      continue;
    }
    const apiName = API_NAME[name];
    if (!apiName) throw new UsageError(`${FLAG}: unknown setting '${name}'`, 'the settings are file and log-frequency (after triton,), rate, level, count and mode');
    if (name === 'level') {
      levels.push(value);
      continue;
    }
    Object.assign(setting, checked(spec, () => parseSetting(apiName, value, file)));
  }
  if (levels.length > 0) Object.assign(setting, checked(`level=${levels.join(',')}`, () => parseSetting('trace_level', levels, file)));
  if ((setting.timestamps || setting.tensors) && file === '') {
    throw new UsageError(`${FLAG} level=${levels.filter((l) => l !== 'OFF').join(',')} needs a file to write the traces to`, `add ${FLAG} triton,file=<path>`);
  }
  if (file !== '') checkWritableFile(file, `${FLAG} triton,file=${file}`, 'trace.json');
  return { file, setting };
}

/** The trace extension's refusal of a value, as a usage error naming the flag. */
function checked<T>(spec: string, parse: () => T): T {
  try {
    return parse();
  } catch (err) {
    if (err instanceof ProtocolError) throw new UsageError(`${FLAG} '${spec}': ${err.message}`);
    throw err;
  }
}
