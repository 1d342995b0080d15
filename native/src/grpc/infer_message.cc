#include "grpc/infer_message.h"

#include <cstring>

namespace gebe {

namespace {

bool ReadParameter(ByteView bytes, GrpcParameter* out) {
  ProtoReader r(bytes);
  uint32_t field;
  ProtoWire wire;
  *out = GrpcParameter();
  while (r.Next(&field, &wire)) {
    using Kind = GrpcParameter::Kind;
    if (field == 1 && wire == ProtoWire::kVarint) out->kind = Kind::kBool, out->bool_value = r.Varint() != 0;
    else if (field == 2 && wire == ProtoWire::kVarint) out->kind = Kind::kInt64, out->int64_value = int64_t(r.Varint());
    else if (field == 3 && wire == ProtoWire::kLen) out->kind = Kind::kString, out->string_value = r.Bytes();
    else if (field == 4 && wire == ProtoWire::kFixed64) {
      const uint64_t bits = r.Fixed64();
      out->kind = Kind::kDouble;
      std::memcpy(&out->double_value, &bits, 8);
    } else if (field == 5 && wire == ProtoWire::kVarint) out->kind = Kind::kUInt64, out->uint64_value = r.Varint();
    else if (field <= 5) return false;  // a known field with the wrong wire type
    else r.Skip(wire);
  }
  return r.ok();
}

// One map<string, InferParameter> entry.
bool ReadParameterEntry(ByteView bytes, std::vector<GrpcNamedParameter>* out) {
  ProtoReader r(bytes);
  uint32_t field;
  ProtoWire wire;
  GrpcNamedParameter entry;
  while (r.Next(&field, &wire)) {
    if (field == 1 && wire == ProtoWire::kLen) entry.key = r.Bytes();
    else if (field == 2 && wire == ProtoWire::kLen) {
      if (!ReadParameter(r.Bytes(), &entry.value)) return false;
    } else if (field <= 2) return false;
    else r.Skip(wire);
  }
  if (!r.ok()) return false;
  out->push_back(entry);
  return true;
}

bool ReadPackedInt64s(ByteView bytes, std::vector<int64_t>* out) {
  // A packed run has no keys: read varints until the bytes end.
  const uint8_t* p = bytes.data;
  const uint8_t* end = bytes.data + bytes.size;
  // Each varint ends at a byte below 0x80: one allocation for the whole run, sized by bytes received.
  size_t count = 0;
  for (const uint8_t* q = p; q < end; ++q) count += *q < 0x80;
  out->reserve(out->size() + count);
  while (p < end) {
    uint64_t v = 0;
    int shift = 0;
    for (;;) {
      if (p >= end || shift >= 70) return false;
      const uint8_t b = *p++;
      if (shift == 63 && b > 1) return false;
      v |= uint64_t(b & 0x7f) << shift;
      shift += 7;
      if ((b & 0x80) == 0) break;
    }
    out->push_back(int64_t(v));
  }
  return true;
}

bool ReadInput(ByteView bytes, GrpcInferInput* out) {
  ProtoReader r(bytes);
  uint32_t field;
  ProtoWire wire;
  while (r.Next(&field, &wire)) {
    switch (field) {
      case 1:
        if (wire != ProtoWire::kLen) return false;
        out->name = r.Bytes();
        break;
      case 2:
        if (wire != ProtoWire::kLen) return false;
        out->datatype = r.Bytes();
        break;
      case 3:
        if (wire == ProtoWire::kVarint) out->shape.push_back(int64_t(r.Varint()));
        else if (wire == ProtoWire::kLen) {
          if (!ReadPackedInt64s(r.Bytes(), &out->shape)) return false;
        } else return false;
        break;
      case 4:
        if (wire != ProtoWire::kLen || !ReadParameterEntry(r.Bytes(), &out->parameters)) return false;
        break;
      case 5:
        if (wire != ProtoWire::kLen) return false;
        // Repeated occurrences of a message field merge; the native route takes only one.
        if (out->has_contents) return false;
        out->has_contents = true;
        out->contents = r.Bytes();
        break;
      default:
        r.Skip(wire);
    }
  }
  return r.ok();
}

bool ReadOutput(ByteView bytes, GrpcRequestedOutput* out) {
  ProtoReader r(bytes);
  uint32_t field;
  ProtoWire wire;
  while (r.Next(&field, &wire)) {
    if (field == 1 && wire == ProtoWire::kLen) out->name = r.Bytes();
    else if (field == 2 && wire == ProtoWire::kLen) {
      if (!ReadParameterEntry(r.Bytes(), &out->parameters)) return false;
    } else if (field <= 2) return false;
    else r.Skip(wire);
  }
  return r.ok();
}

// The InferTensorContents field of each datatype (grpc-infer.ts CONTENTS_FIELD).
uint32_t ContentsField(DataType dtype) {
  switch (dtype) {
    case DataType::kBool: return 1;
    case DataType::kInt8:
    case DataType::kInt16:
    case DataType::kInt32: return 2;
    case DataType::kInt64: return 3;
    case DataType::kUInt8:
    case DataType::kUInt16:
    case DataType::kUInt32: return 4;
    case DataType::kUInt64: return 5;
    case DataType::kFloat32: return 6;
    case DataType::kFloat64: return 7;
    default: return 0;
  }
}

// Stores one element of `dtype` from a varint's value; false when out of the datatype's range.
bool PutInteger(DataType dtype, uint64_t raw, uint8_t* dst) {
  switch (dtype) {
    case DataType::kBool: *dst = raw != 0; return true;
    case DataType::kInt8: {
      const int64_t v = int64_t(int32_t(raw));
      if (v < -128 || v > 127) return false;
      *reinterpret_cast<int8_t*>(dst) = int8_t(v);
      return true;
    }
    case DataType::kInt16: {
      const int64_t v = int64_t(int32_t(raw));
      if (v < -32768 || v > 32767) return false;
      const int16_t s = int16_t(v);
      std::memcpy(dst, &s, 2);
      return true;
    }
    case DataType::kInt32: {
      const int32_t s = int32_t(raw);
      std::memcpy(dst, &s, 4);
      return true;
    }
    case DataType::kUInt8: {
      const uint32_t v = uint32_t(raw);
      if (v > 255) return false;
      *dst = uint8_t(v);
      return true;
    }
    case DataType::kUInt16: {
      const uint32_t v = uint32_t(raw);
      if (v > 65535) return false;
      const uint16_t s = uint16_t(v);
      std::memcpy(dst, &s, 2);
      return true;
    }
    case DataType::kUInt32: {
      const uint32_t s = uint32_t(raw);
      std::memcpy(dst, &s, 4);
      return true;
    }
    case DataType::kInt64:
    case DataType::kUInt64:
      std::memcpy(dst, &raw, 8);
      return true;
    default:
      return false;
  }
}

}  // namespace

bool DecodeModelInferRequest(const uint8_t* data, size_t size, GrpcInferRequest* out) {
  *out = GrpcInferRequest();
  ProtoReader r(data, size);
  uint32_t field;
  ProtoWire wire;
  while (r.Next(&field, &wire)) {
    if (field >= 1 && field <= 7 && wire != ProtoWire::kLen) return false;
    switch (field) {
      case 1: out->model_name = r.Bytes(); break;
      case 2: out->model_version = r.Bytes(); break;
      case 3: out->id = r.Bytes(); break;
      case 4:
        if (!ReadParameterEntry(r.Bytes(), &out->parameters)) return false;
        break;
      case 5:
        out->inputs.emplace_back();
        if (!ReadInput(r.Bytes(), &out->inputs.back())) return false;
        break;
      case 6:
        out->outputs.emplace_back();
        if (!ReadOutput(r.Bytes(), &out->outputs.back())) return false;
        break;
      case 7: out->raw_input_contents.push_back(r.Bytes()); break;
      default: r.Skip(wire);
    }
  }
  return r.ok();
}

bool TypedContentsToBytes(ByteView contents, DataType dtype, uint64_t count, std::vector<uint8_t>* out) {
  const uint32_t want = ContentsField(dtype);
  const size_t element = ElementSize(dtype);
  if (want == 0 || element == 0) return false;
  // Elements come from bytes received: a count larger than the contents could hold is refused
  // before anything is allocated (every element takes at least one byte on the wire).
  if (count > contents.size) return false;
  out->assign(size_t(count) * element, 0);
  uint64_t got = 0;
  ProtoReader r(contents);
  uint32_t field;
  ProtoWire wire;
  auto put = [&](uint64_t raw) -> bool {
    if (got >= count) return false;
    if (!PutInteger(dtype, raw, out->data() + got * element)) return false;
    ++got;
    return true;
  };
  while (r.Next(&field, &wire)) {
    if (field < 1 || field > 8) {
      r.Skip(wire);
      continue;
    }
    if (field != want) return false;  // another datatype's field: JS names the mismatch
    if (want == 6 || want == 7) {
      const size_t width = want == 6 ? 4 : 8;
      const ProtoWire single = want == 6 ? ProtoWire::kFixed32 : ProtoWire::kFixed64;
      if (wire == single) {
        if (got >= count) return false;
        if (width == 4) {
          const uint32_t bits = r.Fixed32();
          std::memcpy(out->data() + got * 4, &bits, 4);
        } else {
          const uint64_t bits = r.Fixed64();
          std::memcpy(out->data() + got * 8, &bits, 8);
        }
        ++got;
      } else if (wire == ProtoWire::kLen) {
        const ByteView run = r.Bytes();
        if (run.size % width != 0 || run.size / width > count - got) return false;
        if (run.size > 0) std::memcpy(out->data() + got * width, run.data, run.size);
        got += run.size / width;
      } else {
        return false;
      }
      continue;
    }
    if (wire == ProtoWire::kVarint) {
      if (!put(r.Varint())) return false;
    } else if (wire == ProtoWire::kLen) {
      std::vector<int64_t> values;
      if (!ReadPackedInt64s(r.Bytes(), &values)) return false;
      for (int64_t v : values) {
        if (!put(uint64_t(v))) return false;
      }
    } else {
      return false;
    }
  }
  return r.ok() && got == count;
}

namespace {

size_t OutputTensorSize(const GrpcResponseOutput& o, size_t* shape_bytes) {
  size_t packed = 0;
  for (int64_t d : *o.shape) packed += VarintSize(uint64_t(d));
  *shape_bytes = packed;
  size_t n = LenFieldSize(1, o.name->size()) + LenFieldSize(2, std::strlen(o.datatype));
  if (!o.shape->empty()) n += LenFieldSize(3, packed);
  return n;
}

void PutStringIfSet(std::string* out, uint32_t field, std::string_view s) {
  if (!s.empty()) PutBytesField(out, field, s);
}

size_t StringFieldSize(uint32_t field, std::string_view s) { return s.empty() ? 0 : LenFieldSize(field, s.size()); }

// Every response on a ModelStreamInfer stream carries Triton's parameter saying whether it is the
// last for its request (`triton_final_response`, a bool); streaming clients end a request on it.
constexpr std::string_view kFinalResponseParameter = "triton_final_response";

// One map<string, InferParameter> entry (field 4 of ModelInferResponse) holding {bool_param: value}.
size_t FinalParameterEntrySize() { return LenFieldSize(1, kFinalResponseParameter.size()) + LenFieldSize(2, 2); }
size_t FinalParameterSize() { return LenFieldSize(4, FinalParameterEntrySize()); }
void PutFinalParameter(std::string* out, bool final) {
  PutLenHeader(out, 4, FinalParameterEntrySize());
  PutBytesField(out, 1, kFinalResponseParameter);
  PutLenHeader(out, 2, 2);
  PutKey(out, 1, ProtoWire::kVarint);  // bool_param, present even when false (a oneof member)
  PutVarint(out, final ? 1 : 0);
}

}  // namespace

std::string EncodeModelInferResponse(std::string_view model_name, std::string_view model_version, std::string_view id,
                                     const std::vector<GrpcResponseOutput>& outputs, bool stream) {
  std::vector<size_t> tensor_sizes(outputs.size()), shape_sizes(outputs.size());
  size_t inner = StringFieldSize(1, model_name) + StringFieldSize(2, model_version) + StringFieldSize(3, id);
  if (stream) inner += FinalParameterSize();
  for (size_t i = 0; i < outputs.size(); ++i) {
    tensor_sizes[i] = OutputTensorSize(outputs[i], &shape_sizes[i]);
    inner += LenFieldSize(5, tensor_sizes[i]);
  }
  for (const GrpcResponseOutput& o : outputs) inner += LenFieldSize(6, o.byte_size);
  const size_t total = stream ? LenFieldSize(2, inner) : inner;

  std::string out;
  out.reserve(5 + total);
  AppendMessagePrefix(&out, total);
  if (stream) PutLenHeader(&out, 2, inner);
  PutStringIfSet(&out, 1, model_name);
  PutStringIfSet(&out, 2, model_version);
  PutStringIfSet(&out, 3, id);
  if (stream) PutFinalParameter(&out, true);  // the native route's models answer each request once
  for (size_t i = 0; i < outputs.size(); ++i) {
    const GrpcResponseOutput& o = outputs[i];
    PutLenHeader(&out, 5, tensor_sizes[i]);
    PutBytesField(&out, 1, *o.name);
    PutBytesField(&out, 2, o.datatype);
    if (!o.shape->empty()) {
      PutLenHeader(&out, 3, shape_sizes[i]);
      for (int64_t d : *o.shape) PutVarint(&out, uint64_t(d));
    }
  }
  for (const GrpcResponseOutput& o : outputs) {
    PutLenHeader(&out, 6, o.byte_size);
    if (o.byte_size > 0) out.append(reinterpret_cast<const char*>(o.data), o.byte_size);
  }
  return out;
}

std::string EncodeStreamError(std::string_view message, std::string_view model_name, std::string_view model_version,
                              std::string_view id) {
  const size_t inner = StringFieldSize(1, model_name) + StringFieldSize(2, model_version) + StringFieldSize(3, id) + FinalParameterSize();
  // infer_response is always present, as the JS front end sends it.
  const size_t total = StringFieldSize(1, message) + LenFieldSize(2, inner);
  std::string out;
  out.reserve(5 + total);
  AppendMessagePrefix(&out, total);
  PutStringIfSet(&out, 1, message);
  PutLenHeader(&out, 2, inner);
  PutStringIfSet(&out, 1, model_name);
  PutStringIfSet(&out, 2, model_version);
  PutStringIfSet(&out, 3, id);
  PutFinalParameter(&out, true);
  return out;
}

}  // namespace gebe
