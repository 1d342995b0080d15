/**
 * Triton's model-load error messages, each mapped to the gebe rule that catches the problem
 * before deploy. No wording is guessed: every template is a message from Triton's QA expectations
 * (../shared/corpus/triton-l0-model-config, the case named in `source`) or from a source file
 * named there. `{x}` stands for a name or number Triton fills in.
 */

export interface LoadErrorPattern {
  /** The message as Triton words it, with {placeholders}. */
  template: string;
  /** The gebe rules that report this problem (several when the wording is shared; none when no rule can). */
  rules: string[];
  fix: string;
  /** Where the wording comes from. */
  source: string;
  /** Why no rule catches it, when `rules` is empty. */
  noRule?: string;
}

const L0 = 'qa/L0_model_config';

export const LOAD_ERROR_PATTERNS: readonly LoadErrorPattern[] = [
  { template: "batch input kind '{kind}' expects 1 source input, got {n}", rules: ['BATCH_INPUT_INVALID'], fix: 'give the batch_input exactly one source_input', source: `${L0}/noautofill_platform/batch_input_less_source0, batch_input_many_source0` },
  { template: "unknown source input name '{name}'", rules: ['BATCH_INPUT_INVALID', 'BATCH_OUTPUT_INVALID'], fix: 'name an existing model input in source_input', source: `${L0}/noautofill_platform/batch_input_unknown_source, batch_output_unknown_source` },
  { template: "target output name '{name}' can only be specified once", rules: ['BATCH_OUTPUT_INVALID'], fix: 'list each output once in batch_output target_name', source: `${L0}/noautofill_platform/batch_output_duplicated_target` },
  { template: "batch output kind '{kind}' expects 1 source input, got {n}", rules: ['BATCH_OUTPUT_INVALID'], fix: 'give the batch_output exactly one source_input', source: `${L0}/noautofill_platform/batch_output_less_source` },
  { template: "unknown target output name '{name}'", rules: ['BATCH_OUTPUT_INVALID'], fix: 'name an existing model output in target_name', source: `${L0}/noautofill_platform/batch_output_unknown_target` },
  { template: 'sequence batching specifies multiple {kind} tensors', rules: ['SEQUENCE_CONTROL_INVALID'], fix: 'give each control kind (START, END, READY, CORRID) one tensor', source: `${L0}/noautofill_platform/control_kind_start_multiple` },
  { template: "sequence batching control tensor '{name}' is specified for multiple control kinds", rules: ['SEQUENCE_CONTROL_INVALID'], fix: 'use one tensor per control kind', source: `${L0}/noautofill_platform/control_tensor_multiple` },
  { template: "sequence batching must specify either 'int32_false_true', 'fp32_false_true' or 'bool_false_true' for {kind}", rules: ['SEQUENCE_CONTROL_INVALID'], fix: 'add int32_false_true: [ 0, 1 ] (or fp32_/bool_false_true) to the control', source: `${L0}/noautofill_platform/control_tensor_no_value` },
  { template: 'default priority level must be in range [1, {n}]', rules: ['PRIORITY_LEVEL_RANGE'], fix: 'set default_priority_level between 1 and priority_levels', source: `${L0}/noautofill_platform/default_priority_level0` },
  { template: 'priority queue policy must have priority level in range [1, {n}]', rules: ['PRIORITY_LEVEL_RANGE'], fix: 'key priority_queue_policy by levels between 1 and priority_levels', source: `${L0}/noautofill_platform/priority_level0` },
  { template: "ensemble scheduling cannot be set for model '{model}' whose platform is not ensemble", rules: ['ENSEMBLE_SCHEDULING_MISMATCH'], fix: 'remove ensemble_scheduling, or set platform: "ensemble"', source: `${L0}/noautofill_platform/ensemble_scheduling_set` },
  { template: 'ensemble scheduling must be set for ensemble {model} whose platform is ensemble', rules: ['ENSEMBLE_SCHEDULING_MISMATCH'], fix: 'add ensemble_scheduling with its steps', source: `${L0}/autofill_noplatform/ensemble/ensemble_scheduling_no_set` },
  { template: 'instance group {group} of model {model} has kind KIND_CPU but specifies one or more GPU', rules: ['INSTANCE_GROUP_KIND_GPUS'], fix: 'remove gpus from the KIND_CPU instance group', source: `${L0}/noautofill_platform/invalid_cpu` },
  { template: 'instance group {group} of model {model} specifies invalid or unsupported gpu id -{n}.', rules: ['GPU_ID_NEGATIVE'], fix: 'use GPU ids >= 0 (the GE backend ignores gpus: see GE_GPU_IGNORED)', source: `${L0}/noautofill_platform/negative_gpu` },
  { template: 'instance group {group} of model {model} specifies invalid or unsupported gpu id {n}.', rules: [], fix: 'name a GPU that exists on the serving machine', source: `${L0}/noautofill_platform/invalid_gpu`, noRule: 'whether a GPU id exists depends on the serving machine, not on the repository' },
  { template: "model {io} '{name}' must specify 'data_type'", rules: ['TENSOR_FIELD_MISSING'], fix: 'add data_type to the tensor', source: `${L0}/noautofill_platform/missing_datatype` },
  { template: "'max_batch_size' must be non-negative value", rules: ['MAX_BATCH_SIZE_NEGATIVE'], fix: 'set max_batch_size to 0 (no batching) or a positive size', source: `${L0}/noautofill_platform/negative_max_batch_size` },
  { template: "Only one priority level is allowed when 'preserve_ordering' is true", rules: ['PRESERVE_ORDERING_CONFLICT'], fix: 'drop priority_levels, or preserve_ordering', source: `${L0}/noautofill_platform/preserve_ordering0` },
  { template: "Queue policy can not have DELAY as timeout action when 'preserve_ordering' is true", rules: ['PRESERVE_ORDERING_CONFLICT'], fix: 'use timeout_action REJECT, or drop preserve_ordering', source: `${L0}/noautofill_platform/preserve_ordering1` },
  { template: "model {io} '{name}' has different size for dims and reshape", rules: ['RESHAPE_SIZE_MISMATCH'], fix: 'make dims and reshape hold the same number of elements', source: `${L0}/noautofill_platform/reshape_elementcount0, reshape_variable0` },
  { template: "model {io} '{name}' cannot have empty reshape for non-batching model as scalar tensors are not supported", rules: ['RESHAPE_SIZE_MISMATCH'], fix: 'give reshape a shape, or batch the model', source: `${L0}/noautofill_platform/reshape_nobatch_empty0` },
  { template: "model {io} '{name}' has different number of variable-size dimensions for dims and reshape", rules: ['RESHAPE_SIZE_MISMATCH'], fix: 'use as many -1 dims in reshape as in dims', source: `${L0}/noautofill_platform/reshape_variable4` },
  { template: "model {io} '{name}' reshape dimensions must be integer >= 1, or -1 to indicate a variable-size dimension", rules: ['RESHAPE_DIM_INVALID'], fix: 'use reshape dims >= 1 or -1', source: `${L0}/noautofill_platform/reshape_zerodims0` },
  { template: "model {io} '{name}' dimension must be integer >= 1, or -1 to indicate a variable-size dimension", rules: ['TENSOR_DIM_INVALID'], fix: 'use dims >= 1 or -1', source: `${L0}/noautofill_platform/zerodims_input0` },
  // Model-file agreement and autofill (the backend compares the config with the model).
  { template: "model '{model}', tensor '{name}': the model expects {n} dimensions (shape {shape}) but the model configuration specifies {m} dimensions", rules: ['MODEL_DIMS_MISMATCH', 'DIMS_INCLUDE_BATCH'], fix: 'write dims as the model has them, without the batch dimension when max_batch_size > 0', source: `${L0}/autofill_noplatform/onnx/bad_input_dims, openvino/bad_input_dims` },
  { template: "unable to load model '{model}', configuration expects {n} inputs, model provides {m}", rules: ['MODEL_INPUT_MISSING', 'MODEL_TENSOR_UNKNOWN'], fix: "list exactly the model file's inputs", source: `${L0}/autofill_noplatform/onnx/too_few_inputs, too_many_inputs` },
  { template: "unexpected inference input '{name}', allowed inputs are: {names}", rules: ['MODEL_TENSOR_UNKNOWN'], fix: "use the model file's input names", source: `${L0}/autofill_noplatform/onnx/unknown_input` },
  { template: "unexpected inference output '{name}', allowed outputs are: {names}", rules: ['MODEL_TENSOR_UNKNOWN'], fix: "use the model file's output names", source: `${L0}/autofill_noplatform/onnx/unknown_output` },
  { template: "unable to find backend library for backend '{backend}'", rules: ['BACKEND_NAME_TYPO', 'PLATFORM_BACKEND_MISMATCH'], fix: 'spell the backend as installed ("ge" for the GE backend)', source: `${L0}/autofill_noplatform/custom/unknown_backend.unknown` },
  { template: "Could not determine backend for model '{model}' with no backend in model configuration", rules: ['PLATFORM_BACKEND_MISSING'], fix: 'set backend: "ge" (or a platform)', source: `${L0}/autofill_noplatform/common/no_version` },
  // Ensembles.
  { template: "Ensemble model '{model}' must have platform type 'ensemble' and empty backend type", rules: ['PLATFORM_BACKEND_MISMATCH'], fix: 'remove backend from the ensemble', source: `${L0}/autofill_noplatform/ensemble/has_backend` },
  { template: "instance group should not be specified for ensemble '{model}'", rules: ['ENSEMBLE_FORBIDDEN_FIELD'], fix: 'remove instance_group from the ensemble', source: `${L0}/autofill_noplatform/ensemble/instance_group_set` },
  { template: "model_warmup can not be specified for ensemble '{model}'", rules: ['ENSEMBLE_FORBIDDEN_FIELD'], fix: 'remove model_warmup from the ensemble', source: `${L0}/autofill_noplatform/ensemble/model_warm_up_set` },
  { template: "optimization should not be specified for ensemble '{model}'", rules: ['ENSEMBLE_FORBIDDEN_FIELD'], fix: 'remove optimization from the ensemble', source: `${L0}/autofill_noplatform/ensemble/optimization_set` },
  { template: "must specify 'step' for ensemble '{model}'", rules: ['ENSEMBLE_DATAFLOW'], fix: 'add ensemble_scheduling steps', source: `${L0}/autofill_noplatform/ensemble/no_step` },
  { template: "must specify '{field}' in step {n} of ensemble '{model}'", rules: ['ENSEMBLE_STEP_MODEL', 'ENSEMBLE_DATAFLOW'], fix: 'give every step model_name, input_map and output_map', source: `${L0}/autofill_noplatform/ensemble/no_model_name, no_input_map` },
  { template: 'ensemble {model} contains models that are not available or ambiguous: {names}', rules: ['ENSEMBLE_STEP_MODEL'], fix: 'add the step models to the repository, or fix their names', source: `${L0}/autofill_noplatform/ensemble/non_existing_model` },
  { template: "ensemble tensor '{name}' is unused in ensemble '{model}'", rules: ['ENSEMBLE_DATAFLOW'], fix: 'consume every ensemble tensor, or remove it', source: `${L0}/autofill_noplatform/ensemble/redundant_tensor_as_input` },
  { template: "ensemble tensor '{name}' can appear in an output map only once for ensemble '{model}'", rules: ['ENSEMBLE_DATAFLOW'], fix: 'produce each ensemble tensor in one step only', source: `${L0}/autofill_noplatform/ensemble/output_to_tensor_overmapped` },
  { template: "output '{name}' for ensemble '{model}' is not written", rules: ['ENSEMBLE_DATAFLOW'], fix: 'map a step output to the ensemble output', source: `${L0}/autofill_noplatform/ensemble/unreachable_output_2` },
  { template: "ensemble {io} '{name}' for ensemble {model}' is not used", rules: ['ENSEMBLE_DATAFLOW'], fix: 'connect the ensemble input/output to a step', source: `${L0}/autofill_noplatform/ensemble/unreachable_input` },
  { template: 'in ensemble {model}, ensemble tensor {name} is mapping to non-existing input {input} in model {step}', rules: ['ENSEMBLE_DATAFLOW'], fix: "use the step model's input names in input_map keys", source: `${L0}/autofill_noplatform/ensemble/invalid_input_map` },
  { template: 'in ensemble {model}, ensemble tensor {name} is mapped from non-existing output {output} in model {step}', rules: ['ENSEMBLE_DATAFLOW'], fix: "use the step model's output names in output_map keys", source: `${L0}/autofill_noplatform/ensemble/invalid_output_map` },
  { template: 'in ensemble {model}, input {input} in model {step} is not mapped to any ensemble tensors', rules: ['ENSEMBLE_DATAFLOW'], fix: "map every input of the step model in input_map", source: `${L0}/autofill_noplatform/ensemble/unmapped_input` },
  // GE backend on a machine without CANN (gebe's own executor words it; Triton's GE backend fails likewise at load).
  { template: 'AscendCL (CANN) was not found, so .om models cannot run here', rules: [], fix: 'install CANN on the serving machine and set ASCEND_HOME_PATH (source set_env.sh)', source: 'native/src/ascend/acl_library.cc', noRule: 'the CANN libraries belong to the serving machine, not to the repository' },
  { template: "metric control must specify 'metric_identifier'", rules: ['MODEL_METRICS_INVALID'], fix: 'give each metric_control a metric_identifier { family: "nv_inference_first_response_histogram_ms" }', source: `${L0}/model_metrics/invalid_config/no_metric_identifier` },
  { template: "metric identifier must specify non-empty 'family'", rules: ['MODEL_METRICS_INVALID'], fix: 'name the family in metric_identifier', source: `${L0}/model_metrics/invalid_config/empty_metric_family, no_metric_family` },
  { template: "metric control must specify 'histogram_options'", rules: ['MODEL_METRICS_INVALID'], fix: 'give the metric_control histogram_options { buckets: [...] }', source: `${L0}/model_metrics/invalid_config/no_histogram_options` },
  { template: "histogram options must specify non-empty 'buckets'", rules: ['MODEL_METRICS_INVALID'], fix: 'list the buckets\' upper bounds in histogram_options', source: `${L0}/model_metrics/invalid_config/empty_buckets, no_buckets` },
];

function escape(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
}

/** A template as a RegExp: placeholders match anything (lazily), the rest literally. */
export function templateRegExp(template: string): RegExp {
  return new RegExp(template.split(/\{[a-z]+\}/).map(escape).join('(.+?)'));
}

const compiled = LOAD_ERROR_PATTERNS.map((p) => ({ pattern: p, regex: templateRegExp(p.template) }));

/** The first pattern whose wording the message contains (the list puts specific ones first). */
export function matchLoadError(message: string): LoadErrorPattern | undefined {
  return compiled.find((c) => c.regex.test(message))?.pattern;
}
