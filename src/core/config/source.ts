/**
 * Offset ↔ line/column conversion for one source text, and the diagnostic factory that uses it.
 * Line starts are computed once so that converting positions stays cheap on large inputs.
 */
import type { Diagnostic, Fix, Severity } from '../diagnostic.js';
import type { Position, Span } from './ast.js';

export class SourceText {
  private readonly lineStarts: number[];

  constructor(readonly text: string, readonly file: string) {
    const starts = [0];
    for (let i = text.indexOf('\n'); i !== -1; i = text.indexOf('\n', i + 1)) starts.push(i + 1);
    this.lineStarts = starts;
  }

  position(offset: number): Position {
    const clamped = Math.max(0, Math.min(offset, this.text.length));
    let lo = 0;
    let hi = this.lineStarts.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (this.lineStarts[mid]! <= clamped) lo = mid;
      else hi = mid - 1;
    }
    return { line: lo + 1, column: clamped - this.lineStarts[lo]! + 1, offset: clamped };
  }

  span(start: number, end: number): Span {
    return { start: this.position(start), end: this.position(end) };
  }

  /** The text of the line holding `offset`, without its line break. */
  lineAt(offset: number): string {
    const { line } = this.position(offset);
    const start = this.lineStarts[line - 1]!;
    const next = this.lineStarts[line];
    return this.text.slice(start, next === undefined ? this.text.length : next - 1).replace(/\r$/, '');
  }
}

/** Past this many, a file is not a config with mistakes but something else; stop collecting. */
export const MAX_DIAGNOSTICS = 1000;

export class DiagnosticSink {
  readonly items: Diagnostic[] = [];
  private readonly order: number[] = [];
  private dropped = 0;

  constructor(readonly source: SourceText) {}

  report(
    ruleId: string,
    start: number,
    end: number,
    message: string,
    options: { fix?: Fix; severity?: Severity } = {},
  ): void {
    if (this.items.length >= MAX_DIAGNOSTICS) {
      this.dropped++;
      return;
    }
    const span = this.source.span(start, Math.max(start, end));
    const diagnostic: Diagnostic = {
      file: this.source.file,
      line: span.start.line,
      column: span.start.column,
      endLine: span.end.line,
      endColumn: span.end.column,
      ruleId,
      severity: options.severity ?? 'error',
      message,
    };
    if (options.fix) diagnostic.fix = options.fix;
    this.items.push(diagnostic);
    this.order.push(start);
  }

  /** The diagnostics in source order (stable for equal positions). */
  sorted(): Diagnostic[] {
    const indices = this.items.map((_, i) => i);
    indices.sort((a, b) => this.order[a]! - this.order[b]! || a - b);
    const sorted = indices.map((i) => this.items[i]!);
    if (this.dropped > 0) {
      const last = sorted[sorted.length - 1]!;
      sorted.push({
        ...last,
        ruleId: 'SYNTAX_TOO_MANY_ERRORS',
        severity: 'error',
        message: `${this.dropped} more syntax problems after this one were not reported; fix the ones above and run again.`,
      });
      delete sorted[sorted.length - 1]!.fix;
    }
    return sorted;
  }
}

/** A short, printable rendering of source text for messages. */
export function quoteSnippet(text: string, max = 40): string {
  const oneLine = text.replace(/\s+/g, ' ');
  return JSON.stringify(oneLine.length > max ? `${oneLine.slice(0, max - 1)}…` : oneLine);
}
