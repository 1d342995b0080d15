// Storage-only float types (FP16, BF16, FP64) → FP32 inside the graph, as ONNX Runtime's CPU
// provider does with its InsertCastTransformer for operators it has no half kernels for: weights
// and constant attributes are converted once at load, each graph input of such a type gets a Cast
// to FP32 in front of its consumers, each such graph output a Cast back at the end, and a Cast *to*
// one of these types becomes a Cast to FP32 that rounds to the narrower type's precision (so the
// values a model computes after it match a real conversion). FP64 is therefore computed in FP32.
#include <algorithm>
#include <map>
#include <set>

#include "cpu/half.h"
#include "cpu/type_lowering.h"

namespace gebe::cpu {

namespace {

constexpr int kOnnxFloat = 1;
const char* kLoweredSuffix = "::gebe_fp32";

bool IsLowered(DataType t) { return t == DataType::kFloat16 || t == DataType::kBFloat16 || t == DataType::kFloat64; }

int OnnxTypeOf(DataType t) {
  switch (t) {
    case DataType::kFloat16: return 10;
    case DataType::kBFloat16: return 16;
    case DataType::kFloat64: return 11;
    default: return kOnnxFloat;
  }
}

Node MakeCast(const std::string& name, const std::string& from, const std::string& to, int64_t onnx_to) {
  Node n;
  n.name = name;
  n.op_type = "Cast";
  n.inputs = {from};
  n.outputs = {to};
  Attribute a;
  a.kind = Attribute::Kind::kInt;
  a.i = onnx_to;
  n.attributes["to"] = a;
  return n;
}

void RenameUses(Graph& g, const std::string& from, const std::string& to) {
  for (Node& n : g.nodes) {
    for (std::string& in : n.inputs)
      if (in == from) in = to;
    // Control-flow bodies read enclosing values by name too (those they do not define themselves).
    for (auto& [key, a] : n.attributes) {
      if (a.kind != Attribute::Kind::kGraph || !a.g) continue;
      std::vector<std::string> outer = OuterScopeNames(*a.g);
      if (!std::binary_search(outer.begin(), outer.end(), from)) continue;
      Graph body = *a.g;
      RenameUses(body, from, to);
      for (ValueInfo& v : body.outputs)
        if (v.name == from) v.name = to;
      a.g = std::make_shared<const Graph>(std::move(body));
    }
  }
}

}  // namespace

DataType InsideEngine(DataType t) { return IsLowered(t) ? DataType::kFloat32 : t; }

ConstTensor ToFloat32(const ConstTensor& t) {
  if (!IsLowered(t.dtype)) return t;
  ConstTensor out = ConstTensor::Allocate(DataType::kFloat32, t.shape);
  int64_t n = t.count();
  float* dst = static_cast<float*>(out.storage->data());
  if (t.dtype == DataType::kFloat16) HalfToFloat(t.as<uint16_t>(), dst, n);
  else if (t.dtype == DataType::kBFloat16) BFloat16ToFloat(t.as<uint16_t>(), dst, n);
  else for (int64_t i = 0; i < n; ++i) dst[i] = float(t.as<double>()[i]);
  return out;
}

void LowerFloatTypes(Graph& g) {
  for (auto& [name, t] : g.initializers) t = ToFloat32(t);
  for (Node& n : g.nodes) {
    for (auto& [key, a] : n.attributes) {
      if (a.kind == Attribute::Kind::kTensor) a.t = ToFloat32(a.t);
    }
    if (n.op_type == "Cast") {
      DataType to = FromOnnxType(int(n.get_int("to", 0)));
      if (IsLowered(to)) {
        Attribute round;
        round.kind = Attribute::Kind::kInt;
        round.i = n.attributes["to"].i;
        n.attributes[kCastRoundToAttribute] = round;
        n.attributes["to"].i = kOnnxFloat;
      }
    }
  }
  std::vector<Node> front, back;
  std::set<std::string> input_names;
  for (const ValueInfo& v : g.inputs) {
    input_names.insert(v.name);
    if (!IsLowered(v.dtype)) continue;
    std::string inner = v.name + kLoweredSuffix;
    RenameUses(g, v.name, inner);
    front.push_back(MakeCast(v.name + "::gebe_to_fp32", v.name, inner, kOnnxFloat));
  }
  std::set<std::string> done;
  for (const ValueInfo& v : g.outputs) {
    if (!IsLowered(v.dtype) || input_names.count(v.name) || !done.insert(v.name).second) continue;
    std::string inner = v.name + kLoweredSuffix;
    bool produced = false;
    for (Node& n : g.nodes) {
      for (std::string& out : n.outputs) {
        if (out == v.name) {
          out = inner;
          produced = true;
        }
      }
    }
    auto init = g.initializers.find(v.name);
    if (!produced && init != g.initializers.end()) {
      g.initializers[inner] = init->second;
      g.initializers.erase(v.name);
      produced = true;
    }
    if (!produced) continue;  // dangling: the loader names it
    RenameUses(g, v.name, inner);
    back.push_back(MakeCast(v.name + "::gebe_from_fp32", inner, v.name, OnnxTypeOf(v.dtype)));
  }
  if (front.empty() && back.empty()) return;
  front.insert(front.end(), g.nodes.begin(), g.nodes.end());
  front.insert(front.end(), back.begin(), back.end());
  g.nodes = std::move(front);
}

}  // namespace gebe::cpu
