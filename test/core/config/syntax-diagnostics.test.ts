/**
 * Every SYNTAX_* diagnostic, ESLint-style: the input, the exact positions and rule ids reported,
 * a fragment of the message, and the text after applying the safe fixes (or none when the fix is
 * only a suggestion).
 */
import { describe, expect, it } from 'vitest';
import { applyFixes, applySafeSyntaxFixes, parseModelConfig } from '../../../src/core/config/index.js';

interface Expected {
  ruleId: string;
  line: number;
  column: number;
  endLine?: number;
  endColumn?: number;
  message?: RegExp;
  severity?: 'error' | 'warning';
  /** The fix's edit applied alone, for fixes that are suggestions (not safe). */
  suggestion?: string;
}

interface Case {
  title: string;
  code: string;
  errors: Expected[];
  /** The text after applying every safe fix once; omitted when no safe fix exists. */
  output?: string;
}

const cases: Case[] = [
  {
    title: '// comments are reported and then read as comments',
    code: 'name: "a" // the name\n// a whole line\nmax_batch_size: 8\n',
    errors: [
      { ruleId: 'SYNTAX_SLASH_COMMENT', line: 1, column: 11, endLine: 1, endColumn: 13, message: /"#"/ },
      { ruleId: 'SYNTAX_SLASH_COMMENT', line: 2, column: 1, endLine: 2, endColumn: 3 },
    ],
    output: 'name: "a" # the name\n# a whole line\nmax_batch_size: 8\n',
  },
  {
    title: '/* */ comments, fixed when nothing follows them on their last line',
    code: '/* header\n   more */\nname: "a" /* inline */ max_batch_size: 1\n',
    errors: [
      { ruleId: 'SYNTAX_SLASH_COMMENT', line: 1, column: 1, endColumn: 3, message: /"\/\* \*\/"/ },
      { ruleId: 'SYNTAX_SLASH_COMMENT', line: 3, column: 11 },
    ],
    output: '# header\n   # more \nname: "a" /* inline */ max_batch_size: 1\n',
  },
  {
    title: 'a JSON document instead of text format',
    code: '{\n  "name": "m",\n  "max_batch_size": 8\n}\n',
    errors: [
      { ruleId: 'SYNTAX_JSON_CONFIG', line: 1, column: 1, message: /looks like JSON/ },
      { ruleId: 'SYNTAX_QUOTED_FIELD_NAME', line: 2, column: 3 },
      { ruleId: 'SYNTAX_QUOTED_FIELD_NAME', line: 3, column: 3 },
      { ruleId: 'SYNTAX_UNEXPECTED_TOKEN', line: 4, column: 1, message: /no open block/ },
    ],
    output: '{\n  name: "m",\n  max_batch_size: 8\n}\n',
  },
  {
    title: 'a map key given twice',
    code: 'parameters { key: "a" value { string_value: "1" } }\nparameters { key: "a" value { string_value: "2" } }\n',
    errors: [{ ruleId: 'SYNTAX_DUPLICATE_MAP_KEY', line: 2, column: 12, severity: 'warning', message: /key "a" more than once \(first at line 1\)/ }],
  },
  {
    title: 'typographic double and single quotes',
    code: 'name: \u201Cresnet\u201D\nplatform: \u2018onnxruntime_onnx\u2019\n',
    errors: [
      { ruleId: 'SYNTAX_TYPOGRAPHIC_QUOTE', line: 1, column: 7, endColumn: 8, message: /ASCII quote "/ },
      { ruleId: 'SYNTAX_TYPOGRAPHIC_QUOTE', line: 1, column: 14, endColumn: 15 },
      { ruleId: 'SYNTAX_TYPOGRAPHIC_QUOTE', line: 2, column: 11, endColumn: 12, message: /ASCII quote '/ },
      { ruleId: 'SYNTAX_TYPOGRAPHIC_QUOTE', line: 2, column: 28, endColumn: 29 },
    ],
    output: 'name: "resnet"\nplatform: \'onnxruntime_onnx\'\n',
  },
  {
    title: 'an ASCII opening quote closed by a typographic one',
    code: 'name: "resnet\u201D\n',
    errors: [{ ruleId: 'SYNTAX_TYPOGRAPHIC_QUOTE', line: 1, column: 14 }],
    output: 'name: "resnet"\n',
  },
  {
    title: 'typographic quotes inside an ASCII string are text',
    code: 'name: "it\u2019s"\n',
    errors: [],
  },
  {
    title: 'unquoted string values',
    code: 'name: my_model\nbackend: onnxruntime-gpu.so\ndefault_model_filename: model.onnx,\nplatform: onnx runtime # comment\nmax_batch_size: 8\n',
    errors: [
      { ruleId: 'SYNTAX_UNQUOTED_STRING', line: 1, column: 7, endColumn: 15, message: /name: "my_model"/ },
      { ruleId: 'SYNTAX_UNQUOTED_STRING', line: 2, column: 10, endColumn: 28 },
      { ruleId: 'SYNTAX_UNQUOTED_STRING', line: 3, column: 25, endColumn: 35 },
      { ruleId: 'SYNTAX_UNQUOTED_STRING', line: 4, column: 11, endColumn: 23, message: /platform: "onnx runtime"/ },
    ],
    output: 'name: "my_model"\nbackend: "onnxruntime-gpu.so"\ndefault_model_filename: "model.onnx",\nplatform: "onnx runtime" # comment\nmax_batch_size: 8\n',
  },
  {
    title: 'a missing } before the next top-level field is reported where the block opened',
    code: 'input {\n  name: "x"\n  dims: [ 1 ]\n\noutput { name: "y" }\n',
    errors: [{ ruleId: 'SYNTAX_UNCLOSED_BLOCK', line: 1, column: 7, endColumn: 8, message: /opened at line 1, column 7 .* before line 5/, suggestion: 'input {\n  name: "x"\n  dims: [ 1 ]\n\n}\noutput { name: "y" }\n' }],
  },
  {
    title: 'a top-level field misplaced inside a block that is closed is an unknown field, not a missing }',
    code: 'input {\n  name: "x"\nbackend: "onnxruntime"\n}\n',
    errors: [{ ruleId: 'SYNTAX_UNKNOWN_FIELD', line: 3, column: 1, message: /"backend" does not exist in ModelInput; it belongs to ModelConfig\. Move it out/ }],
  },
  {
    title: 'a missing } at the end of the file',
    code: 'dynamic_batching {\n  max_queue_delay_microseconds: 100\n',
    errors: [{ ruleId: 'SYNTAX_UNCLOSED_BLOCK', line: 1, column: 18, message: /"\{" of dynamic_batching opened at line 1, column 18/, suggestion: 'dynamic_batching {\n  max_queue_delay_microseconds: 100\n}\n' }],
  },
  {
    title: 'a missing ] in a list',
    code: 'input { dims: [ 1, 2\n  data_type: TYPE_FP32 }\n',
    errors: [{ ruleId: 'SYNTAX_UNCLOSED_BLOCK', line: 1, column: 15, message: /list of dims/ }],
  },
  {
    title: 'unknown field names with and without a suggestion',
    code: 'max_batch: 8\ninput { nmae: "x" }\nfoo_bar { a: 1 }\n',
    errors: [
      { ruleId: 'SYNTAX_UNKNOWN_FIELD', line: 1, column: 1, endColumn: 10, message: /did you mean "max_batch_size"/, suggestion: 'max_batch_size: 8\ninput { nmae: "x" }\nfoo_bar { a: 1 }\n' },
      { ruleId: 'SYNTAX_UNKNOWN_FIELD', line: 2, column: 9, endColumn: 13, message: /in ModelInput; did you mean "name"/, suggestion: 'max_batch: 8\ninput { name: "x" }\nfoo_bar { a: 1 }\n' },
      { ruleId: 'SYNTAX_UNKNOWN_FIELD', line: 3, column: 1, endColumn: 8, message: /"foo_bar" does not exist in ModelConfig\.$/ },
    ],
  },
  {
    title: 'wrong value types',
    code: 'max_batch_size: "8"\ndynamic_batching: 5\nname { }\ninput { data_type: "TYPE_FP32" optional: "true" }\n',
    errors: [
      { ruleId: 'SYNTAX_WRONG_VALUE_TYPE', line: 1, column: 17, endColumn: 20, message: /int32, not a string; write max_batch_size: 8/ },
      { ruleId: 'SYNTAX_WRONG_VALUE_TYPE', line: 2, column: 19, endColumn: 20, message: /is a message/ },
      { ruleId: 'SYNTAX_WRONG_VALUE_TYPE', line: 3, column: 6, endColumn: 9, message: /not a message/ },
      { ruleId: 'SYNTAX_WRONG_VALUE_TYPE', line: 4, column: 20, endColumn: 31 },
      { ruleId: 'SYNTAX_WRONG_VALUE_TYPE', line: 4, column: 42, endColumn: 48 },
    ],
    output: 'max_batch_size: 8\ndynamic_batching: 5\nname { }\ninput { data_type: TYPE_FP32 optional: true }\n',
  },
  {
    title: 'map entries written with the value unwrapped',
    code: 'parameters { key: "device_ids" value: "0,1" }\nparameters { key: "static_model" string_value: "1" }\n',
    errors: [
      { ruleId: 'SYNTAX_WRONG_VALUE_TYPE', line: 1, column: 39, endColumn: 44, message: /ModelParameter message, not a string; write value: \{ string_value: "0,1" \}/ },
      { ruleId: 'SYNTAX_UNKNOWN_FIELD', line: 2, column: 34, message: /put "string_value" inside the value/ },
    ],
    output: 'parameters { key: "device_ids" value: { string_value: "0,1" } }\nparameters { key: "static_model" string_value: "1" }\n',
  },
  {
    title: 'numbers that are not integers, and lists for non-repeated fields',
    code: 'max_batch_size: 1.5\nname: [ "a" ]\ninstance_group { count: two }\n',
    errors: [
      { ruleId: 'SYNTAX_WRONG_VALUE_TYPE', line: 1, column: 17, message: /not a whole number/ },
      { ruleId: 'SYNTAX_WRONG_VALUE_TYPE', line: 2, column: 7, endColumn: 14, message: /not repeated/ },
      { ruleId: 'SYNTAX_WRONG_VALUE_TYPE', line: 3, column: 25, message: /expects an integer \(int32\), found "two"/ },
    ],
  },
  {
    title: 'integer ranges per type',
    code: 'max_batch_size: 2147483648\ninstance_group { count: -2147483648 gpus: 2147483648 gpus: -1 }\n' +
      'dynamic_batching { max_queue_delay_microseconds: 18446744073709551616 priority_levels: 18446744073709551615 }\n' +
      'input { dims: 9223372036854775808 dims: -9223372036854775808 }\nmodel_warmup { batch_size: 4294967296 count: 0xFFFFFFFF }\n',
    errors: [
      { ruleId: 'SYNTAX_INTEGER_RANGE', line: 1, column: 17, endColumn: 27, message: /int32: -2147483648 to 2147483647/ },
      { ruleId: 'SYNTAX_INTEGER_RANGE', line: 2, column: 43, message: /int32/ },
      { ruleId: 'SYNTAX_INTEGER_RANGE', line: 3, column: 50, message: /uint64: 0 to 18446744073709551615/ },
      { ruleId: 'SYNTAX_INTEGER_RANGE', line: 4, column: 15, message: /int64/ },
      { ruleId: 'SYNTAX_INTEGER_RANGE', line: 5, column: 28, message: /uint32/ },
    ],
  },
  {
    title: 'enum names: unknown, suggested, and numbers',
    code: 'input { data_type: FP32 format: FORMAT_NCHW }\ninstance_group { kind: GPU }\ninstance_group { kind: 2 }\n',
    errors: [
      { ruleId: 'SYNTAX_UNKNOWN_ENUM_VALUE', line: 1, column: 20, endColumn: 24, message: /Did you mean TYPE_FP32/ },
      { ruleId: 'SYNTAX_UNKNOWN_ENUM_VALUE', line: 2, column: 24, message: /Did you mean KIND_GPU/ },
    ],
    // The value without its prefix (KServe's wire name) means exactly one value: a safe fix.
    output: 'input { data_type: TYPE_FP32 format: FORMAT_NCHW }\ninstance_group { kind: KIND_GPU }\ninstance_group { kind: 2 }\n',
  },
  {
    title: 'data type names from ONNX, NumPy and KServe',
    code: 'input { data_type: FLOAT }\noutput { data_type: BYTES }\n',
    errors: [
      // FLOAT is fp32 in ONNX but fp64 in Python: a suggestion. BYTES is KServe's TYPE_STRING: safe.
      { ruleId: 'SYNTAX_UNKNOWN_ENUM_VALUE', line: 1, column: 20, message: /Did you mean TYPE_FP32\?/, suggestion: 'input { data_type: TYPE_FP32 }\noutput { data_type: BYTES }\n' },
      { ruleId: 'SYNTAX_UNKNOWN_ENUM_VALUE', line: 2, column: 21, message: /Did you mean TYPE_STRING\?/ },
    ],
    output: 'input { data_type: FLOAT }\noutput { data_type: TYPE_STRING }\n',
  },
  {
    title: 'unknown field names that only respell a field: safe renames, unless the field is already set',
    code: 'input { datatype: TYPE_FP32 }\ndynamic_batching { max_queue_delay_microsecond: 100 preferred_batch_sizes: [ 4 ] }\nmaxBatchSize: 8\nmax_batch_size: 4\n',
    errors: [
      { ruleId: 'SYNTAX_UNKNOWN_FIELD', line: 1, column: 9, message: /did you mean "data_type"/ },
      { ruleId: 'SYNTAX_UNKNOWN_FIELD', line: 2, column: 20, message: /did you mean "max_queue_delay_microseconds"/ },
      { ruleId: 'SYNTAX_UNKNOWN_FIELD', line: 2, column: 53, message: /did you mean "preferred_batch_size"/ },
      { ruleId: 'SYNTAX_UNKNOWN_FIELD', line: 3, column: 1, message: /did you mean "max_batch_size"/, suggestion: 'input { datatype: TYPE_FP32 }\ndynamic_batching { max_queue_delay_microsecond: 100 preferred_batch_sizes: [ 4 ] }\nmax_batch_size: 8\nmax_batch_size: 4\n' },
    ],
    output: 'input { data_type: TYPE_FP32 }\ndynamic_batching { max_queue_delay_microseconds: 100 preferred_batch_size: [ 4 ] }\nmaxBatchSize: 8\nmax_batch_size: 4\n',
  },
  {
    title: 'booleans in other spellings',
    code: 'dynamic_batching { preserve_ordering: TRUE }\ninput { optional: yes }\n',
    errors: [
      { ruleId: 'SYNTAX_WRONG_VALUE_TYPE', line: 1, column: 39, message: /write true or false, not "TRUE"/ },
      { ruleId: 'SYNTAX_WRONG_VALUE_TYPE', line: 2, column: 19, suggestion: 'dynamic_batching { preserve_ordering: TRUE }\ninput { optional: true }\n' },
    ],
    output: 'dynamic_batching { preserve_ordering: true }\ninput { optional: yes }\n',
  },
  {
    title: 'a non-repeated field given twice',
    code: 'name: "a"\nname: "b"\nmax_batch_size: 0\nmax_batch_size: 4\ndynamic_batching { }\ndynamic_batching { }\n',
    errors: [
      { ruleId: 'SYNTAX_DUPLICATE_FIELD', line: 2, column: 1, endColumn: 5, message: /already set at line 1/ },
      { ruleId: 'SYNTAX_DUPLICATE_FIELD', line: 4, column: 1, severity: 'warning', message: /first value is the default/ },
      { ruleId: 'SYNTAX_DUPLICATE_FIELD', line: 6, column: 1 },
    ],
  },
  {
    title: 'two members of a oneof',
    code: 'dynamic_batching { }\nsequence_batching { }\nmodel_warmup { inputs { key: "x" value { zero_data: true random_data: true } } }\n',
    errors: [
      { ruleId: 'SYNTAX_ONEOF_CONFLICT', line: 2, column: 1, endColumn: 18, message: /oneof "scheduling_choice"/ },
      { ruleId: 'SYNTAX_ONEOF_CONFLICT', line: 3, column: 58, message: /"random_data" cannot be set together with "zero_data"/ },
    ],
  },
  {
    title: 'missing colon before a scalar or a scalar list, "=" instead of ":", JSON-style names',
    code: 'name "x"\ninput { dims [ 1 ] }\nmax_batch_size = 4\n"backend": "onnxruntime"\n',
    errors: [
      { ruleId: 'SYNTAX_MISSING_COLON', line: 1, column: 1, endColumn: 9 },
      { ruleId: 'SYNTAX_MISSING_COLON', line: 2, column: 9 },
      { ruleId: 'SYNTAX_UNEXPECTED_TOKEN', line: 3, column: 16, message: /not "="/ },
      { ruleId: 'SYNTAX_QUOTED_FIELD_NAME', line: 4, column: 1, endColumn: 10 },
    ],
    output: 'name: "x"\ninput { dims: [ 1 ] }\nmax_batch_size : 4\nbackend: "onnxruntime"\n',
  },
  {
    title: 'list punctuation: trailing and missing commas',
    code: 'input { dims: [ 1, 2, ] }\noutput { dims: [ 3 4 ] }\n',
    errors: [
      { ruleId: 'SYNTAX_TRAILING_COMMA', line: 1, column: 21, endColumn: 22 },
      { ruleId: 'SYNTAX_MISSING_COMMA', line: 2, column: 20 },
    ],
    output: 'input { dims: [ 1, 2 ] }\noutput { dims: [ 3, 4 ] }\n',
  },
  {
    title: 'strings: unterminated, bad escapes, non-ASCII spaces and a byte-order mark',
    code: '\uFEFFname: "C:\\models"\nplatform: "onnx\nbackend:\u00A0"ge"\n',
    errors: [
      { ruleId: 'SYNTAX_INVALID_CHARACTER', line: 1, column: 1, message: /byte-order mark/ },
      { ruleId: 'SYNTAX_INVALID_ESCAPE', line: 1, column: 11, endColumn: 13, message: /"\\m" is not a valid escape sequence in string "C:\\models"; write/ },
      { ruleId: 'SYNTAX_UNTERMINATED_STRING', line: 2, column: 11, endColumn: 16 },
      { ruleId: 'SYNTAX_INVALID_CHARACTER', line: 3, column: 9, message: /U\+00A0/ },
    ],
    output: 'name: "C:\\\\models"\nplatform: "onnx\nbackend: "ge"\n',
  },
  {
    title: 'stray closers and separators',
    code: 'name: "a"\n}\nmax_batch_size: 1,,\ninput { name: "x" >\n',
    errors: [
      { ruleId: 'SYNTAX_UNEXPECTED_TOKEN', line: 2, column: 1, message: /no open block/ },
      { ruleId: 'SYNTAX_UNEXPECTED_TOKEN', line: 3, column: 19, message: /separator/ },
      { ruleId: 'SYNTAX_UNEXPECTED_TOKEN', line: 4, column: 19, message: /must close with "\}"/ },
    ],
    output: 'name: "a"\n}\nmax_batch_size: 1,\ninput { name: "x" >\n',
  },
  {
    title: 'values missing and field names that are not identifiers',
    code: 'input { name: }\n2name: "x"\n: 4\nmax_batch_size:',
    errors: [
      { ruleId: 'SYNTAX_MISSING_VALUE', line: 1, column: 9, message: /found "\}"/ },
      { ruleId: 'SYNTAX_UNEXPECTED_TOKEN', line: 2, column: 1, message: /Expected a field name, found "2name"/ },
      { ruleId: 'SYNTAX_MISSING_VALUE', line: 4, column: 1, message: /the end of the file/ },
    ],
  },
  {
    title: 'field names with characters other than letters, digits and "_"',
    code: 'max-batch-size: 8\nname: "\\377"\n',
    errors: [
      { ruleId: 'SYNTAX_INVALID_FIELD_NAME', line: 1, column: 1, endColumn: 15, message: /"max-batch-size" is not a valid field name/ },
      { ruleId: 'SYNTAX_INVALID_UTF8', line: 2, column: 8, message: /not valid UTF-8/ },
    ],
  },
  {
    title: 'extensions and Any are not part of ModelConfig',
    code: '[ext.foo]: 1\nname: "a"\n',
    errors: [{ ruleId: 'SYNTAX_UNKNOWN_FIELD', line: 1, column: 1, endColumn: 10, message: /no extensions/ }],
  },
];

function applySuggestion(code: string, fix: { edits: Array<{ start: number; end: number; text: string }> }): string {
  return applyFixes(code, [{ description: '', edits: fix.edits, safe: true }]).text;
}

describe('SYNTAX_* diagnostics', () => {
  it.each(cases)('$title', ({ code, errors, output }) => {
    const result = parseModelConfig(code, 'model/config.pbtxt');
    const actual = result.diagnostics.map((d) => ({ ruleId: d.ruleId, line: d.line, column: d.column }));
    expect(actual).toEqual(errors.map((e) => ({ ruleId: e.ruleId, line: e.line, column: e.column })));
    errors.forEach((e, i) => {
      const d = result.diagnostics[i]!;
      expect(d.file).toBe('model/config.pbtxt');
      expect(d.ruleId.startsWith('SYNTAX_')).toBe(true);
      expect(d.severity).toBe(e.severity ?? 'error');
      if (e.endLine !== undefined) expect(d.endLine).toBe(e.endLine);
      if (e.endColumn !== undefined) expect(d.endColumn).toBe(e.endColumn);
      if (e.message) expect(d.message).toMatch(e.message);
      if (e.suggestion !== undefined) {
        expect(d.fix?.safe).toBe(false);
        expect(applySuggestion(code, d.fix!)).toBe(e.suggestion);
      }
    });
    const safeFixes = result.diagnostics.flatMap((d) => (d.fix?.safe ? [d.fix] : []));
    if (output === undefined) {
      expect(safeFixes).toEqual([]);
    } else {
      expect(applyFixes(code, safeFixes).text).toBe(output);
    }
  });

  it('reports every instance in one run and keeps the config best effort', () => {
    const code = 'name: my_model // name\nmax_batch_size: 8 // batch\ninput { name: \u201Cx\u201D data_type: TYPE_FP32 dims: [ 4 ] }\n';
    const result = parseModelConfig(code, 'c.pbtxt');
    expect(result.diagnostics.map((d) => d.ruleId)).toEqual([
      'SYNTAX_UNQUOTED_STRING', 'SYNTAX_SLASH_COMMENT', 'SYNTAX_SLASH_COMMENT', 'SYNTAX_TYPOGRAPHIC_QUOTE', 'SYNTAX_TYPOGRAPHIC_QUOTE',
    ]);
    expect(result.config).toEqual({ name: 'my_model', max_batch_size: 8, input: [{ name: 'x', data_type: 'TYPE_FP32', dims: [4] }] });
  });

  it('keeps an unwrapped map value in the config', () => {
    const result = parseModelConfig('parameters { key: "device_ids" value: "0,1" }', 'c.pbtxt');
    expect(result.config.parameters).toEqual({ device_ids: { string_value: '0,1' } });
  });

  it('applies safe fixes until the file parses cleanly', () => {
    const code = 'name: my_model // name\ninput { name: \u201Cx\u201D, dims: [ 4, ] }\n';
    const { text, result } = applySafeSyntaxFixes(code, 'c.pbtxt');
    expect(text).toBe('name: "my_model" # name\ninput { name: "x", dims: [ 4 ] }\n');
    expect(result.diagnostics).toEqual([]);
  });
});
