/**
 * Inline suppression: `# gebe-ignore RULE_ID[, RULE_ID...]` silences those rules on the same line
 * or the next line. A diagnostic about another file of the model (a version directory, a model
 * file) has no line in the config; a suppression anywhere in the model's config covers it.
 */
import type { Diagnostic } from '../diagnostic.js';

const PATTERN = /#\s*gebe-ignore\s+([A-Z0-9_]+(?:\s*[, ]\s*[A-Z0-9_]+)*)/;

export interface Suppressions {
  /** Rule ids suppressed per 1-based line. */
  byLine: Map<number, Set<string>>;
  /** Every rule id suppressed somewhere in the file. */
  anywhere: Set<string>;
}

export function findSuppressions(text: string): Suppressions {
  const byLine = new Map<number, Set<string>>();
  const anywhere = new Set<string>();
  if (!text.includes('gebe-ignore')) return { byLine, anywhere };
  text.split('\n').forEach((line, i) => {
    const m = PATTERN.exec(line);
    if (!m) return;
    const ids = m[1]!.split(/[\s,]+/).filter(Boolean);
    for (const lineNo of [i + 1, i + 2]) {
      const set = byLine.get(lineNo) ?? new Set<string>();
      ids.forEach((id) => set.add(id));
      byLine.set(lineNo, set);
    }
    ids.forEach((id) => anywhere.add(id));
  });
  return { byLine, anywhere };
}

/** Whether a diagnostic is silenced: in the config itself by line, elsewhere by the config at large. */
export function isSuppressed(d: Diagnostic, configFile: string, s: Suppressions): boolean {
  if (d.file === configFile) return s.byLine.get(d.line)?.has(d.ruleId) ?? false;
  return s.anywhere.has(d.ruleId);
}

export interface SuppressionComment {
  line: number;
  column: number;
  ids: string[];
}

/** Every `# gebe-ignore` comment with its position, to report those that silence nothing. */
export function suppressionComments(text: string): SuppressionComment[] {
  if (!text.includes('gebe-ignore')) return [];
  const out: SuppressionComment[] = [];
  text.split('\n').forEach((line, i) => {
    const m = PATTERN.exec(line);
    if (m) out.push({ line: i + 1, column: m.index + 1, ids: m[1]!.split(/[\s,]+/).filter(Boolean) });
  });
  return out;
}
