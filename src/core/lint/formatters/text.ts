/**
 * Human output: `file:line:col severity RULE_ID message`, the source line with a caret under the
 * span, the fix hint, then a summary. Colour only when options.color says so.
 */
import { Chalk } from 'chalk';
import type { Diagnostic } from '../../diagnostic.js';
import type { Formatter } from './types.js';

/** Findings shown per file; the rest are counted in one line (`--format json` lists them all). */
export const MAX_SHOWN_PER_FILE = 50;
/** Characters of a source line shown around a span: long lines (a minified or hostile config) are cut. */
const FRAME_BEFORE = 40;
const FRAME_WIDTH = 120;

/** One line cut to a window that starts `from`; `…` marks a cut on either side. */
function windowed(line: string, from: number): string {
  const to = from + FRAME_WIDTH;
  return `${from > 0 ? '…' : ''}${line.slice(from, to)}${to < line.length ? '…' : ''}`;
}

function codeFrame(lines: string[] | undefined, d: Diagnostic, c: InstanceType<typeof Chalk>): string[] {
  if (lines === undefined) return [];
  const text = lines[d.line - 1];
  if (text === undefined) return [];
  const line = text.replace(/\r$/, '');
  const gutter = String(d.line + (d.line < lines.length ? 1 : 0)).length;
  const num = (n: number) => String(n).padStart(gutter);
  const out: string[] = [];
  const startCol = Math.min(d.column - 1, line.length);
  const from = startCol > FRAME_BEFORE + 20 ? startCol - FRAME_BEFORE : 0;
  if (d.line > 1) out.push(c.dim(`  ${num(d.line - 1)} | ${windowed(lines[d.line - 2]!.replace(/\r$/, ''), from)}`));
  out.push(`${c.bold('>')} ${num(d.line)} | ${windowed(line, from)}`);
  const endCol = d.endLine === d.line ? Math.min(Math.max(d.endColumn - 1, startCol + 1), Math.max(line.length, startCol + 1)) : Math.max(line.length, startCol + 1);
  // Keep tabs so the caret lines up under tab-indented text.
  const pad = `${from > 0 ? ' ' : ''}${line.slice(from, startCol).replace(/[^\t]/g, ' ')}`;
  const carets = Math.min(Math.max(1, endCol - startCol), FRAME_WIDTH - (startCol - from));
  const caretColor = d.severity === 'error' ? c.red : d.severity === 'warning' ? c.yellow : c.blue;
  out.push(`  ${' '.repeat(gutter)} | ${pad}${caretColor('^'.repeat(Math.max(1, carets)))}`);
  return out;
}

export const formatText: Formatter = (report, options) => {
  const c = new Chalk({ level: options.color ? 1 : 0 });
  const out: string[] = [];
  const lineCache = new Map<string, string[] | undefined>();
  const shown = new Map<string, number>();
  const hidden = new Map<string, number>();
  for (const d of report.diagnostics) {
    const count = (shown.get(d.file) ?? 0) + 1;
    if (count > MAX_SHOWN_PER_FILE) {
      hidden.set(d.file, (hidden.get(d.file) ?? 0) + 1);
      continue;
    }
    shown.set(d.file, count);
    if (!lineCache.has(d.file)) lineCache.set(d.file, report.sources.get(d.file)?.split('\n'));
    const sev = d.severity === 'error' ? c.red(d.severity) : d.severity === 'warning' ? c.yellow(d.severity) : c.blue(d.severity);
    out.push(`${c.bold(`${d.file}:${d.line}:${d.column}`)} ${sev} ${c.dim(d.ruleId)} ${d.message}`);
    out.push(...codeFrame(lineCache.get(d.file), d, c));
    if (d.fix) out.push(`  ${c.cyan(d.fix.safe ? 'fix (--fix applies it)' : 'fix')}: ${d.fix.description}`);
    out.push('');
  }
  for (const [file, n] of hidden) {
    out.push(`${c.bold(file)}: ${n} more problem${n === 1 ? '' : 's'} not shown (the first ${MAX_SHOWN_PER_FILE} are above; --format json lists all)`, '');
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
