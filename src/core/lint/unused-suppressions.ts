/**
 * `# gebe-ignore RULE_ID` comments that silence nothing: the rule never fired there (the problem
 * was fixed, the rule id is misspelled or unknown). Like ESLint's unused disable directives, they
 * are reported so stale suppressions cannot hide the next real finding.
 */
import path from 'node:path';
import type { Diagnostic } from '../diagnostic.js';
import { closest } from './helpers.js';
import type { LintedConfig } from './runner.js';
import type { RuleMeta } from './rule.js';
import { suppressionComments } from './suppress.js';

export const SUPPRESSION_UNUSED: RuleMeta = {
  id: 'SUPPRESSION_UNUSED',
  purpose: 'Checks that every `# gebe-ignore RULE_ID` comment silences a finding of that rule, so stale or misspelled suppressions are removed.',
  severity: 'warning',
  fixable: false,
};

export interface UnusedOptions {
  /** Every rule id a suppression may name. */
  knownIds: readonly string[];
  /** Ids whose findings this run could not produce (BREAKING_* without --against): never unused. */
  notJudged: (id: string) => boolean;
}

function silences(d: Diagnostic, display: string, line: number): boolean {
  if (d.file === display) return d.line === line || d.line === line + 1;
  // A finding about another file of the model is silenced by a comment anywhere in its config.
  return d.file.startsWith(`${path.dirname(display)}${path.sep}`) || d.file === path.dirname(display);
}

export function unusedSuppressions(configs: LintedConfig[], suppressed: Diagnostic[], options: UnusedOptions): Diagnostic[] {
  const out: Diagnostic[] = [];
  for (const { source } of configs) {
    if (source.text === undefined) continue;
    for (const comment of suppressionComments(source.text)) {
      for (const id of comment.ids) {
        if (options.notJudged(id)) continue;
        const known = options.knownIds.includes(id) || id.startsWith('SYNTAX_');
        if (known && suppressed.some((d) => d.ruleId === id && silences(d, source.display, comment.line))) continue;
        const guess = known ? undefined : closest(id, [...options.knownIds]);
        out.push({
          file: source.display,
          line: comment.line,
          column: comment.column,
          endLine: comment.line,
          endColumn: comment.column + 1,
          ruleId: SUPPRESSION_UNUSED.id,
          severity: SUPPRESSION_UNUSED.severity,
          message: known
            ? `# gebe-ignore ${id} silences nothing: ${id} reports no finding on this line or the next`
            : `# gebe-ignore names unknown rule ${id}${guess ? ` (did you mean ${guess}?)` : ''}, so it silences nothing`,
          fix: { description: known ? `remove ${id} from the comment` : guess ? `write ${guess}` : `remove ${id} from the comment`, edits: [], safe: false },
        });
      }
    }
  }
  return out;
}
