/** Flag parsing for `gebe convert`: raw commander values → typed options. */
import { UsageError } from '../../errors.js';
import { ATC_LOG_LEVELS } from '../../core/atc/command.js';

export interface ConvertOptions {
  /** A model directory (with config.pbtxt) or a repository. */
  target: string;
  model?: string;
  modelVersion?: number;
  socVersion?: string;
  precisionMode?: string;
  log?: string;
  dryRun: boolean;
}

export interface RawConvertOptions {
  modelRepository?: string;
  model?: string;
  modelVersion?: string;
  socVersion?: string;
  precisionMode?: string;
  log?: string;
  dryRun?: boolean;
}

export function parseConvertOptions(target: string | undefined, raw: RawConvertOptions): ConvertOptions {
  let modelVersion: number | undefined;
  if (raw.modelVersion !== undefined) {
    if (!/^\d+$/.test(raw.modelVersion)) throw new UsageError(`--model-version must be a version number such as 1, got "${raw.modelVersion}"`);
    modelVersion = Number(raw.modelVersion);
  }
  if (raw.log !== undefined && !(ATC_LOG_LEVELS as readonly string[]).includes(raw.log)) {
    throw new UsageError(`--log must be one of ${ATC_LOG_LEVELS.join(', ')} (ATC's log level), got "${raw.log}"`);
  }
  if (raw.socVersion !== undefined && !/^Ascend\w+$/.test(raw.socVersion)) {
    throw new UsageError(`--soc-version "${raw.socVersion}" does not look like an Ascend SoC`, 'write "Ascend" and the chip name npu-smi info shows, e.g. --soc-version Ascend310P3');
  }
  return {
    target: target ?? 'model_repository',
    model: raw.model,
    modelVersion,
    socVersion: raw.socVersion,
    precisionMode: raw.precisionMode,
    log: raw.log,
    dryRun: raw.dryRun ?? false,
  };
}
