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

export function parseModelConfig(text: string, file: string): ParseResult {
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
