/**
 * Parses config.pbtxt text into a syntax tree with spans, the plain ModelConfig and SYNTAX_*
 * diagnostics, and converts a parse to protobuf JSON.
 */
import type { ConfigPath, MessageNode, ParseResult, Span } from './ast.js';
import { Interpreter, type ProtoMessage } from './interpret.js';
import { locatePath } from './locate.js';
import { TextFormatParser } from './parser.js';
import { messageJson, type JsonValue } from './proto-json.js';
import { modelConfigSchema } from './schema.js';
import { DiagnosticSink, SourceText } from './source.js';
import { toModelConfig } from './to-config.js';


const typedMessages = new WeakMap<MessageNode, ProtoMessage>();

/**
 * Triton configs are a few kilobytes; a file far larger is the wrong file, and building a syntax
 * tree for it would take seconds and hundreds of megabytes, so it is reported instead.
 */
export const MAX_CONFIG_LENGTH = 4_000_000;

function tooLarge(text: string, file: string): ParseResult {
  const source = new SourceText('', file);
  const sink = new DiagnosticSink(source);
  const mb = (text.length / 1e6).toFixed(1);
  sink.report('SYNTAX_FILE_TOO_LARGE', 0, 0,
    `The config is ${mb} MB; gebe parses configs up to ${MAX_CONFIG_LENGTH / 1e6} MB (Triton configs are usually a few KB). Check that this is the right file.`);
  const root: MessageNode = { kind: 'message', fields: [], span: source.span(0, 0) };
  return { root, config: {}, diagnostics: sink.sorted(), locate: () => undefined };
}

export function parseModelConfig(text: string, file: string): ParseResult {
  if (text.length > MAX_CONFIG_LENGTH) return tooLarge(text, file);
  const source = new SourceText(text, file);
  const sink = new DiagnosticSink(source);
  const schema = modelConfigSchema();
  const root = new TextFormatParser(source, sink, schema).parse();
  const message = new Interpreter(sink).message(root, schema);
  typedMessages.set(root, message);
  return {
    root,
    config: toModelConfig(message),
    diagnostics: sink.sorted(),
    locate: (path: ConfigPath, options?: { name?: boolean }): Span | undefined => locatePath(root, schema, path, options),
  };
}

/**
 * The parse result in protobuf's JSON mapping with proto field names (Python's MessageToDict
 * conventions): the format of the corpus's expected.json and of `--json` output.
 */
export function toProtoJson(result: ParseResult): { [key: string]: JsonValue } {
  let message = typedMessages.get(result.root);
  if (!message) {
    const source = new SourceText('', '');
    message = new Interpreter(new DiagnosticSink(source)).message(result.root, modelConfigSchema());
  }
  return messageJson(message);
}
