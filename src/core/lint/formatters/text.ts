/**
 * Human output: `file:line:col severity RULE_ID message`, the source line with a caret under the
 * span, the fix hint, then a summary. Colour only when options.color says so.
 */
import { Chalk } from 'chalk';
import type { Diagnostic } from '../../diagnostic.js';
import type { Formatter } from './types.js';

function codeFrame(source: string | undefined, d: Diagnostic, c: InstanceType<typeof Chalk>): string[] {
  if (source === undefined) return [];
  const lines = source.split('\n');
  const text = lines[d.line - 1];
  if (text === undefined) return [];
  const line = text.replace(/\r$/, '');
  const gutter = String(d.line + (d.line < lines.length ? 1 : 0)).length;
  const num = (n: number) => String(n).padStart(gutter);
  const out: string[] = [];
  if (d.line > 1) out.push(c.dim(`  ${num(d.line - 1)} | ${lines[d.line - 2]!.replace(/\r$/, '')}`));
  out.push(`${c.bold('>')} ${num(d.line)} | ${line}`);
  const startCol = Math.min(d.column - 1, line.length);
  const endCol = d.endLine === d.line ? Math.min(Math.max(d.endColumn - 1, startCol + 1), Math.max(line.length, startCol + 1)) : Math.max(line.length, startCol + 1);
  // Keep tabs so the caret lines up under tab-indented text.
  const pad = line.slice(0, startCol).replace(/[^\t]/g, ' ');
  const caretColor = d.severity === 'error' ? c.red : d.severity === 'warning' ? c.yellow : c.blue;
  out.push(`  ${' '.repeat(gutter)} | ${pad}${caretColor('^'.repeat(Math.max(1, endCol - startCol)))}`);
  return out;
}

export const formatText: Formatter = (report, options) => {
  const c = new Chalk({ level: options.color ? 1 : 0 });
  const out: string[] = [];
  for (const d of report.diagnostics) {
    const sev = d.severity === 'error' ? c.red(d.severity) : d.severity === 'warning' ? c.yellow(d.severity) : c.blue(d.severity);
    out.push(`${c.bold(`${d.file}:${d.line}:${d.column}`)} ${sev} ${c.dim(d.ruleId)} ${d.message}`);
    out.push(...codeFrame(report.sources.get(d.file), d, c));
    if (d.fix) out.push(`  ${c.cyan(d.fix.safe ? 'fix (--fix applies it)' : 'fix')}: ${d.fix.description}`);
    out.push('');
  }
  const s = report.summary;
  const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;
  const counts = `${plural(s.errors, 'error')}, ${plural(s.warnings, 'warning')}, ${plural(s.infos, 'info')}`;
  const scope = `${plural(s.models, 'model')}, ${plural(s.files, 'config file')} checked`;
  const problems = s.errors + s.warnings + s.infos;
  if (problems === 0) out.push(`${c.green('✔')} no problems (${scope})`);
  else out.push(`${s.errors > 0 ? c.red('✖') : c.yellow('⚠')} ${plural(problems, 'problem')} (${counts}) in ${scope}`);
  return `${out.join('\n')}\n`;
};
