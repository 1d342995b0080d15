/**
 * The effective settings of one validate run: command-line flags over the repository config file
 * over the rules' defaults, with the config's per-directory overrides and ignores resolved per
 * file. `--print-config PATH` prints what this resolves for one path.
 */
import path from 'node:path';
import picomatch from 'picomatch';
import type { Diagnostic, Severity } from '../../diagnostic.js';
import type { RuleSetting } from '../severity.js';
import type { RepositoryConfig } from './load.js';

export type RuleKind = 'rules' | 'againstRules';

export class Settings {
  private readonly ignoreMatch: (rel: string) => boolean;
  private readonly blocks: Array<{ match: (rel: string) => boolean; rules: Map<string, RuleSetting>; againstRules: Map<string, RuleSetting> }>;

  constructor(
    readonly config: RepositoryConfig | undefined,
    private readonly cli: Record<RuleKind, ReadonlyMap<string, RuleSetting>>,
    private readonly cwd: string,
  ) {
    const opts = { dot: true };
    const ignores = config?.ignores ?? [];
    this.ignoreMatch = ignores.length > 0 ? picomatch(ignores, opts) : () => false;
    this.blocks = (config?.overrides ?? []).map((b) => ({ match: picomatch(b.files, opts), rules: b.rules, againstRules: b.againstRules }));
  }

  /** The path relative to the config file's directory, '/'-separated, or undefined outside it. */
  private relative(file: string): string | undefined {
    if (!this.config) return undefined;
    const rel = path.relative(this.config.dir, path.resolve(this.cwd, file)).split(path.sep).join('/');
    return rel.startsWith('..') || path.isAbsolute(rel) ? undefined : rel;
  }

  /** A path and everything under it match `dir/**`; matching the path's parents makes `dir` work too. */
  private matches(match: (rel: string) => boolean, file: string): boolean {
    const rel = this.relative(file);
    if (rel === undefined) return false;
    const parts = rel.split('/');
    for (let n = parts.length; n > 0; n--) if (match(parts.slice(0, n).join('/'))) return true;
    return false;
  }

  isIgnored(file: string): boolean {
    return this.matches(this.ignoreMatch, file);
  }

  /** Settings the runner applies everywhere: config rules then flags, minus ids an override sets per directory. */
  global(kind: RuleKind): Map<string, RuleSetting> {
    const perDirectory = new Set(this.blocks.flatMap((b) => [...b[kind].keys()]));
    const out = new Map<string, RuleSetting>();
    for (const [id, s] of this.config?.[kind] ?? []) if (!perDirectory.has(id)) out.set(id, s);
    for (const [id, s] of this.cli[kind]) out.set(id, s);
    return out;
  }

  /** The setting for a rule in a file: the flag, else the last matching override, else the config's. */
  settingFor(file: string, id: string, kind: RuleKind): RuleSetting | undefined {
    const flag = this.cli[kind].get(id);
    if (flag) return flag;
    for (let i = this.blocks.length - 1; i >= 0; i--) {
      const b = this.blocks[i]!;
      const s = b[kind].get(id);
      if (s && this.matches(b.match, file)) return s;
    }
    return this.config?.[kind].get(id);
  }

  /** Drops ignored files and applies each diagnostic's per-file setting (idempotent over global()). */
  apply(diagnostics: Diagnostic[], kind: RuleKind): Diagnostic[] {
    const out: Diagnostic[] = [];
    for (const d of diagnostics) {
      if (this.isIgnored(d.file)) continue;
      const s = this.settingFor(d.file, d.ruleId, kind);
      if (s === 'off') continue;
      out.push(s && s !== d.severity ? { ...d, severity: s as Severity } : d);
    }
    return out;
  }

  /** What --print-config shows for a path: every rule's effective level there, and the run settings. */
  describe(file: string, defaults: Record<RuleKind, ReadonlyArray<{ id: string; severity: Severity }>>, run: { strict: boolean; maxWarnings?: number; against?: string }): object {
    const levels = (kind: RuleKind) => Object.fromEntries(defaults[kind].map((r) => [r.id, this.settingFor(file, r.id, kind) ?? r.severity]));
    return {
      path: file,
      configFile: this.config?.file ?? null,
      ignored: this.isIgnored(file),
      strict: run.strict,
      maxWarnings: run.maxWarnings ?? null,
      against: run.against ?? null,
      rules: levels('rules'),
      againstRules: levels('againstRules'),
    };
  }
}
