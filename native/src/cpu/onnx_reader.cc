#include "cpu/onnx_reader.h"

#include <cstdlib>
#include <cstring>
#include <fstream>
#include <limits>
#include <memory>
#include <set>

#include "cpu/wire_reader.h"

namespace gebe::cpu {

DataType FromOnnxType(int onnx_type) {
  switch (onnx_type) {
    case 1: return DataType::kFloat32;
    case 2: return DataType::kUInt8;
    case 3: return DataType::kInt8;
    case 4: return DataType::kUInt16;
    case 5: return DataType::kInt16;
    case 6: return DataType::kInt32;
    case 7: return DataType::kInt64;
    case 8: return DataType::kString;
    case 9: return DataType::kBool;
    case 10: return DataType::kFloat16;
    case 11: return DataType::kFloat64;
    case 12: return DataType::kUInt32;
    case 13: return DataType::kUInt64;
    case 16: return DataType::kBFloat16;
    default: return DataType::kInvalid;
  }
}

const char* OnnxTypeName(int onnx_type) {
  static const char* names[] = {"UNDEFINED", "FLOAT", "UINT8", "INT8", "UINT16", "INT16", "INT32", "INT64", "STRING",
                                "BOOL", "FLOAT16", "DOUBLE", "UINT32", "UINT64", "COMPLEX64", "COMPLEX128", "BFLOAT16",
                                "FLOAT8E4M3FN", "FLOAT8E4M3FNUZ", "FLOAT8E5M2", "FLOAT8E5M2FNUZ", "UINT4", "INT4",
                                "FLOAT4E2M1", "FLOAT8E8M0", "UINT2", "INT2"};
  if (onnx_type >= 0 && onnx_type < int(sizeof(names) / sizeof(names[0]))) return names[onnx_type];
  return "UNKNOWN";
}

namespace {

std::string ReadWholeFile(const std::string& path, const std::string& what) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw EngineError("cannot open " + what + " '" + path + "'");
  in.seekg(0, std::ios::end);
  std::streamoff size = in.tellg();
  if (size < 0) throw EngineError("cannot read " + what + " '" + path + "'");
  in.seekg(0);
  std::string data(size_t(size), '\0');
  if (size > 0 && !in.read(&data[0], size)) throw EngineError("cannot read " + what + " '" + path + "'");
  return data;
}

// Appends the values of a repeated scalar field, packed or not.
template <typename Fn>
void ReadRepeated(WireReader& r, WireType type, WireType element_type, Fn read_one) {
  if (type == WireType::kLengthDelimited) {
    WireReader packed = r.bytes();
    while (!packed.done()) read_one(packed);
  } else if (type == element_type) {
    read_one(r);
  } else {
    r.fail("repeated field has wire type " + std::to_string(int(type)));
  }
}

struct TensorParts {
  std::string name;
  Shape dims;
  int data_type = 0;
  const uint8_t* raw = nullptr;
  size_t raw_size = 0;
  bool has_raw = false;
  std::vector<float> floats;
  std::vector<int64_t> int64s;  // int32_data and int64_data and uint64_data values
  std::vector<double> doubles;
  std::vector<std::pair<std::string, std::string>> external;
  int location = 0;
};

TensorParts ParseTensorParts(WireReader r) {
  TensorParts t;
  uint32_t field;
  WireType type;
  while (r.next(field, type)) {
    switch (field) {
      case 1: ReadRepeated(r, type, WireType::kVarint, [&](WireReader& x) { t.dims.push_back(int64_t(x.varint())); }); break;
      case 2: t.data_type = int(r.varint()); break;
      case 4:
        ReadRepeated(r, type, WireType::kFixed32, [&](WireReader& x) {
          uint32_t bits = x.fixed32();
          float f;
          std::memcpy(&f, &bits, 4);
          t.floats.push_back(f);
        });
        break;
      case 5: ReadRepeated(r, type, WireType::kVarint, [&](WireReader& x) { t.int64s.push_back(int32_t(x.varint())); }); break;
      case 7:
      case 11: ReadRepeated(r, type, WireType::kVarint, [&](WireReader& x) { t.int64s.push_back(int64_t(x.varint())); }); break;
      case 8: t.name = r.string(); break;
      case 9: {
        WireReader raw = r.bytes();
        t.raw = raw.data();
        t.raw_size = raw.remaining();
        t.has_raw = true;
        break;
      }
      case 10:
        ReadRepeated(r, type, WireType::kFixed64, [&](WireReader& x) {
          uint64_t bits = x.fixed64();
          double d;
          std::memcpy(&d, &bits, 8);
          t.doubles.push_back(d);
        });
        break;
      case 13: {
        WireReader entry = r.bytes();
        std::string key, value;
        uint32_t f2;
        WireType t2;
        while (entry.next(f2, t2)) {
          if (f2 == 1) key = entry.string();
          else if (f2 == 2) value = entry.string();
          else entry.skip(t2);
        }
        t.external.emplace_back(key, value);
        break;
      }
      case 14: t.location = int(r.varint()); break;
      default: r.skip(type);
    }
  }
  return t;
}

// Whether `relative` under `base_dir`, after symlinks, is still inside base_dir. A path that
// does not resolve counts as inside here: opening it then fails with "cannot open", which
// says nothing about anything outside.
bool ResolvesInside(const std::string& base_dir, const std::string& relative) {
  std::unique_ptr<char, decltype(&std::free)> root(realpath(base_dir.c_str(), nullptr), &std::free);
  std::unique_ptr<char, decltype(&std::free)> real(realpath((base_dir + "/" + relative).c_str(), nullptr), &std::free);
  if (!real) return true;
  if (!root) return false;
  const size_t n = std::strlen(root.get());
  return std::strncmp(real.get(), root.get(), n) == 0 && (real.get()[n] == '/' || real.get()[n] == '\0');
}

bool UnsafeRelativePath(const std::string& p) {
  if (p.empty() || p[0] == '/' || p[0] == '\\' || p.find(':') != std::string::npos) return true;
  size_t start = 0;
  while (start <= p.size()) {
    size_t end = p.find_first_of("/\\", start);
    if (end == std::string::npos) end = p.size();
    if (p.compare(start, end - start, "..") == 0 && end - start == 2) return true;
    start = end + 1;
  }
  return false;
}

ConstTensor BuildTensor(const TensorParts& t, const std::string& what, const std::string& base_dir,
                        const ReadOptions& options) {
  ConstTensor out;
  out.dtype = FromOnnxType(t.data_type);
  out.shape = t.dims;
  std::string label = what + " tensor '" + t.name + "'";
  if (out.dtype == DataType::kInvalid || out.dtype == DataType::kString) {
    // Kept as a typed-but-empty tensor; using it is refused later with the type named.
    out.storage = std::make_shared<AlignedBuffer>();
    return out;
  }
  int64_t count = CheckedElementCount(out.shape, label);
  size_t esize = ElementSize(out.dtype);
  if (uint64_t(count) > options.max_tensor_bytes / esize) {
    throw EngineError(label + " of shape " + ShapeToString(out.shape) + " is larger than the memory cap of " +
                      std::to_string(options.max_tensor_bytes) + " bytes (SessionOptions.max_tensor_bytes)");
  }
  size_t bytes = size_t(count) * esize;
  out.storage = std::make_shared<AlignedBuffer>(bytes);
  uint8_t* dst = static_cast<uint8_t*>(out.storage->data());

  if (t.location == 1) {
    std::string location;
    uint64_t offset = 0, length = std::numeric_limits<uint64_t>::max();
    for (const auto& [k, v] : t.external) {
      if (k == "location") location = v;
      else if (k == "offset") offset = std::stoull(v);
      else if (k == "length") length = std::stoull(v);
    }
    if (base_dir.empty()) throw EngineError(label + " uses external data, which needs a model file on disk");
    if (UnsafeRelativePath(location) || !ResolvesInside(base_dir, location)) {
      throw EngineError(label + " has external data location '" + location +
                        "'; only paths inside the model directory are allowed (no '..', no absolute paths, no symlinks out)");
    }
    std::ifstream in(base_dir + "/" + location, std::ios::binary);
    if (!in) throw EngineError(label + ": cannot open external data file '" + location + "' next to the model");
    in.seekg(0, std::ios::end);
    uint64_t file_size = uint64_t(in.tellg());
    if (length == std::numeric_limits<uint64_t>::max()) length = file_size >= offset ? file_size - offset : 0;
    if (offset > file_size || file_size - offset < length) {
      throw EngineError(label + ": external data file '" + location + "' has " + std::to_string(file_size) +
                        " bytes, too short for offset " + std::to_string(offset) + " + length " + std::to_string(length));
    }
    if (length != bytes) {
      throw EngineError(label + ": external data '" + location + "' holds " + std::to_string(length) +
                        " bytes but the shape " + ShapeToString(out.shape) + " needs " + std::to_string(bytes));
    }
    in.seekg(std::streamoff(offset));
    if (bytes && !in.read(reinterpret_cast<char*>(dst), std::streamsize(bytes))) {
      throw EngineError(label + ": cannot read external data '" + location + "'");
    }
    return out;
  }
  if (t.has_raw) {
    if (t.raw_size != bytes) {
      throw EngineError(label + " has " + std::to_string(t.raw_size) + " bytes of raw_data but its shape " +
                        ShapeToString(out.shape) + " needs " + std::to_string(bytes));
    }
    if (bytes) std::memcpy(dst, t.raw, bytes);
    return out;
  }
  size_t n = size_t(count);
  auto mismatch = [&](size_t have) {
    return EngineError(label + " has " + std::to_string(have) + " values but its shape " + ShapeToString(out.shape) +
                       " needs " + std::to_string(n));
  };
  switch (out.dtype) {
    case DataType::kFloat32:
      if (t.floats.size() != n) throw mismatch(t.floats.size());
      if (n) std::memcpy(dst, t.floats.data(), bytes);
      break;
    case DataType::kFloat64:
      if (t.doubles.size() != n) throw mismatch(t.doubles.size());
      if (n) std::memcpy(dst, t.doubles.data(), bytes);
      break;
    default: {
      if (t.int64s.size() != n) throw mismatch(t.int64s.size());
      for (size_t i = 0; i < n; ++i) {
        int64_t v = t.int64s[i];
        switch (esize) {
          case 1: dst[i] = uint8_t(v); break;
          case 2: { uint16_t x = uint16_t(v); std::memcpy(dst + 2 * i, &x, 2); break; }
          case 4: { uint32_t x = uint32_t(v); std::memcpy(dst + 4 * i, &x, 4); break; }
          default: std::memcpy(dst + 8 * i, &v, 8);
        }
      }
    }
  }
  return out;
}

ValueInfo ParseValueInfo(WireReader r) {
  ValueInfo v;
  uint32_t field;
  WireType type;
  while (r.next(field, type)) {
    if (field == 1) {
      v.name = r.string();
    } else if (field == 2) {
      WireReader tp = r.bytes();
      uint32_t f2;
      WireType t2;
      while (tp.next(f2, t2)) {
        if (f2 != 1) {
          v.non_tensor = f2 != 6;  // sequence, map, optional or sparse (6 is the denotation string)
          tp.skip(t2);
          continue;
        }
        WireReader tensor_type = tp.bytes();
        uint32_t f3;
        WireType t3;
        while (tensor_type.next(f3, t3)) {
          if (f3 == 1) {
            v.onnx_elem_type = int(tensor_type.varint());
            v.dtype = FromOnnxType(v.onnx_elem_type);
          } else if (f3 == 2) {
            v.has_shape = true;
            WireReader shape = tensor_type.bytes();
            uint32_t f4;
            WireType t4;
            while (shape.next(f4, t4)) {
              if (f4 != 1) { shape.skip(t4); continue; }
              WireReader dim = shape.bytes();
              int64_t value = -1;
              std::string param;
              uint32_t f5;
              WireType t5;
              while (dim.next(f5, t5)) {
                if (f5 == 1) value = int64_t(dim.varint());
                else if (f5 == 2) param = dim.string();
                else dim.skip(t5);
              }
              v.dims.push_back(value);
              v.dim_names.push_back(param);
            }
          } else {
            tensor_type.skip(t3);
          }
        }
      }
    } else {
      r.skip(type);
    }
  }
  return v;
}

Graph ParseGraph(WireReader r, const std::string& base_dir, const ReadOptions& options, int depth);

// Control-flow bodies nest (a Loop inside an If inside a Loop); a hostile file could nest them
// until the reader's stack runs out, so nesting is bounded.
constexpr int kMaxGraphDepth = 16;

Attribute ParseAttribute(WireReader r, std::string& name, const std::string& base_dir, const ReadOptions& options,
                         int depth) {
  Attribute a;
  int declared = 0;
  uint32_t field;
  WireType type;
  while (r.next(field, type)) {
    switch (field) {
      case 1: name = r.string(); break;
      case 20: declared = int(r.varint()); break;
      case 2: {
        uint32_t bits = r.fixed32();
        std::memcpy(&a.f, &bits, 4);
        break;
      }
      case 3: a.i = int64_t(r.varint()); break;
      case 4: a.s = r.string(); break;
      case 5: a.t = BuildTensor(ParseTensorParts(r.bytes()), "attribute", base_dir, options); break;
      case 6:
        if (depth >= kMaxGraphDepth) {
          r.fail("subgraphs nest more than " + std::to_string(kMaxGraphDepth) + " deep");
        }
        a.g = std::make_shared<const Graph>(ParseGraph(r.bytes(), base_dir, options, depth + 1));
        break;
      case 7:
        ReadRepeated(r, type, WireType::kFixed32, [&](WireReader& x) {
          uint32_t bits = x.fixed32();
          float f;
          std::memcpy(&f, &bits, 4);
          a.floats.push_back(f);
        });
        break;
      case 8: ReadRepeated(r, type, WireType::kVarint, [&](WireReader& x) { a.ints.push_back(int64_t(x.varint())); }); break;
      case 9: a.strings.push_back(r.string()); break;
      default: r.skip(type);
    }
  }
  switch (declared) {
    case 1: a.kind = Attribute::Kind::kFloat; break;
    case 2: a.kind = Attribute::Kind::kInt; break;
    case 3: a.kind = Attribute::Kind::kString; break;
    case 4: a.kind = Attribute::Kind::kTensor; break;
    case 5: a.kind = Attribute::Kind::kGraph; break;
    case 6: a.kind = Attribute::Kind::kFloats; break;
    case 7: a.kind = Attribute::Kind::kInts; break;
    case 8: a.kind = Attribute::Kind::kStrings; break;
    default: a.kind = Attribute::Kind::kOther;
  }
  return a;
}

Node ParseNode(WireReader r, const std::string& base_dir, const ReadOptions& options, int depth) {
  Node n;
  uint32_t field;
  WireType type;
  while (r.next(field, type)) {
    switch (field) {
      case 1: n.inputs.push_back(r.string()); break;
      case 2: n.outputs.push_back(r.string()); break;
      case 3: n.name = r.string(); break;
      case 4: n.op_type = r.string(); break;
      case 7: n.domain = r.string(); break;
      case 5: {
        std::string name;
        Attribute a = ParseAttribute(r.bytes(), name, base_dir, options, depth);
        n.attributes[name] = std::move(a);
        break;
      }
      default: r.skip(type);
    }
  }
  return n;
}

Graph ParseGraph(WireReader r, const std::string& base_dir, const ReadOptions& options, int depth) {
  Graph g;
  std::vector<ValueInfo> inputs;
  uint32_t field;
  WireType type;
  while (r.next(field, type)) {
    switch (field) {
      case 1: g.nodes.push_back(ParseNode(r.bytes(), base_dir, options, depth)); break;
      case 5: {
        TensorParts parts = ParseTensorParts(r.bytes());
        std::string name = parts.name;
        g.initializers[name] = BuildTensor(parts, "initializer", base_dir, options);
        break;
      }
      case 11: inputs.push_back(ParseValueInfo(r.bytes())); break;
      case 12: g.outputs.push_back(ParseValueInfo(r.bytes())); break;
      default: r.skip(type);
    }
  }
  // Graph inputs that are also initializers are constants with a default (ONNX IR < 4 style).
  for (auto& in : inputs) {
    if (!g.initializers.count(in.name)) g.inputs.push_back(std::move(in));
  }
  for (size_t i = 0; i < g.nodes.size(); ++i) {
    if (g.nodes[i].name.empty()) g.nodes[i].name = g.nodes[i].op_type + "_" + std::to_string(i);
  }
  return g;
}

}  // namespace

Model ReadOnnxBytes(const uint8_t* data, size_t size, const std::string& what, const std::string& base_dir,
                    const ReadOptions& options) {
  if (size == 0) throw EngineError(what + " is empty; expected an ONNX ModelProto");
  // A ModelProto starts with the key of one of its fields (exporters write ir_version, 0x08,
  // first). Any other first byte means the file is not an ONNX model at all.
  static const uint8_t kModelKeys[] = {0x08, 0x12, 0x1a, 0x22, 0x28, 0x32, 0x3a, 0x42, 0x72, 0xa2, 0xca};
  uint8_t first = data[0];
  bool plausible = false;
  for (uint8_t k : kModelKeys) plausible = plausible || first == k;
  if (!plausible) {
    throw EngineError(what + " is not an ONNX model (wrong magic: first byte 0x" +
                      std::string(1, "0123456789abcdef"[first >> 4]) + std::string(1, "0123456789abcdef"[first & 15]) +
                      " is not a protobuf field key)");
  }
  std::string label = what;
  WireReader r(data, size, label.c_str());
  Model m;
  bool has_graph = false;
  uint32_t field;
  WireType type;
  while (r.next(field, type)) {
    switch (field) {
      case 1: m.ir_version = int64_t(r.varint()); break;
      case 2: m.producer = r.string(); break;
      case 7: m.graph = ParseGraph(r.bytes(), base_dir, options, 0); has_graph = true; break;
      case 8: {
        WireReader op = r.bytes();
        std::string domain;
        int64_t version = 0;
        uint32_t f2;
        WireType t2;
        while (op.next(f2, t2)) {
          if (f2 == 1) domain = op.string();
          else if (f2 == 2) version = int64_t(op.varint());
          else op.skip(t2);
        }
        if (domain.empty() || domain == "ai.onnx") m.opset = version;
        break;
      }
      default: r.skip(type);
    }
  }
  if (!has_graph || m.ir_version == 0) {
    throw EngineError(what + " is not an ONNX model: it has no " + (has_graph ? "ir_version" : "graph") +
                      " (file truncated or not ONNX?)");
  }
  if (m.opset == 0) m.opset = 1;
  return m;
}

Model ReadOnnxFile(const std::string& path, const ReadOptions& options) {
  std::string bytes = ReadWholeFile(path, "model file");
  size_t slash = path.find_last_of('/');
  std::string dir = slash == std::string::npos ? "." : path.substr(0, slash);
  if (dir.empty()) dir = "/";
  return ReadOnnxBytes(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size(), "model '" + path + "'", dir,
                       options);
}

ConstTensor ReadTensorProtoFile(const std::string& path, std::string* name) {
  std::string bytes = ReadWholeFile(path, "tensor file");
  std::string label = "tensor file '" + path + "'";
  WireReader r(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size(), label.c_str());
  TensorParts parts = ParseTensorParts(r);
  if (name) *name = parts.name;
  return BuildTensor(parts, "file", "", ReadOptions{});
}

}  // namespace gebe::cpu
