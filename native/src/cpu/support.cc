#include "cpu/support.h"

#include "cpu/ops/kernel.h"
#include "cpu/plan.h"

namespace gebe::cpu {

namespace {

// Opsets 18-25 changed these operators, all handled: Reduce* (axes as an input), Split
// (num_outputs), Pad (axes, wrap), Resize (axes, keep_aspect_ratio_policy, half_pixel_symmetric;
// antialias refused), ScatterElements/ScatterND (max, min), AveragePool (dilations), GridSample
// (linear/cubic names; 2-D only), GroupNormalization (per-channel scale from 21), Quantize/
// DequantizeLinear (block_size refused; output_dtype; 23's precision and float output_dtype, all
// computed in FP32 as every float is here), Cast (saturate and 24's round_mode: FP8 and E8M0
// only, neither here), Attention (24's nonpad_kv_seqlen and shorter masks, 25's sliding window);
// 22-25 otherwise only widened type lists (bfloat16, float4, float8e8m0, int2), which support
// checks per tensor, and added operators (RMSNormalization, RotaryEmbedding, Swish,
// TensorScatter...) that the registry lists or refuses by name. Opset 26 and later are refused.
constexpr int64_t kMaxOpset = 25;

bool RunnableType(DataType t) { return t != DataType::kInvalid && ElementSize(t) != 0; }

void CheckTensorType(const std::string& what, const std::string& name, DataType dtype, int onnx_type, UnsupportedMap& out) {
  if (RunnableType(dtype)) return;
  out[std::string("element type ") + OnnxTypeName(onnx_type)].push_back(what + " '" + name + "'");
}

bool StorageOnly(DataType t) { return t == DataType::kFloat16 || t == DataType::kBFloat16 || t == DataType::kFloat64; }

// The FP16/BF16/FP64 lowering (type_lowering.cc) converts the model's weights and graph edges;
// values reaching a body from there are FP32 whatever the body declares (bodies run on the types
// that arrive). A body that makes such values itself (its own weights, Constants, Casts) is refused.
void CheckBodyTypes(const Graph& body, const std::string& owner, UnsupportedMap& out) {
  const std::string finding = "FLOAT16, BFLOAT16 or DOUBLE weights, Constants or Casts inside a control-flow body";
  for (const auto& [name, t] : body.initializers) {
    if (StorageOnly(t.dtype)) out[finding].push_back(owner + " initializer '" + name + "'");
  }
  for (const Node& n : body.nodes) {
    bool casts = (n.op_type == "Cast" && StorageOnly(FromOnnxType(int(n.get_int("to", 1))))) ||
                 (n.op_type == "Constant" && n.has("value") && StorageOnly(n.attributes.at("value").t.dtype));
    if (casts) out[finding].push_back(n.name);
  }
}

void CheckNodes(const Graph& g, int64_t opset, UnsupportedMap& out);

std::vector<const ValueInfo*> BodyValues(const Graph& body) {
  std::vector<const ValueInfo*> values;
  for (const ValueInfo& v : body.inputs) values.push_back(&v);
  for (const ValueInfo& v : body.outputs) values.push_back(&v);
  return values;
}

// A node's bodies first: what they cannot run is listed by name, and a node with an unrunnable
// body is not built (its kernel would fail on the first finding only).
bool CheckBodies(const Node& n, int64_t opset, UnsupportedMap& out) {
  size_t before = out.size();
  for (const auto& [key, a] : n.attributes) {
    if (a.kind != Attribute::Kind::kGraph || !a.g) continue;
    const std::string owner = n.name + "." + key;
    // Body values may leave their element type to inference; those that declare one must be runnable.
    for (const ValueInfo* v : BodyValues(*a.g)) {
      if (v->non_tensor) out["sequence, map or optional values"].push_back(owner + " value '" + v->name + "'");
      else if (v->onnx_elem_type != 0) CheckTensorType(owner + " value", v->name, v->dtype, v->onnx_elem_type, out);
    }
    CheckBodyTypes(*a.g, owner, out);
    CheckNodes(*a.g, opset, out);
  }
  return out.size() == before;
}

void CheckNodes(const Graph& g, int64_t opset, UnsupportedMap& out) {
  for (const auto& [name, t] : g.initializers) {
    if (!RunnableType(t.dtype)) out["initializers of an element type the cpu engine has no kernels for"].push_back(name);
  }
  for (const Node& n : g.nodes) {
    bool default_domain = n.domain.empty() || n.domain == "ai.onnx";
    if (!default_domain || !KernelRegistry::Has(n.op_type)) {
      out[default_domain ? n.op_type : n.domain + "." + n.op_type].push_back(n.name);
      continue;
    }
    if (!CheckBodies(n, opset, out)) continue;
    // A kernel's constructor validates the node's attributes: what it refuses is refused here.
    try {
      KernelRegistry::Create(n, opset);
    } catch (const EngineError& e) {
      std::string why = e.what();
      std::string prefix = n.label() + ": ";
      if (why.compare(0, prefix.size(), prefix) == 0) why = why.substr(prefix.size());
      out[n.op_type + ": " + why].push_back(n.name);
    }
  }
}

}  // namespace

UnsupportedMap FindUnsupported(const Model& model) {
  UnsupportedMap out;
  if (model.opset > kMaxOpset) {
    out["opset " + std::to_string(model.opset) + " (the cpu engine implements opsets 7 to " + std::to_string(kMaxOpset) +
        "; export with opset_version<=" + std::to_string(kMaxOpset) + ")"]
        .push_back("the model");
  }
  const Graph& g = model.graph;
  for (const ValueInfo& v : g.inputs) CheckTensorType("graph input", v.name, v.dtype, v.onnx_elem_type, out);
  for (const ValueInfo& v : g.outputs) {
    if (v.dtype != DataType::kInvalid || v.onnx_elem_type != 0) CheckTensorType("graph output", v.name, v.dtype, v.onnx_elem_type, out);
  }
  CheckNodes(g, model.opset, out);
  return out;
}

UnsupportedMap FindUnsupportedTypes(const Program& program, size_t max_tensor_bytes) {
  std::vector<Shape> shapes;
  for (const TensorDesc& d : program.inputs) {
    Shape s = d.dims;
    for (int64_t& v : s) v = v < 0 ? 1 : v;
    shapes.push_back(s);
  }
  ThreadPool pool(1);
  Scratch scratch;
  RunContext ctx{&pool, &scratch, max_tensor_bytes};
  try {
    BuildPlan(program, shapes, max_tensor_bytes, ctx);  // not kept: compile() and warmup report the first real plan
  } catch (const TypeMismatch& e) {
    return TypeFinding(e);
  } catch (const EngineError&) {
    // About the dims the trial made up (a Reshape to a fixed size of a dim set to 1): real requests judge those.
  }
  return {};
}

UnsupportedMap TypeFinding(const TypeMismatch& refusal) {
  return {{refusal.op_type + ": " + refusal.Problem(), {refusal.node_name}}};
}

std::string DescribeFinding(const std::string& what, const std::vector<std::string>& where) {
  std::string text = what + " (";
  for (size_t i = 0; i < where.size() && i < 5; ++i) text += (i ? ", " : "") + where[i];
  if (where.size() > 5) text += ", and " + std::to_string(where.size() - 5) + " more";
  return text + ")";
}

std::string DescribeUnsupported(const UnsupportedMap& unsupported) {
  if (unsupported.empty()) return "";
  std::string msg = "the cpu engine cannot run " + std::to_string(unsupported.size()) +
                    (unsupported.size() == 1 ? " thing" : " things") + " this model uses: ";
  bool first = true;
  for (const auto& [what, where] : unsupported) {
    msg += std::string(first ? "" : "; ") + DescribeFinding(what, where);
    first = false;
  }
  return msg + ". Re-export the model with supported operators and types, or run it on the ascend engine";
}

}  // namespace gebe::cpu
