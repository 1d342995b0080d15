/**
 * JSON.parse that also reads the bare tokens NaN, Infinity and -Infinity as numbers, as Triton
 * writes and reads them (rapidjson's kWriteNanAndInfFlag / kParseNanAndInfFlag) in KServe v2
 * `data` arrays. Strict JSON has no spelling for non-finite floats, so a model that computes NaN
 * answers with these tokens; every gebe reader of an infer request or response parses through
 * here so that answer is data, not a parse error.
 *
 * Text that never spells NaN or Infinity takes plain JSON.parse. Otherwise one scanner walks the
 * text, skipping string literals (with their escapes), and rewrites only tokens that stand where a
 * value may (after `[`, `:`, a `,` inside an array, or alone; never as an object key): Infinity →
 * 1e999 (which JSON.parse reads as Infinity), NaN → a string marker holding a per-call random
 * nonce, turned back into NaN by a walk of the result. A token inside a string ("NaN",
 * "\"Infinity") is never touched; anything else stays for JSON.parse to refuse.
 */
import { randomBytes } from 'node:crypto';

export function parseJsonAllowingNonFinite(text: string): unknown {
  if (!/NaN|Infinity/.test(text)) return JSON.parse(text);
  const nanMarker = `\u0000gebe-nan-${randomBytes(12).toString('hex')}`;
  const { rewritten, sawNaN } = rewriteNonFinite(text, JSON.stringify(nanMarker));
  if (rewritten === undefined) return JSON.parse(text);
  if (!sawNaN) return JSON.parse(rewritten);
  const parsed: unknown = JSON.parse(rewritten);
  return parsed === nanMarker ? NaN : (restoreNaN(parsed, nanMarker), parsed);
}

/**
 * Turns the marker back into NaN wherever it stands, walking with a stack of its own (a deeply
 * nested text must not overflow the call stack); a JSON.parse reviver costs several times more.
 */
function restoreNaN(root: unknown, marker: string): void {
  const pending: unknown[] = [root];
  while (pending.length > 0) {
    const node = pending.pop();
    if (node === null || typeof node !== 'object') continue;
    const record = node as Record<string, unknown>;
    for (const key of Array.isArray(node) ? node.keys() : Object.keys(record)) {
      const value = record[key];
      if (value === marker) record[key] = NaN;
      else if (value !== null && typeof value === 'object') pending.push(value);
    }
  }
}

const TOKENS: Array<[string, string | 'nan']> = [['NaN', 'nan'], ['Infinity', '1e999'], ['-Infinity', '-1e999']];

/** Returns undefined when the text holds no non-finite token outside a string. */
function rewriteNonFinite(text: string, nanLiteral: string): { rewritten: string | undefined; sawNaN: boolean } {
  const parts: string[] = [];
  let copiedTo = 0;
  let sawNaN = false;
  const containers: number[] = [];
  let previous = -1; // the last character outside strings and whitespace; -1 at the start
  let i = 0;
  while (i < text.length) {
    const c = text.charCodeAt(i);
    if (c === 0x22 /* " */) {
      i = skipString(text, i);
      previous = c;
      continue;
    }
    if (c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09) {
      i++;
      continue;
    }
    if (c === 0x5b /* [ */ || c === 0x7b /* { */) containers.push(c);
    else if (c === 0x5d /* ] */ || c === 0x7d /* } */) containers.pop();
    const valuePlace = previous === -1 || previous === 0x5b || previous === 0x3a /* : */
      || (previous === 0x2c /* , */ && containers[containers.length - 1] === 0x5b);
    previous = c;
    if (valuePlace && (c === 0x4e /* N */ || c === 0x49 /* I */ || (c === 0x2d /* - */ && text.charCodeAt(i + 1) === 0x49))) {
      const hit = TOKENS.find(([token]) => text.startsWith(token, i) && !isWordChar(text.charCodeAt(i + token.length)));
      if (hit) {
        parts.push(text.slice(copiedTo, i), hit[1] === 'nan' ? nanLiteral : hit[1]);
        sawNaN ||= hit[1] === 'nan';
        i += hit[0].length;
        copiedTo = i;
        continue;
      }
    }
    i++;
  }
  if (parts.length === 0) return { rewritten: undefined, sawNaN };
  parts.push(text.slice(copiedTo));
  return { rewritten: parts.join(''), sawNaN };
}

/** Index just past the string literal opening at `start` (or the end of an unterminated one). */
function skipString(text: string, start: number): number {
  let i = start + 1;
  while (i < text.length) {
    const c = text.charCodeAt(i);
    if (c === 0x5c /* \ */) i += 2;
    else if (c === 0x22) return i + 1;
    else i++;
  }
  return i;
}

function isWordChar(c: number): boolean {
  return (c >= 0x30 && c <= 0x39) || (c >= 0x41 && c <= 0x5a) || (c >= 0x61 && c <= 0x7a) || c === 0x5f;
}
