/**
 * Every registered rule: its valid cases produce no finding of the rule, its invalid cases produce
 * exactly the expected findings (file, line, column, message). The meta tests fail when a rule has
 * no cases, no docs page, or a docs page that is out of date with its rule and cases.
 */
import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { BREAKING_RULES } from '../../../src/core/lint/breaking/index.js';
import { describe, expect, it } from 'vitest';
import { applyFixes } from '../../../src/core/config/edits.js';
import { RULES } from '../../../src/core/lint/registry.js';
import { renderRuleDoc, renderRuleIndex } from '../../../scripts/gen-rule-docs.js';
import { expectedFile, runCase, type RuleCases } from './rule-tester.js';

const repoRoot = path.resolve(import.meta.dirname, '../../..');
const casesById = await loadRuleCases();

async function loadRuleCases(): Promise<Map<string, RuleCases>> {
  const dir = path.join(import.meta.dirname, 'rules');
  const out = new Map<string, RuleCases>();
  for (const file of fs.readdirSync(dir).filter((f) => f.endsWith('.cases.ts')).sort()) {
    const mod = (await import(pathToFileURL(path.join(dir, file)).href)) as { default: RuleCases };
    out.set(path.basename(file, '.cases.ts'), mod.default);
  }
  return out;
}

describe('rule registry', () => {
  it('has unique SCREAMING_SNAKE ids with a one-sentence purpose', () => {
    const ids = RULES.map((r) => r.id);
    expect(new Set(ids).size).toBe(ids.length);
    for (const rule of RULES) {
      expect(rule.id).toMatch(/^[A-Z][A-Z0-9]*(_[A-Z0-9]+)+$|^[A-Z]+$/);
      expect(rule.purpose).toMatch(/^Checks[^]*\.$/);
      expect(['error', 'warning', 'info']).toContain(rule.severity);
    }
  });

  it('has cases with at least one valid and one invalid example for every rule, and no cases for unknown rules', () => {
    for (const rule of RULES) {
      const cases = casesById.get(rule.id);
      expect(cases, `test/core/lint/rules/${rule.id}.cases.ts is missing`).toBeDefined();
      expect(cases!.valid.length, `${rule.id} has no valid case`).toBeGreaterThan(0);
      expect(cases!.invalid.length, `${rule.id} has no invalid case`).toBeGreaterThan(0);
      for (const c of cases!.invalid) expect(c.errors?.length, `${rule.id}: an invalid case lists no expected finding`).toBeGreaterThan(0);
      const withOutput = cases!.invalid.filter((c) => c.output !== undefined).length;
      if (rule.fixable) expect(withOutput, `${rule.id} is fixable: give an invalid case its fixed output`).toBeGreaterThan(0);
      else expect(withOutput, `${rule.id} is not fixable but a case has a fixed output`).toBe(0);
    }
    for (const id of casesById.keys()) expect(RULES.map((r) => r.id), `cases for unknown rule ${id}`).toContain(id);
  });

  it('has an up-to-date docs page with a bad and a good example for every rule', () => {
    for (const rule of RULES) {
      const file = path.join(repoRoot, 'docs', 'rules', `${rule.id}.md`);
      expect(fs.existsSync(file), `docs/rules/${rule.id}.md is missing (run npx tsx scripts/gen-rule-docs.ts)`).toBe(true);
      const text = fs.readFileSync(file, 'utf8');
      expect(text).toContain('## Bad');
      expect(text).toContain('## Good');
      expect(text, `docs/rules/${rule.id}.md is out of date (run npx tsx scripts/gen-rule-docs.ts)`).toBe(renderRuleDoc(rule, casesById.get(rule.id)!));
    }
    const index = fs.readFileSync(path.join(repoRoot, 'docs', 'rules', 'README.md'), 'utf8');
    expect(index, 'docs/rules/README.md is out of date (run npx tsx scripts/gen-rule-docs.ts)').toBe(renderRuleIndex(RULES));
  });

  it('is counted right in the README', () => {
    const readme = fs.readFileSync(path.join(repoRoot, 'README.md'), 'utf8');
    expect(readme).toContain(`(${RULES.length} rules, ${BREAKING_RULES.length} more for breaking changes with \`--against\``);
  });
});

for (const rule of RULES) {
  const cases = casesById.get(rule.id);
  if (!cases) continue;
  describe(rule.id, () => {
    cases.valid.forEach((c, i) => {
      it(`valid #${i + 1}${c.name ? `: ${c.name}` : ''}`, () => {
        const { diagnostics } = runCase(c);
        expect(diagnostics.filter((d) => d.ruleId === rule.id)).toEqual([]);
      });
    });
    cases.invalid.forEach((c, i) => {
      it(`invalid #${i + 1}${c.name ? `: ${c.name}` : ''}`, () => {
        const { diagnostics, given } = runCase(c);
        const found = diagnostics.filter((d) => d.ruleId === rule.id);
        const syntax = diagnostics.filter((d) => d.ruleId.startsWith('SYNTAX_') && d.severity === 'error');
        expect(syntax, 'the case has syntax errors, so semantic rules did not run').toEqual([]);
        expect(found.map((d) => ({ file: d.file, line: d.line, column: d.column }))).toEqual(
          c.errors!.map((e) => ({ file: expectedFile(c, given, e), line: e.line, column: e.column })),
        );
        c.errors!.forEach((e, k) => {
          if (e.message instanceof RegExp) expect(found[k]!.message).toMatch(e.message);
          else if (e.message) expect(found[k]!.message).toContain(e.message);
          expect(found[k]!.severity).toBe(rule.severity);
        });
        const safe = found.flatMap((d) => (d.fix?.safe && d.fix.edits.length > 0 ? [d.fix] : []));
        if (!rule.fixable) expect(safe, `${rule.id} is not marked fixable but offers a safe fix`).toEqual([]);
        if (c.output !== undefined) expect(applyFixes(c.config ?? '', safe).text).toBe(c.output);
      });
    });
  });
}
