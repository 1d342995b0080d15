/**
 * Splits protobuf text format into tokens: words (field names, identifiers, numbers and anything
 * else written without quotes), quoted strings, and the punctuation `{ } < > [ ] : , ; =`.
 * Comments and whitespace are skipped. The common copy-paste mistakes are reported and then
 * tolerated, so that one run finds every instance: `//` comments, typographic quotes, and
 * non-ASCII spaces or a byte-order mark.
 */
import type { Fix, TextEdit } from '../diagnostic.js';
import type { DiagnosticSink } from './source.js';

export type Token =
  | { kind: 'word'; start: number; end: number; text: string }
  | { kind: 'symbol'; start: number; end: number; text: string }
  | { kind: 'string'; start: number; end: number; contentStart: number; contentEnd: number; quote: string; terminated: boolean }
  | { kind: 'eof'; start: number; end: number };

const SYMBOLS = new Set(['{', '}', '<', '>', '[', ']', ':', ',', ';', '=']);
const TYPOGRAPHIC_DOUBLE = new Set(['\u201C', '\u201D', '\u201E', '\u201F', '\u2033']);
const TYPOGRAPHIC_SINGLE = new Set(['\u2018', '\u2019', '\u201A', '\u201B', '\u2032']);

function isAsciiSpace(code: number): boolean {
  return code === 32 || (code >= 9 && code <= 13);
}

/** Unicode spaces that editors and chat tools insert; protobuf accepts only ASCII whitespace. */
function isForeignSpace(code: number): boolean {
  return code === 0xa0 || code === 0x1680 || (code >= 0x2000 && code <= 0x200b) || code === 0x202f ||
    code === 0x205f || code === 0x3000 || code === 0xfeff;
}

/** ASCII characters that end a word: whitespace, punctuation, comment start and quotes. */
const WORD_BREAK = new Uint8Array(128);
for (const ch of ' \t\n\v\f\r{}<>[]:,;=#"\'') WORD_BREAK[ch.charCodeAt(0)] = 1;

function isWordChar(code: number): boolean {
  if (code < 128) return WORD_BREAK[code] === 0;
  return !isForeignSpace(code) && !TYPOGRAPHIC.has(code);
}

const TYPOGRAPHIC = new Set([...TYPOGRAPHIC_DOUBLE, ...TYPOGRAPHIC_SINGLE].map((c) => c.charCodeAt(0)));

export class Tokenizer {
  private pos = 0;
  private readonly lookahead: Token[] = [];

  constructor(private readonly text: string, private readonly sink: DiagnosticSink) {}

  peek(k = 0): Token {
    while (this.lookahead.length <= k) this.lookahead.push(this.scan());
    return this.lookahead[k]!;
  }

  /** The end offset of the last token returned by next(). */
  lastEnd = 0;

  next(): Token {
    const token = this.lookahead.length > 0 ? this.lookahead.shift()! : this.scan();
    if (token.kind !== 'eof') this.lastEnd = token.end;
    return token;
  }

  private scan(): Token {
    this.skipTrivia();
    const text = this.text;
    const start = this.pos;
    if (start >= text.length) return { kind: 'eof', start, end: start };
    const ch = text[start]!;
    if (SYMBOLS.has(ch)) {
      this.pos++;
      return { kind: 'symbol', start, end: start + 1, text: ch };
    }
    if (ch === '"' || ch === "'" || TYPOGRAPHIC_DOUBLE.has(ch) || TYPOGRAPHIC_SINGLE.has(ch)) return this.scanString();
    let end = start;
    for (; end < text.length; end++) {
      const code = text.charCodeAt(end);
      if (!isWordChar(code) || (code === 47 /* / */ && (text.charCodeAt(end + 1) === 47 || text.charCodeAt(end + 1) === 42))) break;
    }
    if (end === start) end = start + 1; // a lone '/' of a comment-like token: never loop forever
    this.pos = end;
    return { kind: 'word', start, end, text: text.slice(start, end) };
  }

  private skipTrivia(): void {
    const text = this.text;
    while (this.pos < text.length) {
      const code = text.charCodeAt(this.pos);
      if (isAsciiSpace(code)) {
        this.pos++;
      } else if (code === 35 /* # */) {
        this.skipToLineEnd();
      } else if (code === 47 /* / */ && text.charCodeAt(this.pos + 1) === 47) {
        const start = this.pos;
        this.sink.report('SYNTAX_SLASH_COMMENT', start, start + 2,
          'Protobuf text format has no "//" comments; start the comment with "#" instead.', {
            fix: { description: 'Replace "//" with "#"', edits: [{ start, end: start + 2, text: '#' }], safe: true },
          });
        this.skipToLineEnd();
      } else if (code === 47 /* / */ && text.charCodeAt(this.pos + 1) === 42 /* * */) {
        this.skipBlockComment();
      } else if (isForeignSpace(code)) {
        const start = this.pos;
        const ch = text[start]!;
        const bom = ch === '\uFEFF';
        const name = bom ? 'a byte-order mark (U+FEFF)' : `a non-ASCII space (U+${code.toString(16).toUpperCase().padStart(4, '0')})`;
        this.sink.report('SYNTAX_INVALID_CHARACTER', start, start + 1,
          `Found ${name}; protobuf text format accepts only ASCII whitespace. ${bom ? 'Remove it.' : 'Replace it with a plain space.'}`, {
            fix: { description: bom ? 'Remove the byte-order mark' : 'Replace with a plain space', edits: [{ start, end: start + 1, text: bom ? '' : ' ' }], safe: true },
          });
        this.pos++;
      } else {
        return;
      }
    }
  }

  /**
   * A C-style comment, reported and skipped. The fix turns it into "#" comments when nothing
   * follows its end on the same line (otherwise code after it would become comment text).
   */
  private skipBlockComment(): void {
    const text = this.text;
    const start = this.pos;
    const close = text.indexOf('*/', start + 2);
    const end = close === -1 ? text.length : close + 2;
    this.pos = end;
    const lineEnd = text.indexOf('\n', end);
    const rest = text.slice(end, lineEnd === -1 ? text.length : lineEnd);
    const options: { fix?: Fix } = {};
    if (close !== -1 && rest.trim() === '') {
      const edits: TextEdit[] = [{ start, end: start + 2, text: '#' }];
      for (let nl = text.indexOf('\n', start); nl !== -1 && nl < close; nl = text.indexOf('\n', nl + 1)) {
        let at = nl + 1;
        while (text[at] === ' ' || text[at] === '\t') at++;
        if (at <= close) edits.push({ start: at, end: at, text: '# ' });
      }
      edits.push({ start: close, end: close + 2, text: '' });
      options.fix = { description: 'Turn the /* */ comment into "#" comments', edits, safe: true };
    }
    this.sink.report('SYNTAX_SLASH_COMMENT', start, Math.min(start + 2, end),
      `Protobuf text format has no "/* */" comments; start each comment line with "#" instead.${close === -1 ? ' This one is never closed, so the rest of the file is ignored.' : ''}`, options);
  }

  private skipToLineEnd(): void {
    const nl = this.text.indexOf('\n', this.pos);
    this.pos = nl === -1 ? this.text.length : nl;
  }

  private reportTypographic(offset: number): void {
    const ch = this.text[offset]!;
    const ascii = TYPOGRAPHIC_SINGLE.has(ch) ? "'" : '"';
    this.sink.report('SYNTAX_TYPOGRAPHIC_QUOTE', offset, offset + 1,
      `Typographic quote ${ch} (U+${ch.charCodeAt(0).toString(16).toUpperCase()}) is not a string delimiter; use the ASCII quote ${ascii}.`, {
        fix: { description: `Replace ${ch} with ${ascii}`, edits: [{ start: offset, end: offset + 1, text: ascii }], safe: true },
      });
  }

  /**
   * A quoted string up to its closing quote on the same line. A string opened with a typographic
   * quote may be closed by either kind; one opened with an ASCII quote is closed by the same ASCII
   * quote only (typographic quotes are ordinary text inside it) unless the line has no ASCII
   * closer, in which case a trailing typographic quote was meant as the closer.
   */
  private scanString(): Token {
    const text = this.text;
    const start = this.pos;
    const open = text[start]!;
    const single = open === "'" || TYPOGRAPHIC_SINGLE.has(open);
    const ascii = single ? "'" : '"';
    const typographicOpen = open !== ascii;
    if (typographicOpen) this.reportTypographic(start);
    const closers = single ? TYPOGRAPHIC_SINGLE : TYPOGRAPHIC_DOUBLE;
    let i = start + 1;
    let lastTypographic = -1;
    while (i < text.length) {
      const c = text[i]!;
      if (c === '\n') break;
      if (c === '\\') {
        // A backslash at the end of a line does not continue the string onto the next line.
        if (text[i + 1] === '\n') {
          i++;
          break;
        }
        i += 2;
        continue;
      }
      if (c === ascii) {
        this.pos = i + 1;
        return { kind: 'string', start, end: i + 1, contentStart: start + 1, contentEnd: i, quote: ascii, terminated: true };
      }
      if (closers.has(c)) {
        if (typographicOpen) {
          this.reportTypographic(i);
          this.pos = i + 1;
          return { kind: 'string', start, end: i + 1, contentStart: start + 1, contentEnd: i, quote: ascii, terminated: true };
        }
        lastTypographic = i;
      }
      i++;
    }
    const lineEnd = Math.min(i, text.length);
    if (lastTypographic !== -1) {
      this.reportTypographic(lastTypographic);
      this.pos = lastTypographic + 1;
      return { kind: 'string', start, end: lastTypographic + 1, contentStart: start + 1, contentEnd: lastTypographic, quote: ascii, terminated: true };
    }
    let end = lineEnd;
    if (end > start && text[end - 1] === '\r') end--;
    this.sink.report('SYNTAX_UNTERMINATED_STRING', start, end,
      `String ${text.slice(start, Math.min(end, start + 40))} is missing its closing ${ascii} on this line; strings cannot span lines. Add ${ascii} at the end of the value.`);
    this.pos = lineEnd;
    return { kind: 'string', start, end, contentStart: start + 1, contentEnd: end, quote: ascii, terminated: false };
  }
}
