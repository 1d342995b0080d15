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
  /** Warnings fail too (exit 1). */
  strict: boolean;
  rules: Map<string, RuleSetting>;
}

export interface ValidateFlags {
  format?: string;
  fix?: boolean;
  strict?: boolean;
  rule?: string[];
}

export const DEFAULT_PATH = './model_repository';

export function toValidateOptions(paths: string[], flags: ValidateFlags): ValidateOptions {
  const format = (flags.format ?? 'text').toLowerCase();
  if (!(format in FORMATTERS)) {
    throw new UsageError(`unknown --format "${flags.format}"`, `use one of: ${Object.keys(FORMATTERS).join(', ')}`);
  }
  return {
    paths: paths.length > 0 ? paths : [DEFAULT_PATH],
    format: format as FormatName,
    fix: Boolean(flags.fix),
    strict: Boolean(flags.strict),
    rules: parseRuleOverrides(flags.rule ?? []),
  };
}
