/**
 * Triton's --trace-config for gebe serve: `<setting>=<value>` for the global settings (rate, level,
 * count, mode), `triton,<setting>=<value>` for the trace file's (file, log-frequency) and
 * `opentelemetry,<setting>=<value>` for the OpenTelemetry exporter's (url, resource, and the batch
 * span processor's bsp_max_queue_size, bsp_schedule_delay, bsp_max_export_batch_size), each flag
 * one setting, repeatable. The values go through the trace extension's own check
 * (server/trace-settings.ts), so the flag and the API accept the same things.
 */
import path from 'node:path';
import { UsageError } from '../../errors.js';
import { checkWritableFile } from './writable-file.js';
import { ProtocolError } from '../../core/kserve/protocol-error.js';
import { DEFAULT_TRACE_SETTING, parseSetting, TRACE_MODES, type TraceMode, type TraceSetting } from '../../core/server/trace-settings.js';
import { DEFAULT_OTEL_OPTIONS, type OtelOptions } from '../../core/server/otel-exporter.js';

/** --trace-config's names → the trace extension's. */
const API_NAME: Record<string, string> = { rate: 'trace_rate', level: 'trace_level', count: 'trace_count', mode: 'trace_mode', 'log-frequency': 'log_frequency' };
const FLAG = '--trace-config';

export interface TraceConfig {
  /** Where traces go (mode=, default triton). */
  mode: TraceMode;
  /** The trace file, resolved; '' when none was given. */
  file: string;
  setting: TraceSetting;
  /** The OpenTelemetry exporter's settings (used in mode opentelemetry). */
  otel: OtelOptions;
}

/** The batch span processor's settings: --trace-config's name, OpenTelemetry's variable, the option, its bounds. */
const BSP_SETTINGS = [
  { name: 'bsp_max_queue_size', env: 'OTEL_BSP_MAX_QUEUE_SIZE', key: 'maxQueueSize', max: 1 << 20 },
  { name: 'bsp_schedule_delay', env: 'OTEL_BSP_SCHEDULE_DELAY', key: 'scheduleDelayMs', max: 3_600_000 },
  { name: 'bsp_max_export_batch_size', env: 'OTEL_BSP_MAX_EXPORT_BATCH_SIZE', key: 'maxExportBatchSize', max: 1 << 20 },
] as const;

function wholeSetting(value: string, what: string, max: number): number {
  if (!/^\d{1,10}$/.test(value) || Number(value) < 1 || Number(value) > max) throw new UsageError(`${what} must be a whole number from 1 to ${max}`);
  return Number(value);
}

/**
 * The exporter's settings OpenTelemetry's environment variables give, which Triton's SDK reads too
 * (OTEL_RESOURCE_ATTRIBUTES, OTEL_SERVICE_NAME, OTEL_BSP_*): the defaults --trace-config overrides.
 */
function otelFromEnv(env: Readonly<Record<string, string | undefined>>): OtelOptions {
  const otel: OtelOptions = { ...DEFAULT_OTEL_OPTIONS, resource: { ...DEFAULT_OTEL_OPTIONS.resource } };
  const attributes = env.OTEL_RESOURCE_ATTRIBUTES;
  if (attributes) {
    for (const pair of attributes.split(',')) {
      const at = pair.indexOf('=');
      let key = '';
      let value = '';
      try {
        [key, value] = [decodeURIComponent(pair.slice(0, at).trim()), decodeURIComponent(pair.slice(at + 1).trim())];
      } catch {
        key = '';
      }
      if (at <= 0 || key === '') throw new UsageError(`OTEL_RESOURCE_ATTRIBUTES must be <key>=<value>,... (values percent-encoded), got '${pair}'`);
      otel.resource[key] = value;
    }
  }
  if (env.OTEL_SERVICE_NAME) otel.resource['service.name'] = env.OTEL_SERVICE_NAME;
  for (const b of BSP_SETTINGS) {
    const value = env[b.env];
    if (value !== undefined && value !== '') otel[b.key] = wholeSetting(value, b.env, b.max);
  }
  return otel;
}

/** opentelemetry,<setting>=<value>: the exporter's settings. */
function otelSetting(otel: OtelOptions, name: string, value: string, spec: string): void {
  if (name === 'url') {
    let url: URL;
    try {
      // Triton's examples give host:port/path; an OTLP/HTTP receiver takes plain HTTP.
      url = new URL(/^[a-z]+:\/\//i.test(value) ? value : `http://${value}`);
    } catch {
      throw new UsageError(`${FLAG} '${spec}': '${value}' is not a URL`, 'for example opentelemetry,url=http://localhost:4318/v1/traces');
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new UsageError(`${FLAG} '${spec}': the receiver is reached over http or https, not ${url.protocol}`);
    otel.url = url.href;
  } else if (name === 'resource') {
    const at = value.indexOf('=');
    if (at <= 0) throw new UsageError(`${FLAG} '${spec}': resource must be <key>=<value>`, 'for example opentelemetry,resource=service.name=my-server');
    otel.resource = { ...otel.resource, [value.slice(0, at)]: value.slice(at + 1) };
  } else {
    const bsp = BSP_SETTINGS.find((b) => b.name === name);
    if (!bsp) throw new UsageError(`${FLAG}: unknown setting 'opentelemetry,${name}'`, 'the OpenTelemetry settings are url, resource, bsp_max_queue_size, bsp_schedule_delay and bsp_max_export_batch_size');
    otel[bsp.key] = wholeSetting(value, `${FLAG} '${spec}': ${name}`, bsp.max);
  }
}

/** `env`: where OpenTelemetry's variables are read (the process's). */
export function parseTraceConfig(specs: string[], cwd: string, env: Readonly<Record<string, string | undefined>> = process.env): TraceConfig {
  let file = '';
  // The mode first: it decides what the other settings may be (rate 0 in mode opentelemetry).
  const modes = specs.map((spec) => /^mode=(.*)$/.exec(spec)?.[1]).filter((m): m is string => m !== undefined);
  for (const m of modes) {
    if (!(TRACE_MODES as readonly string[]).includes(m)) throw new UsageError(`${FLAG} 'mode=${m}': the modes are ${TRACE_MODES.join(' and ')}`);
  }
  const mode: TraceMode = (modes.at(-1) as TraceMode | undefined) ?? 'triton';
  const setting: TraceSetting = { ...DEFAULT_TRACE_SETTING };
  // OpenTelemetry's variables matter in its mode only: a stray one does not stop a server writing trace files.
  const otel = otelFromEnv(mode === 'opentelemetry' ? env : {});
  const levels: string[] = [];
  for (const spec of specs) {
    const m = /^(?:(triton|opentelemetry),)?([a-z_-]+)=(.*)$/.exec(spec);
    if (!m) throw new UsageError(`${FLAG} must be [triton,|opentelemetry,]<setting>=<value>, got '${spec}'`, `for example ${FLAG} triton,file=/tmp/trace.json ${FLAG} level=TIMESTAMPS ${FLAG} rate=1`);
    const [, group, name, value] = m as unknown as [string, string | undefined, string, string];
    if (group === 'opentelemetry') {
      otelSetting(otel, name, value, spec);
      continue;
    }
    if (name === 'mode' && group === undefined) continue;
    if (name === 'file') {
      if (value === '') throw new UsageError(`${FLAG} triton,file= needs a path`);
      file = path.resolve(cwd, value);
      continue;
    }
    const apiName = API_NAME[name];
    if (!apiName) throw new UsageError(`${FLAG}: unknown setting '${name}'`, 'the settings are file and log-frequency (after triton,), url, resource and bsp_* (after opentelemetry,), rate, level, count and mode');
    if (name === 'level') {
      levels.push(value);
      continue;
    }
    Object.assign(setting, checked(spec, () => parseSetting(apiName, value, file, mode)));
  }
  if (levels.length > 0) Object.assign(setting, checked(`level=${levels.join(',')}`, () => parseSetting('trace_level', levels, file, mode)));
  if (otel.maxExportBatchSize > otel.maxQueueSize) {
    throw new UsageError(`${FLAG} opentelemetry,bsp_max_export_batch_size=${otel.maxExportBatchSize} is more than bsp_max_queue_size=${otel.maxQueueSize} (flags or OTEL_BSP_* variables)`, 'a batch is taken from the queue: keep it no larger');
  }
  if (mode === 'opentelemetry') {
    if (file !== '') throw new UsageError(`${FLAG} triton,file= writes Triton's trace files, which mode=opentelemetry does not: traces go to opentelemetry,url=${otel.url}`);
    return { mode, file, setting, otel };
  }
  if ((setting.timestamps || setting.tensors) && file === '') {
    throw new UsageError(`${FLAG} level=${levels.filter((l) => l !== 'OFF').join(',')} needs a file to write the traces to`, `add ${FLAG} triton,file=<path>, or send them to an OpenTelemetry receiver with ${FLAG} mode=opentelemetry`);
  }
  if (file !== '') checkWritableFile(file, `${FLAG} triton,file=${file}`, 'trace.json');
  return { mode, file, setting, otel };
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
