// libFuzzer target: a ModelInferRequest message as the native gRPC front end receives it, decoded
// from the protobuf wire format, with each input's typed contents converted to tensor bytes.
// Decoding must never crash or read past the message, and every view it returns must lie inside it.
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <vector>

#include "grpc/grpc_wire.h"
#include "grpc/infer_message.h"

using namespace gebe;

namespace {

void CheckInside(ByteView v, const uint8_t* msg, size_t size) {
  if (v.size != 0 && (v.data < msg || v.data + v.size > msg + size)) std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  // An exact-size heap copy, so that ASan sees any read past the end.
  std::unique_ptr<uint8_t[]> msg(new uint8_t[size]);
  if (size) std::memcpy(msg.get(), data, size);
  GrpcInferRequest req;
  if (!DecodeModelInferRequest(msg.get(), size, &req)) return 0;
  CheckInside(req.model_name, msg.get(), size);
  CheckInside(req.model_version, msg.get(), size);
  CheckInside(req.id, msg.get(), size);
  for (const ByteView& raw : req.raw_input_contents) CheckInside(raw, msg.get(), size);
  for (const GrpcInferInput& in : req.inputs) {
    CheckInside(in.name, msg.get(), size);
    CheckInside(in.datatype, msg.get(), size);
    CheckInside(in.contents, msg.get(), size);
    if (!in.has_contents) continue;
    // The element count as the route computes it (grpc_infer_route.cc): any shape up to 2^40
    // elements, so that a conversion sizing memory by the count, not the bytes, hits -malloc_limit_mb.
    uint64_t count = 1;
    for (int64_t d : in.shape) {
      if (d < 0 || (d > 0 && count > (uint64_t(1) << 40) / uint64_t(d))) return 0;
      count *= uint64_t(d);
    }
    const DataType dtype = DataTypeFromName(Str(in.datatype));
    std::vector<uint8_t> bytes;
    if (TypedContentsToBytes(in.contents, dtype, count, &bytes) && bytes.size() != size_t(count) * ElementSize(dtype)) std::abort();
  }
  return 0;
}
