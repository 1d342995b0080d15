/** gebe's datatype names → onnxruntime-node's tensor type names (tests and benchmarks feed ORT with it). */
export const ortTypes = {
  FP32: 'float32', INT64: 'int64', INT32: 'int32', BOOL: 'bool', FP16: 'float16', BF16: 'bfloat16', FP64: 'float64', UINT8: 'uint8',
  INT8: 'int8', UINT16: 'uint16', INT16: 'int16', UINT32: 'uint32', UINT64: 'uint64',
} as const;
