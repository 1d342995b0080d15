/** Flag parsing for `gebe init`: raw commander values → typed options, with errors that name the flag. */
import { UsageError } from '../../errors.js';
import { DEFAULT_REPOSITORY } from '../repository-option.js';
import { isTemplateName, TEMPLATE_NAMES, type TemplateName } from './templates.js';

export interface InitOptions {
  modelName: string;
  repo: string;
  template?: TemplateName;
  from?: string;
  yes: boolean;
  force: boolean;
  backend?: string;
  maxBatchSize?: number;
  preferredBatchSizes?: number[];
  maxQueueDelayUs?: number;
  instanceCount?: number;
}

export interface RawInitOptions {
  modelRepository?: string;
  /** Deprecated spelling of modelRepository (see commands/repository-option.ts). */
  repo?: string;
  template?: string;
  from?: string;
  yes?: boolean;
  force?: boolean;
  backend?: string;
  maxBatchSize?: string;
  preferredBatchSizes?: string;
  maxQueueDelayUs?: string;
  instanceCount?: string;
}

export const DEFAULT_REPO = DEFAULT_REPOSITORY;

/** Triton rejects names with '/' or '..'; the rest keeps names safe in URLs, paths and shells. */
const MODEL_NAME = /^[A-Za-z0-9_][A-Za-z0-9_.-]*$/;

export function parseInitOptions(modelName: string, raw: RawInitOptions): InitOptions {
  if (!MODEL_NAME.test(modelName) || modelName.includes('..')) {
    throw new UsageError(
      `invalid model name "${modelName}": use letters, digits, '_', '-' and '.', starting with a letter, digit or '_'`,
      'for example: gebe init mnist_classifier',
    );
  }
  if (raw.template !== undefined && !isTemplateName(raw.template)) {
    throw new UsageError(`unknown template "${raw.template}" for --template`, `choose one of: ${TEMPLATE_NAMES.join(', ')}`);
  }
  if (raw.template !== undefined && raw.from !== undefined) {
    throw new UsageError('--template and --from cannot be used together', 'pass --from model.onnx to start from your own model, or --template to use a template');
  }
  if (raw.backend !== undefined && raw.backend.trim() === '') throw new UsageError('--backend must not be empty', 'for example: --backend ge');
  return {
    modelName,
    repo: raw.modelRepository ?? DEFAULT_REPO,
    template: raw.template as TemplateName | undefined,
    from: raw.from,
    yes: raw.yes ?? false,
    force: raw.force ?? false,
    backend: raw.backend,
    maxBatchSize: optionalInt(raw.maxBatchSize, '--max-batch-size', 0),
    preferredBatchSizes: raw.preferredBatchSizes === undefined ? undefined : parseSizeList(raw.preferredBatchSizes, '--preferred-batch-sizes'),
    maxQueueDelayUs: optionalInt(raw.maxQueueDelayUs, '--max-queue-delay-us', 0),
    instanceCount: optionalInt(raw.instanceCount, '--instance-count', 1),
  };
}

export function parseInteger(text: string, flag: string, min: number): number {
  const value = Number(text.trim());
  if (text.trim() === '' || !Number.isInteger(value) || value < min) {
    throw new UsageError(`${flag} must be an integer >= ${min}, got "${text}"`);
  }
  return value;
}

function optionalInt(text: string | undefined, flag: string, min: number): number | undefined {
  return text === undefined ? undefined : parseInteger(text, flag, min);
}

/** "4,8,16" → [4, 8, 16]; "" → []. Sorted and deduplicated, as Triton treats them as a set. */
export function parseSizeList(text: string, flag: string): number[] {
  if (text.trim() === '') return [];
  const sizes = text.split(',').map((part) => {
    const value = Number(part.trim());
    if (part.trim() === '' || !Number.isInteger(value) || value < 1) {
      throw new UsageError(`${flag} must be a comma-separated list of positive integers, got "${text}"`, `for example: ${flag} 4,8,16`);
    }
    return value;
  });
  return [...new Set(sizes)].sort((a, b) => a - b);
}
