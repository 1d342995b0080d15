/**
 * Decodes the content of a quoted text-format string: C escapes (\n \t \\ \" \' \? \a \b \f \v
 * \r), octal \NNN, hex \xHH, \uXXXX and \UXXXXXXXX. Escapes produce bytes, the rest is UTF-8; the
 * result must be valid UTF-8 because every string field in ModelConfig is a proto `string`.
 */
export interface StringProblem {
  /** Offset relative to the start of the content. */
  offset: number;
  length: number;
  kind: 'escape' | 'utf8';
  message: string;
}

const SIMPLE: Record<string, number> = {
  n: 10, t: 9, r: 13, a: 7, b: 8, f: 12, v: 11, '\\': 92, "'": 39, '"': 34, '?': 63,
};

const encoder = new TextEncoder();
const decoder = new TextDecoder('utf-8', { fatal: true });

export function decodeStringContent(raw: string): { value: string; problems: StringProblem[] } {
  if (!raw.includes('\\')) return { value: raw, problems: [] };
  const problems: StringProblem[] = [];
  const bytes: number[] = [];
  let i = 0;
  let literalStart = 0;
  const flush = (end: number): void => {
    if (end > literalStart) for (const b of encoder.encode(raw.slice(literalStart, end))) bytes.push(b);
  };
  while (i < raw.length) {
    if (raw[i] !== '\\') {
      i++;
      continue;
    }
    flush(i);
    const escapeStart = i;
    const c = raw[i + 1];
    if (c === undefined) {
      problems.push({ offset: i, length: 1, kind: 'escape', message: 'A string cannot end with a lone backslash' });
      i += 1;
    } else if (c in SIMPLE) {
      bytes.push(SIMPLE[c]!);
      i += 2;
    } else if (/[0-7]/.test(c)) {
      const m = /^[0-7]{1,3}/.exec(raw.slice(i + 1))![0];
      bytes.push(parseInt(m, 8) & 0xff);
      i += 1 + m.length;
    } else if (c === 'x' || c === 'X') {
      const m = /^[0-9a-fA-F]{1,2}/.exec(raw.slice(i + 2));
      if (!m) {
        problems.push({ offset: i, length: 2, kind: 'escape', message: '"\\x" must be followed by hex digits' });
        i += 2;
      } else {
        bytes.push(parseInt(m[0], 16));
        i += 2 + m[0].length;
      }
    } else if (c === 'u' || c === 'U') {
      const width = c === 'u' ? 4 : 8;
      const digits = raw.slice(i + 2, i + 2 + width);
      const code = /^[0-9a-fA-F]+$/.test(digits) && digits.length === width ? parseInt(digits, 16) : NaN;
      if (Number.isNaN(code) || code > 0x10ffff || (code >= 0xd800 && code <= 0xdfff)) {
        problems.push({ offset: i, length: 2 + digits.length, kind: 'escape', message: `"\\${c}" must be followed by ${width} hex digits naming a Unicode code point` });
      } else {
        for (const b of encoder.encode(String.fromCodePoint(code))) bytes.push(b);
      }
      i += 2 + width;
    } else {
      problems.push({ offset: escapeStart, length: 2, kind: 'escape', message: `"\\${c}" is not a valid escape sequence` });
      i += 2;
    }
    literalStart = Math.min(i, raw.length);
  }
  flush(raw.length);
  try {
    return { value: decoder.decode(new Uint8Array(bytes)), problems };
  } catch {
    problems.push({ offset: 0, length: raw.length, kind: 'utf8', message: 'The escaped bytes are not valid UTF-8' });
    return { value: new TextDecoder('utf-8').decode(new Uint8Array(bytes)), problems };
  }
}

/** Quotes a JS string as a text-format string literal that decodes back to the same value. */
export function quoteString(value: string): string {
  let out = '"';
  for (const ch of value) {
    switch (ch) {
      case '"': out += '\\"'; break;
      case '\\': out += '\\\\'; break;
      case '\n': out += '\\n'; break;
      case '\r': out += '\\r'; break;
      case '\t': out += '\\t'; break;
      default: {
        const code = ch.codePointAt(0)!;
        out += code < 0x20 || code === 0x7f ? `\\${code.toString(8).padStart(3, '0')}` : ch;
      }
    }
  }
  return `${out}"`;
}
