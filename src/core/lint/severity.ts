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

/**
 * Parses `ID=level` specs; SYNTAX_* ids from the parser are accepted as well as registered rules
 * (or, for `--against-rule`, the ids given).
 */
export function parseRuleOverrides(specs: string[], known?: { ids: readonly string[]; flag: string }): Map<string, RuleSetting> {
  const out = new Map<string, RuleSetting>();
  const ids = known ? [...known.ids] : RULES.map((r) => r.id);
  const flag = known?.flag ?? '--rule';
  for (const spec of specs) {
    const m = /^([A-Za-z0-9_]+)=(\w+)$/.exec(spec.trim());
    if (!m) throw new UsageError(`${flag} expects ID=off|info|warning|error, got "${spec}"`, 'e.g. --rule DIMS_MAYBE_INCLUDE_BATCH=off');
    const id = m[1]!.toUpperCase();
    const setting = m[2]!.toLowerCase() as RuleSetting;
    if (!ids.includes(id) && (known?.flag === '--against-rule' || !id.startsWith('SYNTAX_'))) {
      const suggestion = closest(id, ids);
      throw new UsageError(`${flag} names unknown rule ${id}`, suggestion ? `did you mean ${suggestion}?` : 'see docs/rules/ for the rule ids');
    }
    if (!SETTINGS.has(setting)) throw new UsageError(`${flag} ${id}=${m[2]}: the level must be off, info, warning or error`);
    out.set(id, setting);
  }
  return out;
}
