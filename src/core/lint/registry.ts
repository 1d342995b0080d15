/**
 * Every lint rule, alphabetically by file. Adding a rule means adding its file, its
 * docs page (docs/rules/<ID>.md) and its cases (test/core/lint/rules/<ID>.cases.ts); the registry
 * test fails until all three exist.
 */
import { BREAKING_RULES } from './breaking/rules.js';
import type { Rule, RuleMeta } from './rule.js';
import { SUPPRESSION_UNUSED } from './unused-suppressions.js';
import { rule as BACKEND_NAME_TYPO } from './rules/backend-name-typo.js';
import { rule as BATCH_INPUT_INVALID } from './rules/batch-input-invalid.js';
import { rule as BATCH_OUTPUT_INVALID } from './rules/batch-output-invalid.js';
import { rule as CONFIG_LIMIT } from './rules/config-limit.js';
import { rule as CONFIG_MISSING } from './rules/config-missing.js';
import { rule as CONFIG_NOT_TEXT } from './rules/config-not-text.js';
import { rule as CONFIG_NOT_UTF8 } from './rules/config-not-utf8.js';
import { rule as CONFIG_TOO_LARGE } from './rules/config-too-large.js';
import { rule as DIMS_INCLUDE_BATCH } from './rules/dims-include-batch.js';
import { rule as DIMS_MAYBE_INCLUDE_BATCH } from './rules/dims-maybe-include-batch.js';
import { rule as DUPLICATE_TENSOR_NAME } from './rules/duplicate-tensor-name.js';
import { rule as ENSEMBLE_DATAFLOW } from './rules/ensemble-dataflow.js';
import { rule as ENSEMBLE_FORBIDDEN_FIELD } from './rules/ensemble-forbidden-field.js';
import { rule as ENSEMBLE_SCHEDULING_MISMATCH } from './rules/ensemble-scheduling-mismatch.js';
import { rule as ENSEMBLE_STEP_MODEL } from './rules/ensemble-step-model.js';
import { rule as FILE_UNREADABLE } from './rules/file-unreadable.js';
import { rule as GE_BATCH_GEARS_FIXED_BATCH } from './rules/ge-batch-gears-fixed-batch.js';
import { rule as GE_DYNAMIC_DIM_WITHOUT_GEARS } from './rules/ge-dynamic-dim-without-gears.js';
import { rule as GE_DYNAMIC_DIMS } from './rules/ge-dynamic-dims.js';
import { rule as GE_GPU_IGNORED } from './rules/ge-gpu-ignored.js';
import { rule as GE_INPUT_SHAPE } from './rules/ge-input-shape.js';
import { rule as GE_MAX_BATCH_EXCEEDS_GEARS } from './rules/ge-max-batch-exceeds-gears.js';
import { rule as GE_MIXED_INPUT_FORMATS } from './rules/ge-mixed-input-formats.js';
import { rule as GE_MODEL_FILE_MISSING } from './rules/ge-model-file-missing.js';
import { rule as PYTHON_MODEL_FILE_MISSING } from './rules/python-model-file-missing.js';
import { rule as PYTHON_SEQUENCE_UNSUPPORTED } from './rules/python-sequence-unsupported.js';
import { rule as ENGINE_UNSUPPORTED } from './rules/engine-unsupported.js';
import { rule as GE_MULTIPLE_ONNX } from './rules/ge-multiple-onnx.js';
import { rule as GE_NO_INPUT_SHAPES } from './rules/ge-no-input-shapes.js';
import { rule as GE_OM_ONLY } from './rules/ge-om-only.js';
import { rule as GE_PARAMETER_UNKNOWN } from './rules/ge-parameter-unknown.js';
import { rule as GE_PARAMETER_VALUE } from './rules/ge-parameter-value.js';
import { rule as GE_PREFERRED_NOT_GEAR } from './rules/ge-preferred-not-gear.js';
import { rule as GE_STATIC_MODEL_BATCHING } from './rules/ge-static-model-batching.js';
import { rule as GPU_ID_NEGATIVE } from './rules/gpu-id-negative.js';
import { rule as INSTANCE_GROUP_COUNT } from './rules/instance-group-count.js';
import { rule as INSTANCE_GROUP_KIND_GPUS } from './rules/instance-group-kind-gpus.js';
import { rule as LABEL_FILE_MISSING } from './rules/label-file-missing.js';
import { rule as MAX_BATCH_SIZE_NEGATIVE } from './rules/max-batch-size-negative.js';
import { rule as MODEL_DATA_TYPE_MISMATCH } from './rules/model-data-type-mismatch.js';
import { rule as MODEL_DIMS_MISMATCH } from './rules/model-dims-mismatch.js';
import { rule as MODEL_FILE_INVALID } from './rules/model-file-invalid.js';
import { rule as MODEL_INPUT_MISSING } from './rules/model-input-missing.js';
import { rule as MODEL_METRICS_FAMILY_UNKNOWN } from './rules/model-metrics-family-unknown.js';
import { rule as MODEL_METRICS_INVALID } from './rules/model-metrics-invalid.js';
import { rule as MODEL_NAME_INVALID } from './rules/model-name-invalid.js';
import { rule as MODEL_NAME_MISMATCH } from './rules/model-name-mismatch.js';
import { rule as MODEL_TENSOR_UNKNOWN } from './rules/model-tensor-unknown.js';
import { rule as NAME_MISSING } from './rules/name-missing.js';
import { rule as PATH_OUTSIDE_MODEL } from './rules/path-outside-model.js';
import { rule as PLATFORM_BACKEND_MISMATCH } from './rules/platform-backend-mismatch.js';
import { rule as PLATFORM_BACKEND_MISSING } from './rules/platform-backend-missing.js';
import { rule as PLATFORM_UNKNOWN } from './rules/platform-unknown.js';
import { rule as PREFERRED_BATCH_SIZE_RANGE } from './rules/preferred-batch-size-range.js';
import { rule as PREFERRED_BATCH_WITHOUT_DELAY } from './rules/preferred-batch-without-delay.js';
import { rule as RAGGED_BATCH_UNUSED } from './rules/ragged-batch-unused.js';
import { rule as PRESERVE_ORDERING_CONFLICT } from './rules/preserve-ordering-conflict.js';
import { rule as PRIORITY_LEVEL_RANGE } from './rules/priority-level-range.js';
import { rule as RESHAPE_DIM_INVALID } from './rules/reshape-dim-invalid.js';
import { rule as RESHAPE_SIZE_MISMATCH } from './rules/reshape-size-mismatch.js';
import { rule as RESPONSE_CACHE_UNSUPPORTED } from './rules/response-cache-unsupported.js';
import { rule as SEQUENCE_CONTROL_INVALID } from './rules/sequence-control-invalid.js';
import { rule as SEQUENCE_OLDEST_PREFERRED_SIZE } from './rules/sequence-oldest-preferred-size.js';
import { rule as SYMLINK_LOOP } from './rules/symlink-loop.js';
import { rule as SYMLINK_OUTSIDE_REPOSITORY } from './rules/symlink-outside-repository.js';
import { rule as TENSOR_DIM_INVALID } from './rules/tensor-dim-invalid.js';
import { rule as TENSOR_FIELD_MISSING } from './rules/tensor-field-missing.js';
import { rule as TENSOR_FORMAT_DIMS } from './rules/tensor-format-dims.js';
import { rule as TENSORRT_ONLY_FIELD } from './rules/tensorrt-only-field.js';
import { rule as VERSION_DIR_INVALID } from './rules/version-dir-invalid.js';
import { rule as VERSION_MISSING } from './rules/version-missing.js';
import { rule as VERSION_POLICY_MISSING_VERSION } from './rules/version-policy-missing-version.js';
import { rule as WALK_LIMIT } from './rules/walk-limit.js';
import { rule as WARMUP_BATCH_SIZE } from './rules/warmup-batch-size.js';
import { rule as WARMUP_DATA_FILE_MISSING } from './rules/warmup-data-file-missing.js';
import { rule as WARMUP_INPUTS_MISMATCH } from './rules/warmup-inputs-mismatch.js';

export const RULES: readonly Rule[] = [
  BACKEND_NAME_TYPO,
  BATCH_INPUT_INVALID,
  BATCH_OUTPUT_INVALID,
  CONFIG_LIMIT,
  CONFIG_MISSING,
  CONFIG_NOT_TEXT,
  CONFIG_NOT_UTF8,
  CONFIG_TOO_LARGE,
  DIMS_INCLUDE_BATCH,
  DIMS_MAYBE_INCLUDE_BATCH,
  DUPLICATE_TENSOR_NAME,
  ENSEMBLE_DATAFLOW,
  ENSEMBLE_FORBIDDEN_FIELD,
  ENSEMBLE_SCHEDULING_MISMATCH,
  ENSEMBLE_STEP_MODEL,
  ENGINE_UNSUPPORTED,
  FILE_UNREADABLE,
  GE_BATCH_GEARS_FIXED_BATCH,
  GE_DYNAMIC_DIMS,
  GE_DYNAMIC_DIM_WITHOUT_GEARS,
  GE_GPU_IGNORED,
  GE_INPUT_SHAPE,
  GE_MAX_BATCH_EXCEEDS_GEARS,
  GE_MIXED_INPUT_FORMATS,
  GE_MODEL_FILE_MISSING,
  GE_MULTIPLE_ONNX,
  GE_NO_INPUT_SHAPES,
  GE_OM_ONLY,
  GE_PARAMETER_UNKNOWN,
  GE_PARAMETER_VALUE,
  GE_PREFERRED_NOT_GEAR,
  GE_STATIC_MODEL_BATCHING,
  GPU_ID_NEGATIVE,
  INSTANCE_GROUP_COUNT,
  INSTANCE_GROUP_KIND_GPUS,
  LABEL_FILE_MISSING,
  MAX_BATCH_SIZE_NEGATIVE,
  MODEL_DATA_TYPE_MISMATCH,
  MODEL_DIMS_MISMATCH,
  MODEL_FILE_INVALID,
  MODEL_INPUT_MISSING,
  MODEL_METRICS_FAMILY_UNKNOWN,
  MODEL_METRICS_INVALID,
  MODEL_NAME_INVALID,
  MODEL_NAME_MISMATCH,
  MODEL_TENSOR_UNKNOWN,
  NAME_MISSING,
  PATH_OUTSIDE_MODEL,
  PLATFORM_BACKEND_MISMATCH,
  PLATFORM_BACKEND_MISSING,
  PLATFORM_UNKNOWN,
  PREFERRED_BATCH_SIZE_RANGE,
  PREFERRED_BATCH_WITHOUT_DELAY,
  PRESERVE_ORDERING_CONFLICT,
  PRIORITY_LEVEL_RANGE,
  PYTHON_MODEL_FILE_MISSING,
  PYTHON_SEQUENCE_UNSUPPORTED,
  RAGGED_BATCH_UNUSED,
  RESHAPE_DIM_INVALID,
  RESHAPE_SIZE_MISMATCH,
  RESPONSE_CACHE_UNSUPPORTED,
  SEQUENCE_CONTROL_INVALID,
  SEQUENCE_OLDEST_PREFERRED_SIZE,
  SYMLINK_LOOP,
  SYMLINK_OUTSIDE_REPOSITORY,
  TENSORRT_ONLY_FIELD,
  TENSOR_DIM_INVALID,
  TENSOR_FIELD_MISSING,
  TENSOR_FORMAT_DIMS,
  VERSION_DIR_INVALID,
  VERSION_MISSING,
  VERSION_POLICY_MISSING_VERSION,
  WALK_LIMIT,
  WARMUP_BATCH_SIZE,
  WARMUP_DATA_FILE_MISSING,
  WARMUP_INPUTS_MISMATCH,
];

// Rules outside the lint registry that findings can carry: --against's and unused suppressions.
const byId = new Map<string, RuleMeta>([...RULES, ...BREAKING_RULES, SUPPRESSION_UNUSED].map((r) => [r.id, r]));

export function findRule(id: string): RuleMeta | undefined {
  return byId.get(id);
}
