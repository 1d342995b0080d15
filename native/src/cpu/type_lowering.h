// FP16/BF16/FP64 → FP32 inside the graph (type_lowering.cc says how and why).
#pragma once

#include "cpu/graph.h"

namespace gebe::cpu {

// The attribute LowerFloatTypes puts on a Cast to FP32 that stands for a Cast to a narrower
// float: its ONNX type (10 FP16, 16 BF16, 11 FP64); the Cast kernel rounds through it.
constexpr const char* kCastRoundToAttribute = "gebe_round_to";

// The type a value of type `t` has inside the engine: FP32 for FP16, BF16 and FP64 (a kernel
// whose output type is an attribute, EyeLike's or RandomNormal's dtype, makes that), else `t`.
DataType InsideEngine(DataType t);

// An FP32 copy of a FP16/BF16/FP64 tensor; other tensors are returned as they are.
ConstTensor ToFloat32(const ConstTensor& t);

// Rewrites the graph so every value inside it is FP32 where the model has FP16, BF16 or FP64.
void LowerFloatTypes(Graph& g);

}  // namespace gebe::cpu
