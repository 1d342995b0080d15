/**
 * Runs the rules over scanned targets: parses each config, hands every rule a context, locates
 * reports in the source, applies severity overrides and inline suppressions, then sorts and
 * de-duplicates. Rules whose config has syntax errors are skipped: checking a half-parsed config
 * would report phantoms (a missing name that is really a syntax error two lines up).
 */
import { parseModelConfig } from '../config/index.js';
import type { ParseResult, Span } from '../config/ast.js';
import { DEFAULT_CONFIG_LIMITS, type ConfigLimits } from '../config/limits.js';
import type { ModelConfig } from '../config/model-config.js';
import type { Diagnostic, Severity } from '../diagnostic.js';
import { inspectModelFile, type ModelFileInfo } from '../model/inspect.js';
import { selectVersions } from '../repository/versions.js';
import type { ConfigSource, ModelEntry, ScanTarget } from '../repository/types.js';
import { modelFileFor } from './model-files.js';
import { RULES } from './registry.js';
import type { ConfigContext, ConfigRule, ModelRule, Report, Rule, ScanRule } from './rule.js';
import type { RuleOverrides } from './severity.js';
import { findSuppressions, isSuppressed } from './suppress.js';

export interface LintOptions {
  overrides?: RuleOverrides;
  rules?: readonly Rule[];
  /** Bounds for CONFIG_LIMIT other than the defaults (serve's --max-instances-per-model). */
  limits?: Partial<ConfigLimits>;
}

export interface LintedConfig {
  source: ConfigSource;
  parse?: ParseResult;
}

export interface LintResult {
  diagnostics: Diagnostic[];
  models: number;
  files: number;
  configs: LintedConfig[];
  /** Findings that a `# gebe-ignore` comment silenced (to report comments that silence nothing). */
  suppressed: Diagnostic[];
}

export const FILE_START: Span = { start: { line: 1, column: 1, offset: 0 }, end: { line: 1, column: 1, offset: 0 } };

export function locateReport(parse: ParseResult | undefined, report: Report): Span {
  if (report.span) return report.span;
  if (!parse || !report.at) return FILE_START;
  const exact = parse.locate(report.at, { name: report.name });
  if (exact) return exact;
  // The field is absent (a default): point at the nearest enclosing field that is written.
  for (let n = report.at.length - 1; n > 0; n--) {
    const span = parse.locate(report.at.slice(0, n), { name: true }) ?? parse.locate(report.at.slice(0, n));
    if (span) return span;
  }
  return FILE_START;
}

function toDiagnostic(rule: Rule, file: string, span: Span, report: Report): Diagnostic {
  const d: Diagnostic = {
    file,
    line: span.start.line,
    column: span.start.column,
    endLine: span.end.line,
    endColumn: span.end.column,
    ruleId: rule.id,
    severity: rule.severity,
    message: report.message,
  };
  if (report.fix) d.fix = report.fix;
  return d;
}

function hasSyntaxErrors(parse: ParseResult, overrides: RuleOverrides | undefined): boolean {
  return parse.diagnostics.some((d) => {
    const setting = overrides?.get(d.ruleId);
    return setting === undefined ? d.severity === 'error' : setting === 'error';
  });
}

export function compareDiagnostics(a: Diagnostic, b: Diagnostic): number {
  return (a.file < b.file ? -1 : a.file > b.file ? 1 : 0)
    || a.line - b.line || a.column - b.column
    || (a.ruleId < b.ruleId ? -1 : a.ruleId > b.ruleId ? 1 : 0)
    || (a.message < b.message ? -1 : a.message > b.message ? 1 : 0);
}

/** Sorts by position and drops exact duplicates (the same finding from two versions of a model). */
export function sortAndDedupe(diagnostics: Diagnostic[]): Diagnostic[] {
  const sorted = [...diagnostics].sort(compareDiagnostics);
  const out: Diagnostic[] = [];
  for (const d of sorted) {
    const prev = out[out.length - 1];
    if (prev && compareDiagnostics(prev, d) === 0 && prev.endLine === d.endLine && prev.endColumn === d.endColumn) continue;
    out.push(d);
  }
  return out;
}

class TargetLinter {
  readonly diagnostics: Diagnostic[] = [];
  readonly configs: LintedConfig[] = [];
  readonly suppressed: Diagnostic[] = [];
  private readonly inspected = new Map<string, ModelFileInfo>();
  private readonly configRules: ConfigRule[];
  private readonly modelRules: ModelRule[];
  private readonly scanRules: ScanRule[];

  constructor(private readonly target: ScanTarget, private readonly options: LintOptions) {
    const rules = options.rules ?? RULES;
    this.configRules = rules.filter((r): r is ConfigRule => r.scope === 'config');
    this.modelRules = rules.filter((r): r is ModelRule => r.scope === 'model');
    this.scanRules = rules.filter((r): r is ScanRule => r.scope === 'scan');
  }

  private inspect = (file: string): ModelFileInfo => {
    let info = this.inspected.get(file);
    if (!info) {
      info = inspectModelFile(file);
      this.inspected.set(file, info);
    }
    return info;
  };

  private reporter(rule: Rule, source: ConfigSource | undefined, parse: ParseResult | undefined, sink: Diagnostic[]) {
    return (report: Report) => {
      if (report.file !== undefined || !source) {
        sink.push(toDiagnostic(rule, report.file ?? source?.display ?? this.target.given, report.span ?? FILE_START, report));
      } else {
        sink.push(toDiagnostic(rule, source.display, locateReport(parse, report), report));
      }
    };
  }

  run(): void {
    for (const rule of this.scanRules) {
      rule.check({ target: this.target, inspect: this.inspect, report: this.reporter(rule, undefined, undefined, this.diagnostics) });
    }
    if (this.target.config) this.lintConfig(this.target.config, undefined);
    for (const model of this.target.models) this.lintModel(model);
  }

  private readonly parsed = new Map<ConfigSource, ParseResult>();

  /** Parses a config once, whether a rule asked for it as a peer first or it is linted first. */
  private parseOnce(source: ConfigSource): ParseResult | undefined {
    if (source.text === undefined) return undefined;
    let parse = this.parsed.get(source);
    if (!parse) {
      parse = parseModelConfig(source.text, source.display);
      this.parsed.set(source, parse);
    }
    return parse;
  }

  private parse(source: ConfigSource): ParseResult | undefined {
    const parse = this.parseOnce(source);
    this.configs.push(parse ? { source, parse } : { source });
    return parse;
  }

  /** Another model of the same repository, by name: its config when it parses without errors. */
  private peerConfig = (name: string): { model: ModelEntry; config?: ModelConfig } | undefined => {
    const model = this.target.models.find((m) => m.name === name);
    if (!model) return undefined;
    const parse = model.config ? this.parseOnce(model.config) : undefined;
    return { model, config: parse && !hasSyntaxErrors(parse, this.options.overrides) ? parse.config : undefined };
  };

  /** Lints a config's text; returns the parse when it is clean enough for semantic rules. */
  private lintConfig(source: ConfigSource, model: ModelEntry | undefined): ParseResult | undefined {
    const parse = this.parse(source);
    if (!parse) return undefined;
    const found: Diagnostic[] = [...parse.diagnostics];
    const clean = !hasSyntaxErrors(parse, this.options.overrides);
    if (clean) {
      let modelFiles: ModelFileInfo[] | undefined;
      // One context per config, reporting for whichever rule runs: thousands of models × dozens
      // of rules make per-rule context objects a measurable cost.
      let current: ConfigRule = this.configRules[0]!;
      const ctx: ConfigContext = {
        target: this.target,
        inspect: this.inspect,
        config: parse.config,
        parse,
        source,
        text: source.text!,
        model,
        limits: { ...DEFAULT_CONFIG_LIMITS, ...this.options.limits },
        modelFiles: () => (modelFiles ??= this.modelFiles(parse, model)),
        peer: this.target.kind === 'repository' ? this.peerConfig : undefined,
        report: (report) => found.push(toDiagnostic(current, report.file ?? source.display, report.file !== undefined ? report.span ?? FILE_START : locateReport(parse, report), report)),
      };
      for (const rule of this.configRules) {
        if (rule.needs === 'model-directory' && !model) continue;
        if (rule.needs === 'repository' && this.target.kind !== 'repository') continue;
        current = rule;
        rule.check(ctx);
      }
    }
    this.collect(found, source);
    return clean ? parse : undefined;
  }

  private modelFiles(parse: ParseResult, model: ModelEntry | undefined): ModelFileInfo[] {
    if (!model) return [];
    const out: ModelFileInfo[] = [];
    for (const version of selectVersions(parse.config, model.versions).selected) {
      const file = modelFileFor(parse.config, version);
      if (file) out.push(this.inspect(file));
    }
    return out;
  }

  private lintModel(model: ModelEntry): void {
    const parse = model.config ? this.lintConfig(model.config, model) : undefined;
    const found: Diagnostic[] = [];
    for (const rule of this.modelRules) {
      rule.check({
        target: this.target,
        inspect: this.inspect,
        model,
        config: parse?.config,
        parse,
        report: this.reporter(rule, model.config, parse, found),
      });
    }
    this.collect(found, model.config);
  }

  /** Applies overrides and the config's suppressions, then keeps the findings. */
  private collect(found: Diagnostic[], source: ConfigSource | undefined): void {
    const suppressions = source?.text !== undefined ? findSuppressions(source.text) : undefined;
    for (const d of found) {
      if (suppressions && isSuppressed(d, source!.display, suppressions)) {
        this.suppressed.push(d);
        continue;
      }
      this.diagnostics.push(d);
    }
  }
}

function applyOverrides(diagnostics: Diagnostic[], overrides: RuleOverrides | undefined): Diagnostic[] {
  if (!overrides || overrides.size === 0) return diagnostics;
  const out: Diagnostic[] = [];
  for (const d of diagnostics) {
    const setting = overrides.get(d.ruleId);
    if (setting === 'off') continue;
    out.push(setting ? { ...d, severity: setting as Severity } : d);
  }
  return out;
}

export function lintTargets(targets: ScanTarget[], options: LintOptions = {}): LintResult {
  const all: Diagnostic[] = [];
  const configs: LintedConfig[] = [];
  const suppressed: Diagnostic[] = [];
  let models = 0;
  for (const target of targets) {
    const linter = new TargetLinter(target, options);
    linter.run();
    all.push(...linter.diagnostics);
    configs.push(...linter.configs);
    suppressed.push(...linter.suppressed);
    if (!target.alternate) models += target.kind === 'config' ? 1 : target.models.length;
  }
  return {
    diagnostics: sortAndDedupe(applyOverrides(all, options.overrides)),
    models,
    files: configs.length,
    configs,
    suppressed,
  };
}
