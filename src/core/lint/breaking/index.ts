/**
 * `gebe validate --against <baseline>`: pairs every model of the validated paths with its
 * baseline counterpart by name, compares them (compare.ts) and returns diagnostics located in the
 * new files, with severities from the rules or `--against-rule`, and `# gebe-ignore` honoured.
 * Also works out which models changed since the baseline, for `--changed`.
 */
import fs from 'node:fs';
import path from 'node:path';
import { parseModelConfig } from '../../config/index.js';
import type { ParseResult } from '../../config/ast.js';
import type { Diagnostic, Severity } from '../../diagnostic.js';
import { nodeFileSystem, type ScanFileSystem } from '../../repository/fs.js';
import type { ConfigSource, ModelEntry, ScanTarget } from '../../repository/types.js';
import { FILE_START, locateReport, type LintedConfig } from '../runner.js';
import type { RuleOverrides } from '../severity.js';
import { findSuppressions, isSuppressed } from '../suppress.js';
import type { Baseline, BaselineSide } from './baseline.js';
import { compareModel, interfaceKey, type BreakingReport, type CompareContext, type ModelSide } from './compare.js';
import { findBreakingRule, type BreakingRuleId } from './rules.js';

export { openBaseline, type Baseline } from './baseline.js';
export { BREAKING_RULES, findBreakingRule } from './rules.js';

export interface AgainstResult {
  diagnostics: Diagnostic[];
  /** Breaking findings silenced by `# gebe-ignore`. */
  suppressed: Diagnostic[];
  /** Display paths of the models that differ from the baseline (added ones included); filled when asked for. */
  changedModels: Set<string>;
}

const cleanParse = (parse: ParseResult | undefined) => parse && !parse.diagnostics.some((d) => d.severity === 'error') ? parse : undefined;

function baselineSide(source: ConfigSource | undefined, model: ModelEntry | undefined, fsys: ScanFileSystem): ModelSide | undefined {
  if (source?.text === undefined) return undefined;
  const parse = cleanParse(parseModelConfig(source.text, source.display));
  return parse ? { parse, text: source.text, path: source.path, model, fs: fsys } : undefined;
}

class AgainstChecker {
  readonly diagnostics: Diagnostic[] = [];
  readonly suppressed: Diagnostic[] = [];
  readonly changedModels = new Set<string>();

  constructor(private readonly parses: Map<string, ParseResult | undefined>, private readonly overrides: RuleOverrides, private readonly wantChanged: boolean) {}

  private newSide(source: ConfigSource | undefined, model: ModelEntry | undefined, fsys: ScanFileSystem): ModelSide | undefined {
    if (source?.text === undefined) return undefined;
    const parse = cleanParse(this.parses.get(source.path));
    return parse ? { parse, text: source.text, path: source.path, model, fs: fsys } : undefined;
  }

  private emit(ruleId: BreakingRuleId, file: string, source: ConfigSource | undefined, parse: ParseResult | undefined, report: Omit<BreakingReport, 'ruleId'>): void {
    const rule = findBreakingRule(ruleId)!;
    const setting = this.overrides.get(ruleId);
    if (setting === 'off') return;
    const span = parse ? locateReport(parse, { at: report.at, message: report.message }) : FILE_START;
    const d: Diagnostic = {
      file,
      line: span.start.line,
      column: span.start.column,
      endLine: span.end.line,
      endColumn: span.end.column,
      ruleId,
      severity: (setting ?? rule.severity) as Severity,
      message: report.message,
      fix: { description: report.hint, edits: [], safe: false },
    };
    if (source?.text !== undefined && isSuppressed(d, source.display, findSuppressions(source.text))) this.suppressed.push(d);
    else this.diagnostics.push(d);
  }

  check(target: ScanTarget, side: BaselineSide | undefined): void {
    if (!side) {
      for (const m of target.models) this.changedModels.add(m.display);
      return;
    }
    const ctx: CompareContext = { oldLabel: (p, line) => `${side.label(p)}:${line}` };
    const compare = (oldSide: ModelSide | undefined, newSide: ModelSide | undefined, source: ConfigSource) => {
      if (!oldSide || !newSide) return;
      for (const r of compareModel(oldSide, newSide, ctx)) this.emit(r.ruleId, source.display, source, newSide.parse, r);
    };
    if (target.kind === 'config') {
      if (target.config) compare(baselineSide(side.target.config, undefined, side.fs), this.newSide(target.config, undefined, nodeFileSystem), target.config);
      return;
    }
    const before = new Map(side.target.models.map((m) => [m.name, m]));
    const after = new Map(target.models.map((m) => [m.name, m]));
    const added = target.models.filter((m) => !before.has(m.name));
    for (const [name, old] of before) {
      const now = after.get(name) ?? (target.kind === 'model' ? target.models[0] : undefined);
      const oldSide = baselineSide(old.config, old, side.fs);
      if (!now) {
        const key = oldSide ? interfaceKey(oldSide.parse.config) : undefined;
        const renamed = key === undefined ? undefined : added.find((m) => {
          const s = this.newSide(m.config, m, nodeFileSystem);
          return s !== undefined && interfaceKey(s.parse.config) === key;
        });
        this.emit('BREAKING_MODEL_REMOVED', renamed?.config?.display ?? target.given, renamed?.config, undefined, {
          at: [],
          message: `model '${name}' was removed${renamed ? ` (renamed to '${renamed.name}'? clients still call '${name}')` : ''}: clients that call it get "unknown model"; it was ${side.label(old.dir)}`,
          hint: `keep model '${name}' (a copy or an ensemble forwarding to the new model) until its clients have moved`,
        });
        continue;
      }
      if (now.config) compare(oldSide, this.newSide(now.config, now, nodeFileSystem), now.config);
      if (this.wantChanged && modelChanged(now, old, side)) this.changedModels.add(now.display);
    }
    for (const m of added) this.changedModels.add(m.display);
  }
}

function sameBytes(a: string, fsA: ScanFileSystem, b: string, fsB: ScanFileSystem): boolean {
  try {
    return fsA.stat(a).size === fsB.stat(b).size && fsA.readFile(a).equals(fsB.readFile(b));
  } catch {
    return false;
  }
}

/** Whether a model's files differ from the baseline's: git knows; for directories, compare bytes. */
function modelChanged(now: ModelEntry, old: ModelEntry, side: BaselineSide): boolean {
  if (side.changedFiles) {
    let dir: string;
    try {
      dir = fs.realpathSync.native(now.dir);
    } catch {
      return true;
    }
    for (const f of side.changedFiles()) if (f.startsWith(`${dir}${path.sep}`)) return true;
    return false;
  }
  if (now.files.join('\n') !== old.files.join('\n')) return true;
  return now.files.some((f) => !sameBytes(path.join(now.dir, f), nodeFileSystem, path.join(old.dir, f), side.fs));
}

export function checkAgainst(targets: ScanTarget[], configs: LintedConfig[], baseline: Baseline, cwd: string, overrides: RuleOverrides, wantChanged = false): AgainstResult {
  const parses = new Map(configs.map((c) => [c.source.path, c.parse]));
  const checker = new AgainstChecker(parses, overrides, wantChanged);
  for (const target of targets) checker.check(target, baseline.side(target, cwd));
  return { diagnostics: checker.diagnostics, suppressed: checker.suppressed, changedModels: checker.changedModels };
}
