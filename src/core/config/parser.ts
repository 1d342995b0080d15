/**
 * The syntax layer of the text-format parser: turns tokens into a tree of fields, blocks, lists
 * and scalars with source spans, without knowing the schema. Type checking against
 * model_config.proto happens afterwards (interpret.ts). Syntax errors are reported to the sink
 * and the parser recovers at the next plausible field, so one run reports every problem.
 */
import { MAX_CONFIG_NESTING } from './limits.js';
import type { FieldNode, ListNode, MessageNode, ScalarNode, Span } from './ast.js';
import type { MessageInfo } from './schema.js';
import { DiagnosticSink, quoteSnippet, type SourceText } from './source.js';
import { decodeStringContent } from './strings.js';
import { Tokenizer, type Token } from './tokenizer.js';

const IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_]*$/;
const CLOSER: Record<string, string> = { '{': '}', '<': '>' };

function describe(token: Token, text: string): string {
  if (token.kind === 'eof') return 'the end of the file';
  return quoteSnippet(text.slice(token.start, token.end));
}

/** The message type of the block being parsed (when known) and of the blocks around it. */
interface Scope {
  type: MessageInfo | undefined;
  ancestors: MessageInfo[];
}

export class TextFormatParser {
  private readonly tokens: Tokenizer;
  private readonly text: string;
  /** Nesting depth of open blocks and lists, bounded so hostile input cannot exhaust the stack. */
  private depth = 0;
  private static readonly MAX_DEPTH = MAX_CONFIG_NESTING;

  /**
   * `schema` is optional and used only for recovery: knowing which fields belong to which message
   * lets the parser notice a block whose "}" is missing before the next top-level field.
   */
  constructor(private readonly source: SourceText, private readonly sink: DiagnosticSink, private readonly schema?: MessageInfo) {
    this.text = source.text;
    this.tokens = new Tokenizer(source.text, sink);
  }

  parse(): MessageNode {
    this.reportJsonDocument();
    const fields = this.parseFields(null, '', { type: this.schema, ancestors: [] });
    return { kind: 'message', fields, span: this.source.span(0, this.text.length) };
  }

  /** A whole file wrapped in "{ }" is usually JSON pasted where text format belongs. */
  private reportJsonDocument(): void {
    const first = this.tokens.peek();
    if (first.kind !== 'symbol' || first.text !== '{') return;
    this.tokens.next();
    this.sink.report('SYNTAX_JSON_CONFIG', first.start, first.end,
      `The config starts with "${first.text}", which looks like JSON. config.pbtxt is protobuf text format: top-level fields without outer braces, unquoted field names, ":" before values, e.g. name: "my_model".`);
    this.resynchronize();
  }

  private span(start: number, end: number): Span {
    return this.source.span(start, end);
  }

  /** Fields until the block's closer (or the end of the file for the root). */
  private parseFields(opener: Token | null, blockName: string, scope: Scope): FieldNode[] {
    const fields: FieldNode[] = [];
    const closer = opener ? CLOSER[(opener as { text: string }).text]! : null;
    for (;;) {
      const t = this.tokens.peek();
      if (t.kind === 'eof') {
        if (opener) this.reportUnclosed(opener, closer!, blockName);
        return fields;
      }
      if (t.kind === 'symbol') {
        if (t.text === closer) {
          this.tokens.next();
          return fields;
        }
        if (t.text === '}' || t.text === '>') {
          this.tokens.next();
          if (opener) {
            this.sink.report('SYNTAX_UNEXPECTED_TOKEN', t.start, t.end,
              `Block opened with "${(opener as { text: string }).text}" at line ${this.source.position(opener.start).line} must close with "${closer}", not "${t.text}".`, {
                fix: { description: `Replace "${t.text}" with "${closer}"`, edits: [{ start: t.start, end: t.end, text: closer! }], safe: false },
              });
            return fields;
          }
          this.sink.report('SYNTAX_UNEXPECTED_TOKEN', t.start, t.end,
            `Unexpected "${t.text}": there is no open block to close here. Remove it, or add the missing opening "${t.text === '}' ? '{' : '<'}".`);
          continue;
        }
        if (t.text === ',' || t.text === ';') {
          this.tokens.next();
          this.sink.report('SYNTAX_UNEXPECTED_TOKEN', t.start, t.end,
            `Unexpected "${t.text}": a separator may follow a field only once. Remove it.`, {
              fix: { description: `Remove "${t.text}"`, edits: [{ start: t.start, end: t.end, text: '' }], safe: true },
            });
          continue;
        }
      }
      if (opener && this.closesUnclosedBlock(t, opener, blockName, scope)) return fields;
      const field = this.parseField(scope);
      if (field) fields.push(field);
    }
  }

  /**
   * A field that the open block's message does not have, but an enclosing message does, written
   * no further right than the line that opened the block: the block's closer was forgotten.
   */
  private closesUnclosedBlock(t: Token, opener: Token, blockName: string, scope: Scope): boolean {
    if (t.kind !== 'word' || !scope.type || scope.type.byName.has(t.text)) return false;
    if (!scope.ancestors.some((a) => a.byName.has(t.text))) return false;
    // In a file whose braces balance, the field is misplaced rather than its block unclosed.
    if (!this.hasMoreOpenersThanClosers()) return false;
    const next = this.tokens.peek(1);
    if (next.kind !== 'symbol' || !':{<['.includes(next.text)) return false;
    const openerLine = this.source.lineAt(opener.start);
    const openerIndent = openerLine.length - openerLine.trimStart().length + 1;
    const position = this.source.position(t.start);
    const beforeOnLine = this.source.lineAt(t.start).slice(0, position.column - 1);
    if (beforeOnLine.trim() !== '' || position.column > openerIndent) return false;
    const where = this.source.position(opener.start);
    const closer = CLOSER[(opener as { text: string }).text]!;
    const lineStart = t.start - (position.column - 1);
    this.sink.report('SYNTAX_UNCLOSED_BLOCK', opener.start, opener.end,
      `The "${(opener as { text: string }).text}" of ${blockName} opened at line ${where.line}, column ${where.column} is never closed; add "${closer}" before line ${position.line} (${t.text} belongs to the enclosing message).`, {
        fix: { description: `Insert "${closer}" before line ${position.line}`, edits: [{ start: lineStart, end: lineStart, text: `${closer}\n` }], safe: false },
      });
    return true;
  }

  private openersExceedClosers: boolean | undefined;

  private hasMoreOpenersThanClosers(): boolean {
    if (this.openersExceedClosers === undefined) {
      const scanner = new Tokenizer(this.text, new DiagnosticSink(this.source));
      let balance = 0;
      for (let t = scanner.next(); t.kind !== 'eof'; t = scanner.next()) {
        if (t.kind !== 'symbol') continue;
        if (t.text === '{' || t.text === '<') balance++;
        else if (t.text === '}' || t.text === '>') balance--;
      }
      this.openersExceedClosers = balance > 0;
    }
    return this.openersExceedClosers;
  }

  private reportUnclosed(opener: Token, closer: string, blockName: string): void {
    const where = this.source.position(opener.start);
    const end = this.text.length;
    const needsNewline = end > 0 && this.text[end - 1] !== '\n';
    this.sink.report('SYNTAX_UNCLOSED_BLOCK', opener.start, opener.end,
      `The "${this.text[opener.start]}" of ${blockName} opened at line ${where.line}, column ${where.column} is never closed; add "${closer}" where the block ends.`, {
        fix: { description: `Add "${closer}" at the end of the file`, edits: [{ start: end, end, text: `${needsNewline ? '\n' : ''}${closer}\n` }], safe: false },
      });
  }

  private parseFieldName(t: Token): string | undefined {
    if (t.kind === 'word' && IDENTIFIER.test(t.text)) return t.text;
    if (t.kind === 'string' && this.isQuotedName(t) && this.tokens.peek().kind === 'symbol' && (this.tokens.peek() as { text: string }).text === ':') {
      const name = this.text.slice(t.contentStart, t.contentEnd);
      {
        this.sink.report('SYNTAX_QUOTED_FIELD_NAME', t.start, t.end,
          `Field names are not quoted in protobuf text format (this looks like JSON); write ${name} instead of ${this.text.slice(t.start, t.end)}.`, {
            fix: { description: `Remove the quotes around ${name}`, edits: [{ start: t.start, end: t.end, text: name }], safe: true },
          });
        return name;
      }
    }
    return undefined;
  }

  private parseField(scope: Scope): FieldNode | undefined {
    const nameToken = this.tokens.next();
    if (nameToken.kind === 'symbol' && nameToken.text === '[') {
      this.skipExtensionName(nameToken);
      return undefined;
    }
    const name = this.parseFieldName(nameToken);
    if (name === undefined) {
      this.reportExpectedFieldName(nameToken);
      return undefined;
    }
    let colon: Token | undefined;
    const after = this.tokens.peek();
    if (after.kind === 'symbol' && (after.text === ':' || after.text === '=')) {
      colon = this.tokens.next();
      if (after.text === '=') {
        this.sink.report('SYNTAX_UNEXPECTED_TOKEN', after.start, after.end,
          `Use ":" between a field name and its value in protobuf text format, not "=": ${name}: ...`, {
            fix: { description: 'Replace "=" with ":"', edits: [{ start: after.start, end: after.end, text: ':' }], safe: true },
          });
      }
    }
    const value = this.parseValue(name, nameToken, colon !== undefined, this.childScope(scope, name));
    if (!value) return undefined;
    const field: FieldNode = {
      name,
      nameSpan: this.span(nameToken.start, nameToken.end),
      value,
      span: this.span(nameToken.start, value.span.end.offset),
    };
    if (colon) field.colonSpan = this.span(colon.start, colon.end);
    const sep = this.tokens.peek();
    if (sep.kind === 'symbol' && (sep.text === ',' || sep.text === ';')) this.tokens.next();
    return field;
  }

  private reportExpectedFieldName(t: Token): void {
    if (t.kind === 'eof') return;
    const text = this.text.slice(t.start, t.end);
    if (t.kind === 'word' && /^[A-Za-z_]/.test(text)) {
      this.sink.report('SYNTAX_INVALID_FIELD_NAME', t.start, t.end,
        `${quoteSnippet(text)} is not a valid field name; field names use only letters, digits and "_".`);
    } else {
      this.sink.report('SYNTAX_UNEXPECTED_TOKEN', t.start, t.end, `Expected a field name, found ${describe(t, this.text)}.`);
    }
    // A bad name followed by ":" still has a value: skip it as part of the same mistake.
    const n = this.tokens.peek();
    if (t.kind === 'word' && n.kind === 'symbol' && n.text === ':') {
      this.tokens.next();
      this.skipValue();
    }
    this.resynchronize();
  }

  /**
   * After a token that cannot start a field, skips ahead to the next token that can (a name
   * followed by ":", "{", "<" or "["), or to a closer, so that one typo does not cascade.
   */
  private resynchronize(): void {
    for (;;) {
      const t = this.tokens.peek();
      if (t.kind === 'eof') return;
      if (t.kind === 'symbol' && (t.text === '}' || t.text === '>')) return;
      if ((t.kind === 'word' && IDENTIFIER.test(t.text)) || (t.kind === 'string' && this.isQuotedName(t))) {
        const n = this.tokens.peek(1);
        if (n.kind === 'symbol' && ':{<['.includes(n.text)) return;
      }
      if (t.kind === 'symbol' && (t.text === '{' || t.text === '<' || t.text === '[')) {
        this.skipValue();
        continue;
      }
      this.tokens.next();
    }
  }

  private isQuotedName(t: Token): boolean {
    return t.kind === 'string' && t.terminated && IDENTIFIER.test(this.text.slice(t.contentStart, t.contentEnd));
  }

  /** Skips one value (scalar, string run, block or list) without reporting its contents. */
  private skipValue(): void {
    const t = this.tokens.next();
    if (t.kind === 'string') {
      while (this.tokens.peek().kind === 'string') this.tokens.next();
      return;
    }
    if (t.kind !== 'symbol' || !'{<['.includes(t.text)) return;
    let depth = 1;
    while (depth > 0) {
      const n = this.tokens.next();
      if (n.kind === 'eof') return;
      if (n.kind === 'symbol' && '{<['.includes(n.text)) depth++;
      else if (n.kind === 'symbol' && '}>]'.includes(n.text)) depth--;
    }
  }

  /** `[ext.name]` or `[type.googleapis.com/...]`: ModelConfig has no extensions or Any fields. */
  private skipExtensionName(open: Token): void {
    let end = open.end;
    for (;;) {
      const t = this.tokens.next();
      if (t.kind === 'eof') break;
      end = t.end;
      if (t.kind === 'symbol' && t.text === ']') break;
    }
    this.sink.report('SYNTAX_UNKNOWN_FIELD', open.start, end,
      `${quoteSnippet(this.text.slice(open.start, end))}: ModelConfig has no extensions or Any fields; remove it.`);
    const t = this.tokens.peek();
    if (t.kind === 'symbol' && t.text === ':') this.tokens.next();
    this.skipValue();
  }

  private childScope(scope: Scope, name: string): Scope {
    const field = scope.type?.byName.get(name);
    return { type: field?.messageType, ancestors: scope.type ? [...scope.ancestors, scope.type] : [] };
  }

  private parseValue(name: string, nameToken: Token, hasColon: boolean, scope: Scope): ScalarNode | MessageNode | ListNode | undefined {
    const t = this.tokens.peek();
    if (t.kind === 'symbol' && (t.text === '{' || t.text === '<')) return this.parseBlock(name, scope);
    if (t.kind === 'symbol' && t.text === '[') return this.parseList(name, scope);
    if (t.kind === 'string' || t.kind === 'word') {
      const scalar = this.parseScalar();
      if (!hasColon) {
        this.sink.report('SYNTAX_MISSING_COLON', nameToken.start, scalar.span.end.offset,
          `Missing ":" between field ${name} and its value; write ${name}: ${scalar.text.length > 30 ? '...' : scalar.text}.`, {
            fix: { description: 'Insert ":"', edits: [{ start: nameToken.end, end: nameToken.end, text: ':' }], safe: true },
          });
      }
      return scalar;
    }
    this.sink.report('SYNTAX_MISSING_VALUE', nameToken.start, t.kind === 'eof' ? nameToken.end : t.end,
      `Field ${name} has no value: expected a value, "{" or "[" ${hasColon ? 'after ":"' : 'after the field name'}, found ${describe(t, this.text)}.`);
    return undefined;
  }

  private enter(t: Token): boolean {
    if (this.depth >= TextFormatParser.MAX_DEPTH) {
      this.sink.report('SYNTAX_NESTING_TOO_DEEP', t.start, t.end,
        `Blocks and lists are nested more than ${TextFormatParser.MAX_DEPTH} levels deep; the rest of this value is skipped.`);
      this.skipValue();
      return false;
    }
    this.depth++;
    return true;
  }

  private parseBlock(name: string, scope: Scope): MessageNode | undefined {
    const open = this.tokens.peek();
    if (!this.enter(open)) return undefined;
    this.tokens.next();
    const fields = this.parseFields(open, name, scope);
    this.depth--;
    const end = Math.max(this.tokens.lastEnd, open.end);
    return { kind: 'message', fields, span: this.span(open.start, end) };
  }

  private parseList(name: string, scope: Scope): ListNode | undefined {
    const open = this.tokens.peek();
    if (!this.enter(open)) return undefined;
    this.tokens.next();
    const items: Array<ScalarNode | MessageNode> = [];
    let end = open.end;
    const finish = (): ListNode => {
      this.depth--;
      return { kind: 'list', items, span: this.span(open.start, end) };
    };
    const first = this.tokens.peek();
    if (first.kind === 'symbol' && first.text === ']') {
      this.tokens.next();
      end = first.end;
      return finish();
    }
    for (;;) {
      const t = this.tokens.peek();
      let item: ScalarNode | MessageNode | undefined;
      if (t.kind === 'symbol' && (t.text === '{' || t.text === '<')) item = this.parseBlock(name, scope);
      else if (t.kind === 'string' || t.kind === 'word') item = this.parseScalar(false);
      else if (t.kind === 'eof' || (t.kind === 'symbol' && (t.text === '}' || t.text === '>'))) {
        this.reportUnclosedList(open, name);
        return finish();
      } else {
        this.tokens.next();
        this.sink.report('SYNTAX_UNEXPECTED_TOKEN', t.start, t.end, `Expected a list element of ${name}, found ${describe(t, this.text)}.`);
        continue;
      }
      if (item) {
        items.push(item);
        end = item.span.end.offset;
      }
      const sep = this.tokens.peek();
      if (sep.kind === 'symbol' && sep.text === ']') {
        this.tokens.next();
        end = sep.end;
        return finish();
      }
      if (sep.kind === 'symbol' && sep.text === ',') {
        this.tokens.next();
        const afterComma = this.tokens.peek();
        if (afterComma.kind === 'symbol' && afterComma.text === ']') {
          this.sink.report('SYNTAX_TRAILING_COMMA', sep.start, sep.end,
            `Protobuf text format does not allow a "," after the last element of a list; remove it.`, {
              fix: { description: 'Remove the trailing ","', edits: [{ start: sep.start, end: sep.end, text: '' }], safe: true },
            });
          this.tokens.next();
          end = afterComma.end;
          return finish();
        }
        continue;
      }
      if (this.startsField(sep)) {
        this.reportUnclosedList(open, name);
        return finish();
      }
      if (sep.kind === 'eof' || (sep.kind === 'symbol' && (sep.text === '}' || sep.text === '>'))) {
        this.reportUnclosedList(open, name);
        return finish();
      }
      if (sep.kind === 'string' || sep.kind === 'word' || (sep.kind === 'symbol' && (sep.text === '{' || sep.text === '<'))) {
        this.sink.report('SYNTAX_MISSING_COMMA', sep.start, sep.end,
          `List elements of ${name} must be separated by ","; add one before ${describe(sep, this.text)}.`, {
            fix: { description: 'Insert ","', edits: [{ start: end, end, text: ',' }], safe: true },
          });
        continue;
      }
      this.tokens.next();
      this.sink.report('SYNTAX_UNEXPECTED_TOKEN', sep.start, sep.end, `Expected "," or "]" in the list of ${name}, found ${describe(sep, this.text)}.`);
    }
  }

  /** A word followed by ":" or "{" starts a new field: the list before it was never closed. */
  private startsField(t: Token): boolean {
    if (t.kind !== 'word' || !IDENTIFIER.test(t.text)) return false;
    const n = this.tokens.peek(1);
    return n.kind === 'symbol' && (n.text === ':' || n.text === '{');
  }

  private reportUnclosedList(open: Token, name: string): void {
    const where = this.source.position(open.start);
    this.sink.report('SYNTAX_UNCLOSED_BLOCK', open.start, open.end,
      `The list of ${name} opened with "[" at line ${where.line}, column ${where.column} is never closed; add "]" after its last element.`);
  }

  /**
   * A scalar: adjacent quoted strings concatenated, or one word. A lone "-" followed by a word is
   * a negative number written with a space (C++ accepts `- 1`). In a list (`wholeLine` false) a
   * second word is the next element with a missing comma, not more of this value.
   */
  private parseScalar(wholeLine = true): ScalarNode {
    const first = this.tokens.next();
    if (first.kind === 'string') {
      let end = first.end;
      let value = this.decodeString(first);
      while (this.tokens.peek().kind === 'string') {
        const piece = this.tokens.next() as Extract<Token, { kind: 'string' }>;
        value += this.decodeString(piece);
        end = piece.end;
      }
      return { kind: 'scalar', token: 'string', text: this.text.slice(first.start, end), value, span: this.span(first.start, end) };
    }
    const word = first as Extract<Token, { kind: 'word' }>;
    let end = word.end;
    let normalized = word.text;
    if (word.text === '-') {
      const n = this.tokens.peek();
      if (n.kind === 'word') {
        this.tokens.next();
        normalized = `-${n.text}`;
        end = n.end;
      }
    }
    // Words that follow on the same line without starting a field (`name: my model`) are the rest
    // of an unquoted value: keep them together so the value is reported once, with one fix.
    const line = this.source.position(word.start).line;
    while (wholeLine) {
      const n = this.tokens.peek();
      if (n.kind !== 'word' || this.source.position(n.start).line !== line) break;
      const after = this.tokens.peek(1);
      if (after.kind === 'symbol' && ':{<['.includes(after.text)) break;
      this.tokens.next();
      end = n.end;
      normalized = this.text.slice(word.start, end);
    }
    const token = /^[A-Za-z_]/.test(normalized) ? 'identifier' : 'number';
    return { kind: 'scalar', token, text: this.text.slice(word.start, end), value: normalized, span: this.span(word.start, end) };
  }

  /** A string token as written, shortened for messages. */
  private shortText(t: Token): string {
    const raw = this.text.slice(t.start, t.end);
    return raw.length > 60 ? `${raw.slice(0, 59)}…` : raw;
  }

  private decodeString(t: Extract<Token, { kind: 'string' }>): string {
    const raw = this.text.slice(t.contentStart, t.contentEnd);
    const { value, problems } = decodeStringContent(raw);
    for (const p of problems) {
      const start = t.contentStart + p.offset;
      if (p.kind === 'escape' && p.length === 2 && !/^\\[xXuU]/.test(raw.slice(p.offset))) {
        this.sink.report('SYNTAX_INVALID_ESCAPE', start, start + p.length,
          `${p.message} in string ${this.shortText(t)}; write "\\\\" for a literal backslash.`, {
            fix: { description: 'Escape the backslash', edits: [{ start, end: start + 1, text: '\\\\' }], safe: true },
          });
      } else {
        this.sink.report(p.kind === 'utf8' ? 'SYNTAX_INVALID_UTF8' : 'SYNTAX_INVALID_ESCAPE', start, start + p.length,
          `${p.message} in string ${this.shortText(t)}.`);
      }
    }
    return value;
  }
}
