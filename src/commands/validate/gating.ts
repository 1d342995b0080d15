/**
 * What `gebe validate` adds for CI around the lint run: the repository config file and its
 * settings, breaking changes against a baseline (--against), unused `# gebe-ignore` comments,
 * --changed, --explain and --print-config. run.ts calls these; each piece lives in core/lint.
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { UsageError } from '../../errors.js';
import type { IO } from '../../io.js';
import type { Diagnostic } from '../../core/diagnostic.js';
import { BREAKING_RULES, checkAgainst, openBaseline } from '../../core/lint/breaking/index.js';
import { findConfigFile, readConfigFile, type RepositoryConfig } from '../../core/lint/config-file/load.js';
import { Settings } from '../../core/lint/config-file/settings.js';
import { closest } from '../../core/lint/helpers.js';
import { RULES } from '../../core/lint/registry.js';
import { sortAndDedupe, type LintResult } from '../../core/lint/runner.js';
import { SUPPRESSION_UNUSED, unusedSuppressions } from '../../core/lint/unused-suppressions.js';
import type { ScanTarget } from '../../core/repository/types.js';
import type { ValidateOptions } from './options.js';

export const LINT_IDS: readonly string[] = [...RULES.map((r) => r.id), SUPPRESSION_UNUSED.id];
export const BREAKING_IDS: readonly string[] = BREAKING_RULES.map((r) => r.id);

/** src/commands/validate and dist/commands/validate are both three levels below the package. */
const DOCS_DIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..', '..', 'docs', 'rules');

export interface RunSettings {
  settings: Settings;
  strict: boolean;
  maxWarnings?: number;
  against?: string;
}

/** The config file: --config, else the nearest gebe.config.json above the validated paths (one for all). */
function repositoryConfig(opts: ValidateOptions, cwd: string): RepositoryConfig | undefined {
  const read = (file: string) => readConfigFile(file, LINT_IDS, BREAKING_IDS, path.relative(cwd, file) || file);
  if (opts.config) {
    const file = path.resolve(cwd, opts.config);
    if (!fs.existsSync(file)) throw new UsageError(`--config ${opts.config} does not exist`);
    return read(file);
  }
  const starts = opts.printConfig ? [opts.printConfig] : opts.paths;
  const found = [...new Set(starts.map((p) => findConfigFile(path.resolve(cwd, p))))];
  if (found.length > 1) {
    throw new UsageError(`the paths have different config files (${found.map((f) => f ?? 'none').join(', ')})`, 'validate them in separate runs, or pass --config');
  }
  return found[0] ? read(found[0]) : undefined;
}

export function loadRunSettings(opts: ValidateOptions, io: IO): RunSettings {
  const config = repositoryConfig(opts, io.cwd);
  const settings = new Settings(config, { rules: opts.rules, againstRules: opts.againstRules }, io.cwd);
  // A directory or tarball named in the config file is relative to that file, as its globs are.
  const fromConfig = config?.against !== undefined && fs.existsSync(path.resolve(config.dir, config.against)) ? path.resolve(config.dir, config.against) : config?.against;
  const against = opts.against ?? fromConfig;
  if (opts.changed && !against) throw new UsageError('--changed needs a baseline', 'pass --against <ref|dir|tarball>, or set "against" in gebe.config.json');
  return { settings, strict: opts.strict || config?.strict === true, maxWarnings: opts.maxWarnings ?? config?.maxWarnings, against };
}

/** The lint findings with config settings, breaking changes and unused suppressions added. */
export function gate(result: LintResult, targets: ScanTarget[], run: RunSettings, opts: ValidateOptions, io: IO): Diagnostic[] {
  const { settings } = run;
  let breaking: Diagnostic[] = [];
  let breakingSuppressed: Diagnostic[] = [];
  let changed: Set<string> | undefined;
  if (run.against) {
    const baseline = openBaseline(run.against, io.cwd, targets);
    try {
      const found = checkAgainst(targets, result.configs, baseline, io.cwd, settings.global('againstRules'), opts.changed);
      breaking = settings.apply(found.diagnostics, 'againstRules');
      breakingSuppressed = found.suppressed;
      if (opts.changed) changed = found.changedModels;
    } finally {
      baseline.dispose();
    }
  }
  const unused = unusedSuppressions(result.configs, [...result.suppressed, ...breakingSuppressed], {
    knownIds: [...LINT_IDS, ...BREAKING_IDS],
    notJudged: (id) => !run.against && BREAKING_IDS.includes(id),
  });
  let all = sortAndDedupe([...settings.apply(result.diagnostics, 'rules'), ...breaking, ...settings.apply(unused, 'rules')]);
  if (changed) {
    const models = targets.flatMap((t) => t.models.map((m) => m.display));
    const inModel = (file: string, model: string) => file === model || file.startsWith(`${model}${path.sep}`);
    // Findings outside every model (the repository itself, removed models) always count.
    all = all.filter((d) => d.ruleId.startsWith('BREAKING_') || [...changed!].some((m) => inModel(d.file, m)) || !models.some((m) => inModel(d.file, m)));
  }
  return all;
}

/** `--explain RULE_ID`: the rule's docs page, as shipped in the package (docs/rules/). */
export function explainRule(id: string): string {
  const upper = id.toUpperCase();
  const ids = [...LINT_IDS, ...BREAKING_IDS];
  if (!ids.includes(upper)) {
    const guess = closest(upper, ids);
    throw new UsageError(`--explain: unknown rule ${id}`, guess ? `did you mean ${guess}?` : 'see docs/rules/README.md for the rule ids');
  }
  return fs.readFileSync(path.join(DOCS_DIR, `${upper}.md`), 'utf8');
}

export function printConfig(file: string, run: RunSettings): string {
  const defaults = {
    rules: [...RULES, SUPPRESSION_UNUSED].map((r) => ({ id: r.id, severity: r.severity })),
    againstRules: BREAKING_RULES.map((r) => ({ id: r.id, severity: r.severity })),
  };
  return `${JSON.stringify(run.settings.describe(file, defaults, run), null, 2)}\n`;
}
