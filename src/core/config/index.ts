/**
 * The config core: parse config.pbtxt (syntax tree with spans, plain ModelConfig, SYNTAX_*
 * diagnostics), convert to protobuf JSON, print configs, and edit files byte-for-byte.
 */
export type { ConfigPath, FieldNode, ListNode, MessageNode, ParseResult, Position, ScalarNode, Span } from './ast.js';
export type { JsonValue } from './proto-json.js';
export type { ModelConfig } from './model-config.js';
export { MAX_CONFIG_LENGTH, parseModelConfig, toProtoJson } from './parse.js';
export { MAX_DIAGNOSTICS } from './source.js';
export { SYNTAX_RULES, type SyntaxRule } from './syntax-rules.js';
export { printFields, printModelConfig } from './printer.js';
export {
  appendTopLevelEdit,
  applyEdits,
  applyFixes,
  applySafeSyntaxFixes,
  replaceTopLevelEdits,
  setScalar,
  setScalarEdit,
  writeModelWarmup,
} from './edits.js';
