/**
 * Converts a scalar as written (a word or a quoted string) into the value of a schema field:
 * integers (decimal, hex, octal) with the range of their proto type, floats including inf and
 * nan, booleans, enum names or numbers, and strings. Failures come back as a ready diagnostic
 * description, with a safe fix where the intent is unambiguous (an unquoted string, a quoted
 * number or enum name).
 */
import type { Fix } from '../diagnostic.js';
import type { ScalarNode } from './ast.js';
import type { FieldInfo, ScalarType } from './schema.js';
import { is64Bit } from './schema.js';
import { quoteSnippet } from './source.js';
import { quoteString } from './strings.js';
import { closestName } from './suggest.js';

export type ScalarValue = string | number | bigint | boolean;

export type Decoded =
  | { ok: true; value: ScalarValue }
  | { ok: false; ruleId: string; message: string; fix?: Fix };

const INTEGER = /^(-?)(0[xX][0-9a-fA-F]+|0[0-7]*|[1-9][0-9]*)$/;
const FLOAT = /^-?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?[fF]?$/;
const SPECIAL_FLOAT = /^(-?)(inf|infinity|nan)f?$/i;

export const RANGES: Partial<Record<ScalarType, [bigint, bigint]>> = {
  int32: [-(2n ** 31n), 2n ** 31n - 1n],
  sint32: [-(2n ** 31n), 2n ** 31n - 1n],
  sfixed32: [-(2n ** 31n), 2n ** 31n - 1n],
  uint32: [0n, 2n ** 32n - 1n],
  fixed32: [0n, 2n ** 32n - 1n],
  int64: [-(2n ** 63n), 2n ** 63n - 1n],
  sint64: [-(2n ** 63n), 2n ** 63n - 1n],
  sfixed64: [-(2n ** 63n), 2n ** 63n - 1n],
  uint64: [0n, 2n ** 64n - 1n],
  fixed64: [0n, 2n ** 64n - 1n],
};

export function parseIntegerText(text: string): bigint | undefined {
  const m = INTEGER.exec(text);
  if (!m) return undefined;
  const digits = m[2]!;
  let magnitude: bigint;
  if (/^0[xX]/.test(digits)) magnitude = BigInt(digits);
  else if (digits.length > 1 && digits.startsWith('0')) magnitude = BigInt(`0o${digits.slice(1)}`);
  else magnitude = BigInt(digits);
  return m[1] ? -magnitude : magnitude;
}

function parseFloatText(text: string): number | undefined {
  const special = SPECIAL_FLOAT.exec(text);
  if (special) {
    const v = special[2]!.toLowerCase() === 'nan' ? NaN : Infinity;
    return special[1] ? -v : v;
  }
  if (FLOAT.test(text)) return Number(text.replace(/[fF]$/, ''));
  const int = parseIntegerText(text);
  return int === undefined ? undefined : Number(int);
}

function parseBoolText(text: string): boolean | undefined {
  if (text === 'true' || text === 'True' || text === 't') return true;
  if (text === 'false' || text === 'False' || text === 'f') return false;
  const int = parseIntegerText(text);
  if (int === 0n) return false;
  if (int === 1n) return true;
  return undefined;
}

function typeName(field: FieldInfo): string {
  if (field.kind === 'enum') return `enum ${field.enumType!.fullName}`;
  return field.scalar!;
}

/** Decodes text written without quotes as the field's type; undefined when it does not fit. */
function decodeWord(text: string, field: FieldInfo): ScalarValue | undefined {
  if (field.kind === 'enum') {
    const byName = field.enumType!.byName.get(text);
    if (byName !== undefined) return text;
    const n = parseIntegerText(text);
    if (n === undefined || n < -(2n ** 31n) || n > 2n ** 31n - 1n) return undefined;
    // proto3 enums are open: an unknown number is kept as a number.
    return field.enumType!.byNumber.get(Number(n)) ?? Number(n);
  }
  switch (field.scalar) {
    case 'bool':
      return parseBoolText(text);
    case 'float': {
      const v = parseFloatText(text);
      return v === undefined ? undefined : Math.fround(v);
    }
    case 'double':
      return parseFloatText(text);
    case 'string':
    case 'bytes':
      return undefined;
    default: {
      const n = parseIntegerText(text);
      const range = RANGES[field.scalar!];
      if (n === undefined || !range || n < range[0] || n > range[1]) return undefined;
      return is64Bit(field.scalar) ? n : Number(n);
    }
  }
}

function unquoteFix(node: ScalarNode, replacement: string): Fix {
  return {
    description: `Remove the quotes: ${replacement}`,
    edits: [{ start: node.span.start.offset, end: node.span.end.offset, text: replacement }],
    safe: true,
  };
}

export function decodeScalar(node: ScalarNode, field: FieldInfo): Decoded {
  const isText = field.kind === 'scalar' && (field.scalar === 'string' || field.scalar === 'bytes');
  if (node.token === 'string') {
    if (isText) return { ok: true, value: node.value as string };
    const content = String(node.value).trim();
    const asWord = decodeWord(content, field);
    const message = `Field "${field.name}" is ${article(typeName(field))}, not a string; write ${field.name}: ${content || '...'} without quotes.`;
    if (asWord !== undefined && content !== '') {
      return { ok: false, ruleId: 'SYNTAX_WRONG_VALUE_TYPE', message, fix: unquoteFix(node, content) };
    }
    return { ok: false, ruleId: 'SYNTAX_WRONG_VALUE_TYPE', message: `Field "${field.name}" is ${article(typeName(field))}; ${quoteSnippet(node.text)} is not a valid value.${enumHint(content, field)}` };
  }
  const text = String(node.value);
  if (isText) {
    const quoted = quoteString(text);
    return {
      ok: false,
      ruleId: 'SYNTAX_UNQUOTED_STRING',
      message: `String value ${text} of field "${field.name}" must be quoted: ${field.name}: ${quoted}.`,
      fix: { description: `Quote the value: ${quoted}`, edits: [{ start: node.span.start.offset, end: node.span.end.offset, text: quoted }], safe: true },
    };
  }
  if (text.startsWith('+')) {
    return { ok: false, ruleId: 'SYNTAX_WRONG_VALUE_TYPE', message: `Numbers cannot start with "+" in protobuf text format; write ${field.name}: ${text.slice(1)}.`,
      fix: { description: 'Remove the "+"', edits: [{ start: node.span.start.offset, end: node.span.start.offset + 1, text: '' }], safe: true } };
  }
  const value = decodeWord(text, field);
  if (value !== undefined) return { ok: true, value };
  return describeFailure(node, text, field);
}

function article(type: string): string {
  return /^[aeiou]/i.test(type) ? `an ${type}` : `a ${type}`;
}

function enumHint(text: string, field: FieldInfo): string {
  if (field.kind !== 'enum') return '';
  const suggestion = suggestEnumValue(text, field);
  return suggestion ? ` Did you mean ${suggestion.value}?` : '';
}

/**
 * Data type names from other tools (ONNX, NumPy, KServe's wire names) that users paste into
 * data_type: the edit distance to Triton's names is too large to find them otherwise.
 */
const DATA_TYPE_ALIASES: Record<string, string> = {
  FLOAT: 'TYPE_FP32', FLOAT32: 'TYPE_FP32', FLOAT16: 'TYPE_FP16', HALF: 'TYPE_FP16', DOUBLE: 'TYPE_FP64',
  FLOAT64: 'TYPE_FP64', BFLOAT16: 'TYPE_BF16', INT: 'TYPE_INT32', LONG: 'TYPE_INT64', BYTES: 'TYPE_STRING',
  STRING: 'TYPE_STRING', STR: 'TYPE_STRING', BOOLEAN: 'TYPE_BOOL',
};

/**
 * Aliases with one meaning in every tool that uses them. FLOAT (fp64 in Python), INT and LONG
 * (sized by the platform) are guesses, so their replacement stays a suggestion.
 */
const EXACT_DATA_TYPE_ALIASES = new Set(['FLOAT32', 'FLOAT16', 'HALF', 'DOUBLE', 'FLOAT64', 'BFLOAT16', 'BYTES', 'STRING', 'STR', 'BOOLEAN']);

/**
 * The enum value a misspelling most likely means, and whether replacing it cannot change the
 * meaning: the same name in another case, the value without its prefix (`FP32` for `TYPE_FP32`,
 * KServe's wire names), or an exact alias (`TYPE_BYTES` → `TYPE_STRING`).
 */
function suggestEnumValue(text: string, field: FieldInfo): { value: string; safe: boolean } | undefined {
  const names = [...field.enumType!.byName.keys()];
  const bare = text.toUpperCase().replace(/^(TYPE_|DT_|NP\.)/, '');
  const alias = DATA_TYPE_ALIASES[bare];
  if (field.enumType!.fullName === 'inference.DataType' && alias) return { value: alias, safe: EXACT_DATA_TYPE_ALIASES.has(bare) };
  const value = closestName(text, names);
  if (value === undefined) return undefined;
  const lower = text.toLowerCase();
  const unprefixed = names.filter((n) => n.toLowerCase().endsWith(`_${lower}`));
  return { value, safe: value.toLowerCase() === lower || (unprefixed.length === 1 && unprefixed[0] === value) };
}

function describeFailure(node: ScalarNode, text: string, field: FieldInfo): Decoded {
  const shown = quoteSnippet(node.text);
  if (field.kind === 'enum') {
    const names = [...field.enumType!.byName.keys()];
    const suggestion = suggestEnumValue(text, field);
    const message = `${shown} is not a value of ${field.enumType!.fullName} (field "${field.name}").` +
      (suggestion ? ` Did you mean ${suggestion.value}?` : ` Use one of: ${names.slice(0, 16).join(', ')}${names.length > 16 ? ', ...' : ''}.`);
    const result: Decoded = { ok: false, ruleId: 'SYNTAX_UNKNOWN_ENUM_VALUE', message };
    if (suggestion) {
      result.fix = { description: `Replace with ${suggestion.value}`, edits: [{ start: node.span.start.offset, end: node.span.end.offset, text: suggestion.value }], safe: suggestion.safe };
    }
    return result;
  }
  const scalar = field.scalar!;
  const range = RANGES[scalar];
  if (range) {
    const n = parseIntegerText(text);
    if (n !== undefined) {
      return { ok: false, ruleId: 'SYNTAX_INTEGER_RANGE',
        message: `${text} is out of range for field "${field.name}" (${scalar}: ${range[0]} to ${range[1]}).` };
    }
    if (/^0[0-9]+$/.test(text.replace(/^-/, ''))) {
      return { ok: false, ruleId: 'SYNTAX_WRONG_VALUE_TYPE',
        message: `${shown} is not a valid integer: a leading 0 means octal, which allows only digits 0-7. Write it without the leading zero.` };
    }
    if (parseFloatText(text) !== undefined) {
      return { ok: false, ruleId: 'SYNTAX_WRONG_VALUE_TYPE',
        message: `Field "${field.name}" is an integer (${scalar}); ${shown} is not a whole number.` };
    }
    return { ok: false, ruleId: 'SYNTAX_WRONG_VALUE_TYPE', message: `Field "${field.name}" expects an integer (${scalar}), found ${shown}.` };
  }
  if (scalar === 'bool') {
    const lower = text.toLowerCase();
    const result: Decoded = { ok: false, ruleId: 'SYNTAX_WRONG_VALUE_TYPE', message: `Field "${field.name}" is a bool; write true or false, not ${shown}.` };
    // TRUE/FALSE in another case can only mean one thing; yes/no/on/off are likely but not certain.
    const meant = lower === 'true' || lower === 'false' ? lower : ({ yes: 'true', on: 'true', no: 'false', off: 'false' } as Record<string, string>)[lower];
    if (meant) {
      result.fix = { description: `Replace with ${meant}`, edits: [{ start: node.span.start.offset, end: node.span.end.offset, text: meant }], safe: lower === meant };
    }
    return result;
  }
  return { ok: false, ruleId: 'SYNTAX_WRONG_VALUE_TYPE', message: `Field "${field.name}" expects a number (${scalar}), found ${shown}.` };
}

/** The zero value a proto3 field without presence has when it is not written. */
export function isDefaultScalar(field: FieldInfo, value: unknown): boolean {
  if (field.kind === 'enum') return value === 0 || (typeof value === 'string' && field.enumType!.byName.get(value) === 0);
  if (typeof value === 'bigint') return value === 0n;
  if (typeof value === 'number') return value === 0 && !Object.is(value, -0);
  return value === false || value === '';
}
