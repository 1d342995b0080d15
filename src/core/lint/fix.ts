/**
 * Applies fixes to source text. Edits are applied from the end of the text backwards so earlier
 * offsets stay valid; an edit that overlaps one already taken is left for the next run.
 */
import type { Diagnostic, TextEdit } from '../diagnostic.js';

export function applyTextEdits(text: string, edits: TextEdit[]): { text: string; applied: number } {
  const sorted = [...edits].sort((a, b) => b.start - a.start || b.end - a.end);
  let out = text;
  let applied = 0;
  let limit = Infinity;
  for (const e of sorted) {
    if (e.end > limit || e.start > e.end || e.end > text.length) continue;
    out = out.slice(0, e.start) + e.text + out.slice(e.end);
    limit = e.start;
    applied++;
  }
  return { text: out, applied };
}

/** The safe fixes among diagnostics for one file, each fix whole (all its edits) or not at all. */
export function safeFixEdits(diagnostics: Diagnostic[], file: string): TextEdit[][] {
  return diagnostics.filter((d) => d.file === file && d.fix?.safe && d.fix.edits.length > 0).map((d) => d.fix!.edits);
}

/** Applies whole fixes that do not overlap one another. */
export function applyFixes(text: string, fixes: TextEdit[][]): { text: string; applied: number } {
  const taken: TextEdit[] = [];
  const overlaps = (a: TextEdit, b: TextEdit) => a.start < b.end && b.start < a.end || (a.start === b.start && a.end === b.end);
  let count = 0;
  for (const fix of fixes) {
    if (fix.some((e) => taken.some((t) => overlaps(e, t)))) continue;
    taken.push(...fix);
    count++;
  }
  return { text: applyTextEdits(text, taken).text, applied: count };
}
