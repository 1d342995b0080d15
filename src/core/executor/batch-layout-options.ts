/**
 * Triton's ragged batching for the executor: the config's allow_ragged_batch inputs, batch_input
 * and batch_output as the native options that name them (native/src/scheduler/batch_layout.h does
 * the work). An input with allow_ragged_batch reaches the model as one dimension, the batched
 * requests' elements one after another; a batch input is a model input computed from the batch;
 * a batch output is split among the requests by the shape each gave its source input.
 */
import { batchInputs, batchOutputs, raggedInputNames, type ModelConfig } from '../config/model-config.js';
import { modelConfigSchema } from '../config/schema.js';
import { configTypeCode } from '../kserve/datatypes.js';

export interface NativeBatchInput {
  /** Triton's BatchInput.Kind number (the native BatchInputKind). */
  kind: number;
  /** Native datatype code: INT32 or FP32. */
  dtype: number;
  source: string;
  targets: string[];
}

export interface NativeBatchOutput {
  output: string;
  source: string;
  /** The output as clients see it (batch dimension first when batched); each -1 takes the source's extent. */
  shape: number[];
}

export interface NativeBatchLayout {
  raggedInputs?: string[];
  batchInputs?: NativeBatchInput[];
  batchOutputs?: NativeBatchOutput[];
}

/** The number model_config.proto gives a BatchInput.Kind name (0, BATCH_ELEMENT_COUNT, when absent: the parser refuses unknown names). */
function batchInputKind(name: string | undefined): number {
  const kinds = modelConfigSchema().byName.get('batch_input')?.messageType?.byName.get('kind')?.enumType;
  return name === undefined ? 0 : kinds?.byName.get(name) ?? 0;
}

/**
 * The options for a model with ragged batching; {} for any other. The config is validated
 * (BATCH_INPUT_INVALID, BATCH_OUTPUT_INVALID); the native side checks the names against the model file.
 */
export function batchLayoutOptions(config: ModelConfig): NativeBatchLayout {
  const batched = Number(config.max_batch_size ?? 0) > 0;
  const outputs = new Map((config.output ?? []).map((t) => [t.name, t]));
  const batchInputOptions = batchInputs(config).map((bi): NativeBatchInput => ({
    kind: batchInputKind(bi.kind),
    dtype: configTypeCode(bi.data_type ?? 'TYPE_INT32') ?? 0,
    source: bi.source_input?.[0] ?? '',
    targets: bi.target_name ?? [],
  }));
  const batchOutputOptions = batchOutputs(config).flatMap((bo) =>
    (bo.target_name ?? []).map((name): NativeBatchOutput => {
      const dims = (outputs.get(name)?.dims ?? []).map(Number);
      return { output: name, source: bo.source_input?.[0] ?? '', shape: batched ? [-1, ...dims] : dims };
    }),
  );
  const ragged = raggedInputNames(config);
  return {
    ...(ragged.length > 0 ? { raggedInputs: ragged } : {}),
    ...(batchInputOptions.length > 0 ? { batchInputs: batchInputOptions } : {}),
    ...(batchOutputOptions.length > 0 ? { batchOutputs: batchOutputOptions } : {}),
  };
}
