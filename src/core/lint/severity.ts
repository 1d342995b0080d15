/**
 * `--rule ID=off|info|warning|error`: per-rule severity overrides, validated against the registry.
 */
import { UsageError } from '../../errors.js';
import type { Severity } from '../diagnostic.js';
import { closest } from './helpers.js';
import { RULES } from './registry.js';

export type RuleSetting = Severity | 'off';
export type RuleOverrides = ReadonlyMap<string, RuleSetting>;

const SETTINGS = new Set<RuleSetting>(['off', 'info', 'warning', 'error']);

/** Parses `ID=level` specs; SYNTAX_* ids from the parser are accepted as well as registered rules. */
export function parseRuleOverrides(specs: string[]): Map<string, RuleSetting> {
  const out = new Map<string, RuleSetting>();
  const ids = RULES.map((r) => r.id);
  for (const spec of specs) {
    const m = /^([A-Za-z0-9_]+)=(\w+)$/.exec(spec.trim());
    if (!m) throw new UsageError(`--rule expects ID=off|info|warning|error, got "${spec}"`, 'e.g. --rule DIMS_MAYBE_INCLUDE_BATCH=off');
    const id = m[1]!.toUpperCase();
    const setting = m[2]!.toLowerCase() as RuleSetting;
    if (!ids.includes(id) && !id.startsWith('SYNTAX_')) {
      const suggestion = closest(id, ids);
      throw new UsageError(`--rule names unknown rule ${id}`, suggestion ? `did you mean ${suggestion}?` : 'see docs/rules/ for the rule ids');
    }
    if (!SETTINGS.has(setting)) throw new UsageError(`--rule ${id}=${m[2]}: the level must be off, info, warning or error`);
    out.set(id, setting);
  }
  return out;
}
