/**
 * `gebe validate` flags → typed options. Parsing is separate from running so tests drive
 * runValidate directly with options and fake IO.
 */
import { UsageError } from '../../errors.js';
import { FORMATTERS, type FormatName } from '../../core/lint/formatters/index.js';
import { parseRuleOverrides, type RuleSetting } from '../../core/lint/severity.js';

export interface ValidateOptions {
  /** Repositories, model directories or config files; default ./model_repository. */
  paths: string[];
  format: FormatName;
  /** Apply safe fixes in place, then report what remains. */
  fix: boolean;
  /** Print the safe fixes as a unified diff instead of applying them. */
  fixDryRun: boolean;
  /** Warnings fail too (exit 1). */
  strict: boolean;
  rules: Map<string, RuleSetting>;
}

export interface ValidateFlags {
  modelRepository?: string;
  format?: string;
  fix?: boolean;
  fixDryRun?: boolean;
  strict?: boolean;
  rule?: string[];
}

export const DEFAULT_PATH = './model_repository';

export function toValidateOptions(paths: string[], flags: ValidateFlags): ValidateOptions {
  const format = (flags.format ?? 'text').toLowerCase();
  if (!(format in FORMATTERS)) {
    throw new UsageError(`unknown --format "${flags.format}"`, `use one of: ${Object.keys(FORMATTERS).join(', ')}`);
  }
  if (flags.fix && flags.fixDryRun) {
    throw new UsageError('--fix and --fix-dry-run both given', 'use --fix-dry-run to see the diff, then --fix to apply it');
  }
  if (flags.fixDryRun && format !== 'text') {
    throw new UsageError(`--fix-dry-run prints a diff, not --format ${format}`, 'drop --format, or run --fix-dry-run and --format in separate runs');
  }
  return {
    paths: paths.length > 0 ? paths : [DEFAULT_PATH],
    format: format as FormatName,
    fix: Boolean(flags.fix),
    fixDryRun: Boolean(flags.fixDryRun),
    strict: Boolean(flags.strict),
    rules: parseRuleOverrides(flags.rule ?? []),
  };
}
