/**
 * What a lint rule is: stable metadata plus a check. Rules never walk the repository or parse
 * files themselves; the runner hands each one a context with everything already read.
 */
import type { ConfigPath, ParseResult, Span } from '../config/ast.js';
import type { ConfigLimits } from '../config/limits.js';
import type { ModelConfig } from '../config/model-config.js';
import type { Fix, Severity } from '../diagnostic.js';
import type { ModelFileInfo } from '../model/inspect.js';
import type { ConfigSource, ModelEntry, ScanTarget } from '../repository/types.js';

export const DOCS_BASE = 'https://github.com/gebe-dev/gebe/blob/main/docs/rules';

export interface RuleMeta {
  /** Stable SCREAMING_SNAKE id, used by --rule, suppressions and CI tools. */
  id: string;
  /** One sentence: "Checks that ...". */
  purpose: string;
  severity: Severity;
  /** Whether the rule offers a safe fix that --fix applies. */
  fixable: boolean;
  /**
   * What a config rule needs besides the config: its model directory (files, model, directory
   * name) or the whole repository (other models). Without it the runner skips the rule, so a
   * config checked alone gets only the rules that can judge it alone.
   */
  needs?: 'model-directory' | 'repository';
}

export interface Report {
  /** Where in the config: located through ParseResult.locate, falling back to the nearest parent. */
  at?: ConfigPath;
  /** Point at the field name rather than its value. */
  name?: boolean;
  /** An explicit span in the config. */
  span?: Span;
  /** A diagnostic about another file or directory (display path); reported at line 1, column 1. */
  file?: string;
  message: string;
  /** How to fix it: a safe fix, a suggestion with edits, or just a hint (no edits). */
  fix?: Fix;
}

/** A hint with no edits: shown to the user, never applied. */
export function hint(description: string): Fix {
  return { description, edits: [], safe: false };
}

interface BaseContext {
  target: ScanTarget;
  report(report: Report): void;
  /** Inspects a model file (cached per run). */
  inspect(file: string): ModelFileInfo;
}

/** A parsed config; `model` is set when the config sits in a model directory (not a file alone). */
export interface ConfigContext extends BaseContext {
  config: ModelConfig;
  parse: ParseResult;
  source: ConfigSource;
  text: string;
  model?: ModelEntry;
  /** The bounds CONFIG_LIMIT checks (`gebe serve --max-instances-per-model` raises one). */
  limits: ConfigLimits;
  /** The model files Triton would load for this config, inspected (empty for a config alone). */
  modelFiles(): ModelFileInfo[];
  /**
   * Another model of the repository by name (set only when a whole repository is validated):
   * its entry, and its config when that parses without syntax errors.
   */
  peer?: (name: string) => { model: ModelEntry; config?: ModelConfig } | undefined;
}

/** A model directory; the config is present only when it parsed without syntax errors. */
export interface ModelContext extends BaseContext {
  model: ModelEntry;
  config?: ModelConfig;
  parse?: ParseResult;
}

export interface ConfigRule extends RuleMeta {
  scope: 'config';
  check(ctx: ConfigContext): void;
}
export interface ModelRule extends RuleMeta {
  scope: 'model';
  check(ctx: ModelContext): void;
}
/** Rules over the scan itself (file-system problems, the config's bytes). */
export interface ScanRule extends RuleMeta {
  scope: 'scan';
  check(ctx: BaseContext): void;
}
export type Rule = ConfigRule | ModelRule | ScanRule;

export function docsUrl(id: string): string {
  return `${DOCS_BASE}/${id}.md`;
}
