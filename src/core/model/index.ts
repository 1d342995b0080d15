export { inspectOnnx, inspectModelProto, OnnxParseError, ONNX_TYPE_NAMES, ONNX_TO_TRITON, type OnnxModelInfo, type OnnxTensorInfo, type OnnxDim, type WireReader } from './onnx.js';
export { readOmHeader, encodeOmHeader, OmParseError, OM_HEADER_SIZE, type OmHeader, type Om2Header } from './om.js';
export { inspectModelFile, MODEL_EXTENSIONS, type ModelFileInfo } from './inspect.js';
export { inspectOnnxFile, FileWireReader } from './onnx-file.js';
