/**
 * `gebe validate` flags → typed options. Parsing is separate from running so tests drive
 * runValidate directly with options and fake IO.
 */
import { UsageError } from '../../errors.js';
import { checkedConfigName } from '../../core/repository/scan.js';
import { FORMATTERS, type FormatName } from '../../core/lint/formatters/index.js';
import { parseRuleOverrides, type RuleSetting } from '../../core/lint/severity.js';
import { BREAKING_IDS, LINT_IDS } from './gating.js';

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
  /** Baseline for breaking-change checks: a git ref, a directory or a tarball. */
  against?: string;
  againstRules: Map<string, RuleSetting>;
  /** Report only models that differ from the baseline. */
  changed: boolean;
  /** More warnings than this fail the run (exit 1). */
  maxWarnings?: number;
  /** A repository config file instead of the nearest gebe.config.json. */
  config?: string;
  /** Print a rule's docs and exit. */
  explain?: string;
  /** Print the effective settings for this path and exit. */
  printConfig?: string;
  /** Triton's --model-config-name: lint each model's configs/<name>.pbtxt where it has one, as the server would load it. */
  modelConfigName?: string;
}

export interface ValidateFlags {
  modelRepository?: string;
  format?: string;
  fix?: boolean;
  fixDryRun?: boolean;
  strict?: boolean;
  rule?: string[];
  against?: string;
  againstRule?: string[];
  changed?: boolean;
  maxWarnings?: string;
  config?: string;
  explain?: string;
  printConfig?: string;
  modelConfigName?: string;
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
    rules: parseRuleOverrides(flags.rule ?? [], { ids: LINT_IDS, flag: '--rule' }),
    against: flags.against,
    againstRules: parseRuleOverrides(flags.againstRule ?? [], { ids: BREAKING_IDS, flag: '--against-rule' }),
    changed: Boolean(flags.changed),
    maxWarnings: flags.maxWarnings === undefined ? undefined : parseMaxWarnings(flags.maxWarnings),
    config: flags.config,
    explain: flags.explain,
    printConfig: flags.printConfig,
    modelConfigName: flags.modelConfigName === undefined ? undefined : checkedConfigName(flags.modelConfigName),
  };
}

function parseMaxWarnings(text: string): number {
  const n = Number(text);
  if (!/^\d+$/.test(text.trim()) || !Number.isSafeInteger(n)) throw new UsageError(`--max-warnings expects a non-negative integer, got "${text}"`, 'e.g. --max-warnings 0');
  return n;
}
