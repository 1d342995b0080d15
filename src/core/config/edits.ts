/**
 * Source edits that change only what they must and keep every other byte (comments, spacing,
 * field order): applying TextEdits and fixes, setting a scalar field, and replacing or appending
 * a top-level block such as `model_warmup`. They serve `validate --fix`, `warmup --write` and
 * similar commands; the caller writes the returned text.
 */
import type { Fix, TextEdit } from '../diagnostic.js';
import type { ConfigPath, FieldNode, MessageNode, ParseResult } from './ast.js';
import { parseModelConfig } from './parse.js';
import { formatScalar, printFields } from './printer.js';
import { modelConfigSchema, type FieldInfo, type MessageInfo } from './schema.js';

/** Applies non-overlapping edits (offsets into the original text); throws if two overlap. */
export function applyEdits(text: string, edits: readonly TextEdit[]): string {
  const sorted = [...edits].sort((a, b) => a.start - b.start || a.end - b.end);
  let out = '';
  let cursor = 0;
  for (const edit of sorted) {
    if (edit.start < cursor || edit.end < edit.start || edit.end > text.length) {
      throw new Error(`Overlapping or out-of-range edit at ${edit.start}-${edit.end}`);
    }
    out += text.slice(cursor, edit.start) + edit.text;
    cursor = edit.end;
  }
  return out + text.slice(cursor);
}

function overlaps(a: TextEdit, b: TextEdit): boolean {
  // Two insertions at the same point would have an undefined order: treat them as overlapping.
  if (a.start === a.end && b.start === b.end) return a.start === b.start;
  return a.start < b.end && b.start < a.end || (a.start === a.end && a.start > b.start && a.start < b.end) ||
    (b.start === b.end && b.start > a.start && b.start < a.end);
}

/** Applies whole fixes in order, skipping any fix that would overlap one already taken. */
export function applyFixes(text: string, fixes: readonly Fix[]): { text: string; applied: Fix[]; skipped: Fix[] } {
  const taken: TextEdit[] = [];
  const applied: Fix[] = [];
  const skipped: Fix[] = [];
  for (const fix of fixes) {
    if (fix.edits.some((e) => taken.some((t) => overlaps(e, t)))) {
      skipped.push(fix);
      continue;
    }
    taken.push(...fix.edits);
    applied.push(fix);
  }
  return { text: applyEdits(text, taken), applied, skipped };
}

/**
 * Applies every safe syntax fix, re-parsing between rounds because one fix can reveal another
 * (a `//` comment hiding a typographic quote). Returns the final text and its parse.
 */
export function applySafeSyntaxFixes(text: string, file: string, maxRounds = 10): { text: string; applied: Fix[]; result: ParseResult } {
  const applied: Fix[] = [];
  let result = parseModelConfig(text, file);
  for (let round = 0; round < maxRounds; round++) {
    const safe = result.diagnostics.flatMap((d) => (d.fix?.safe ? [d.fix] : []));
    if (safe.length === 0) break;
    const step = applyFixes(text, safe);
    if (step.applied.length === 0 || step.text === text) break;
    applied.push(...step.applied);
    text = step.text;
    result = parseModelConfig(text, file);
  }
  return { text, applied, result };
}

/**
 * The schema field that `path` ends at, and whether the path stops at the whole collection of a
 * repeated or map field (`['input']`) rather than at one value (`['input', 0]`, `['max_batch_size']`).
 */
function fieldAt(path: ConfigPath): { field: FieldInfo; collection: boolean } {
  let type: MessageInfo = modelConfigSchema();
  let field: FieldInfo | undefined;
  let collection = false;
  for (let i = 0; i < path.length; i++) {
    const segment = path[i]!;
    field = typeof segment === 'string' ? type.byName.get(segment) : undefined;
    if (!field) throw new Error(`Config path ${JSON.stringify(path)} does not name a field at ${JSON.stringify(segment)}`);
    collection = false;
    if (field.map || field.repeated) {
      if (i + 1 >= path.length) {
        collection = true;
        break;
      }
      if (!field.map && typeof path[i + 1] !== 'number') throw new Error(`Config path ${JSON.stringify(path)}: ${field.name} needs an index`);
      i++;
      if (field.map) field = field.messageType!.fields[1]!;
    }
    if (i < path.length - 1) {
      if (!field.messageType) throw new Error(`Config path ${JSON.stringify(path)}: ${field.name} is not a message`);
      type = field.messageType;
    }
  }
  if (!field) throw new Error('Empty config path');
  return { field, collection };
}

function findMessageAt(node: MessageNode, offset: number): MessageNode | undefined {
  if (node.span.start.offset === offset) return node;
  for (const f of node.fields) {
    const values = f.value.kind === 'list' ? f.value.items : [f.value];
    for (const v of values) {
      if (v.kind !== 'message') continue;
      if (v.span.start.offset <= offset && offset <= v.span.end.offset) {
        const found = findMessageAt(v, offset);
        if (found) return found;
      }
    }
  }
  return undefined;
}

/** Text that creates the fields of `rest` inside the block at `parentPath`, ending in `leaf`. */
function nestedSnippet(parentPath: ConfigPath, rest: ConfigPath, leaf: string): string {
  const name = String(rest[0]);
  const { field } = fieldAt([...parentPath, name]);
  if (rest.length === 1) return `${name}: ${leaf}`;
  if (field.map) {
    const key = rest[1]!;
    const keyField = field.messageType!.fields[0]!;
    const keyText = formatScalar(keyField, keyField.scalar === 'string' ? String(key) : key);
    if (rest.length === 2) return `${name} { key: ${keyText} value: ${leaf} }`;
    return `${name} { key: ${keyText} value { ${nestedSnippet([...parentPath, name, key], rest.slice(2), leaf)} } }`;
  }
  if (field.repeated) throw new Error(`Cannot create element ${JSON.stringify(rest)} of repeated field ${name}; edit the list instead`);
  return `${name} { ${nestedSnippet([...parentPath, name], rest.slice(1), leaf)} }`;
}

/**
 * The edit that sets the scalar at `path` to `value`: replaces the written value if there is one,
 * otherwise inserts `field: value` into the closest enclosing block that exists (creating the
 * blocks in between on one line). Throws for paths the schema does not have.
 */
export function setScalarEdit(result: ParseResult, text: string, path: ConfigPath, value: unknown): TextEdit {
  const { field, collection } = fieldAt(path);
  if (field.kind === 'message' || collection) throw new Error(`${JSON.stringify(path)} does not name a single scalar`);
  const formatted = formatScalar(field, value);
  const span = result.locate(path);
  if (span) return matchLineEndings(text, { start: span.start.offset, end: span.end.offset, text: formatted });
  for (let cut = path.length - 1; cut >= 0; cut--) {
    const prefix = path.slice(0, cut);
    if (cut > 0 && fieldAt(prefix).collection) continue;
    const block = cut === 0 ? result.root : (() => {
      const s = result.locate(prefix);
      return s ? findMessageAt(result.root, s.start.offset) : undefined;
    })();
    if (!block) continue;
    const snippet = nestedSnippet(prefix, path.slice(cut), formatted);
    return matchLineEndings(text, insertIntoBlock(text, block, snippet, block === result.root));
  }
  throw new Error(`Cannot place ${JSON.stringify(path)}`);
}

/** Writes inserted line breaks the way the file already does (CRLF files stay CRLF). */
function matchLineEndings(text: string, edit: TextEdit): TextEdit {
  return text.includes('\r\n') ? { ...edit, text: edit.text.replace(/\r?\n/g, '\r\n') } : edit;
}

function lineIndent(text: string, offset: number): string {
  const lineStart = text.lastIndexOf('\n', offset - 1) + 1;
  return /^[ \t]*/.exec(text.slice(lineStart))![0];
}

function insertIntoBlock(text: string, block: MessageNode, snippet: string, isRoot: boolean): TextEdit {
  if (isRoot) {
    const end = text.length;
    return { start: end, end, text: `${end > 0 && !text.endsWith('\n') ? '\n' : ''}${snippet}\n` };
  }
  const closer = block.span.end.offset - 1;
  const inner = text.slice(block.span.start.offset + 1, closer);
  if (!inner.includes('\n')) {
    const trimmedEnd = closer - (inner.length - inner.trimEnd().length);
    return { start: trimmedEnd, end: closer, text: ` ${snippet} ` };
  }
  const closerIndent = lineIndent(text, closer);
  const closerLineStart = text.lastIndexOf('\n', closer - 1) + 1;
  const onlyIndentBefore = text.slice(closerLineStart, closer).trim() === '';
  const childIndent = block.fields[0] ? lineIndent(text, block.fields[0].span.start.offset) : `${closerIndent}  `;
  if (onlyIndentBefore) return { start: closerLineStart, end: closerLineStart, text: `${childIndent}${snippet}\n` };
  return { start: closer, end: closer, text: `\n${childIndent}${snippet}\n${closerIndent}` };
}

/** The range a top-level field occupies, widened to whole lines when it sits on lines of its own. */
function fieldRange(text: string, field: FieldNode): { start: number; end: number; wholeLines: boolean } {
  let start = field.span.start.offset;
  let end = field.span.end.offset;
  const lineStart = text.lastIndexOf('\n', start - 1) + 1;
  const startsLine = text.slice(lineStart, start).trim() === '';
  let i = end;
  while (text[i] === ' ' || text[i] === '\t') i++;
  if (text[i] === ',' || text[i] === ';') end = i + 1;
  i = end;
  while (text[i] === ' ' || text[i] === '\t') i++;
  if (text[i] === '#') while (i < text.length && text[i] !== '\n') i++;
  if (text[i] === '\r') i++;
  const endsLine = i >= text.length || text[i] === '\n';
  if (startsLine && endsLine) {
    start = lineStart;
    end = i < text.length ? i + 1 : i;
    return { start, end, wholeLines: true };
  }
  return { start, end, wholeLines: false };
}

/**
 * Edits that replace every top-level occurrence of field `name` with `snippet` (written where the
 * first occurrence was), or append `snippet` at the end when the field is absent.
 */
export function replaceTopLevelEdits(result: ParseResult, text: string, name: string, snippet: string): TextEdit[] {
  const occurrences = result.root.fields.filter((f) => f.name === name);
  if (occurrences.length === 0) return [appendTopLevelEdit(text, snippet)];
  return occurrences.map((field, i) => {
    const range = fieldRange(text, field);
    const replacement = i > 0 ? '' : range.wholeLines ? ensureNewline(snippet) : snippet.replace(/\n$/, '');
    return matchLineEndings(text, { start: range.start, end: range.end, text: replacement });
  });
}

function ensureNewline(s: string): string {
  return s.endsWith('\n') ? s : `${s}\n`;
}

/** The edit that appends `snippet` at the end of the file, on lines of its own. */
export function appendTopLevelEdit(text: string, snippet: string): TextEdit {
  const end = text.length;
  return matchLineEndings(text, { start: end, end, text: `${end > 0 && !text.endsWith('\n') ? '\n' : ''}${ensureNewline(snippet)}` });
}

/** Replaces (or adds) the top-level `model_warmup` entries: what `gebe warmup --write` does. */
export function writeModelWarmup(text: string, file: string, warmups: unknown[]): string {
  const result = parseModelConfig(text, file);
  const snippet = printFields({ model_warmup: warmups });
  return applyEdits(text, replaceTopLevelEdits(result, text, 'model_warmup', snippet));
}

/** Sets one scalar and returns the new text. */
export function setScalar(text: string, file: string, path: ConfigPath, value: unknown): string {
  const result = parseModelConfig(text, file);
  return applyEdits(text, [setScalarEdit(result, text, path, value)]);
}

