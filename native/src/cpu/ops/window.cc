// Signal windows (opset 17): HannWindow, HammingWindow, BlackmanWindow of a given size, periodic
// (the default: N = size) or symmetric (N = size - 1), in output_datatype (computed in double).
#include <cmath>

#include "cpu/ops/op_util.h"

namespace gebe::cpu {

namespace {

enum class Window { kHann, kHamming, kBlackman };

class WindowKernel : public Kernel {
 public:
  WindowKernel(const Node& node, Window w) : Kernel(node), window_(w) {
    periodic_ = node.get_int("periodic", 1) != 0;
    dtype_ = FromOnnxType(int(node.get_int("output_datatype", 1)));
    if (dtype_ == DataType::kFloat16 || dtype_ == DataType::kBFloat16 || dtype_ == DataType::kFloat64) dtype_ = DataType::kFloat32;  // see type_lowering.cc
    if (dtype_ == DataType::kBool || ElementSize(dtype_) == 0) Fail("output_datatype must be a numeric type");
  }
  bool Infer(const std::vector<const TensorRef*>& in, std::vector<TensorRef>& out) override {
    const TensorRef& size = Input(in, 0, "size");
    ExpectType(size, "size", {DataType::kInt64, DataType::kInt32});
    if (!Known(size)) return false;
    if (size.count() != 1) Fail("size must hold one value");
    int64_t n = ReadInts(size)[0];
    if (n < 0) Fail("size must not be negative but is " + std::to_string(n));
    out[0] = {dtype_, {n}, nullptr};
    return true;
  }
  void Run(const std::vector<const TensorRef*>&, std::vector<TensorRef>& out, const RunContext&) override {
    int64_t size = out[0].shape[0];
    double n = double(periodic_ ? size : size - 1);
    const double pi = 3.14159265358979323846;
    for (int64_t i = 0; i < size; ++i) {
      double x = n > 0 ? 2 * pi * double(i) / n : 0;
      double v = window_ == Window::kHann ? 0.5 - 0.5 * std::cos(x)
                 : window_ == Window::kHamming ? 25.0 / 46.0 - 21.0 / 46.0 * std::cos(x)
                                               : 0.42 - 0.5 * std::cos(x) + 0.08 * std::cos(2 * x);
      GEBE_DISPATCH_NUMERIC(dtype_, { out[0].as<T>()[i] = T(v); });
    }
  }

 private:
  Window window_;
  bool periodic_ = true;
  DataType dtype_ = DataType::kFloat32;
};

template <Window w>
struct WindowOp : WindowKernel {
  WindowOp(const Node& node, int64_t) : WindowKernel(node, w) {}
};

}  // namespace

GEBE_CPU_KERNEL("HannWindow", WindowOp<Window::kHann>);
GEBE_CPU_KERNEL("HammingWindow", WindowOp<Window::kHamming>);
GEBE_CPU_KERNEL("BlackmanWindow", WindowOp<Window::kBlackman>);

}  // namespace gebe::cpu
