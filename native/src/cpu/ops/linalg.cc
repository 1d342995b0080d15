// Det: determinants of the trailing [M, M] matrices, by LU decomposition with partial pivoting
// in double precision.
#include <cmath>

#include "cpu/ops/op_util.h"

namespace gebe::cpu {

namespace {

class DetKernel : public Kernel {
 public:
  DetKernel(const Node& node, int64_t) : Kernel(node) {}
  bool Infer(const std::vector<const TensorRef*>& in, std::vector<TensorRef>& out) override {
    const TensorRef& x = Input(in, 0, "X");
    ExpectType(x, "X", {DataType::kFloat32});
    if (x.rank() < 2 || x.shape[size_t(x.rank() - 1)] != x.shape[size_t(x.rank() - 2)]) {
      Fail("X must be [..., M, M] but has shape " + ShapeToString(x.shape));
    }
    out[0] = {x.dtype, Shape(x.shape.begin(), x.shape.end() - 2), nullptr};
    return true;
  }
  void Run(const std::vector<const TensorRef*>& in, std::vector<TensorRef>& out, const RunContext&) override {
    const TensorRef& x = *in[0];
    int64_t m = x.shape.back(), count = out[0].count();
    std::vector<double> a(size_t(m * m));
    for (int64_t b = 0; b < count; ++b) {
      const float* src = x.as<const float>() + b * m * m;
      for (int64_t i = 0; i < m * m; ++i) a[size_t(i)] = src[i];
      double det = 1;
      for (int64_t c = 0; c < m && det != 0; ++c) {
        int64_t pivot = c;
        for (int64_t r = c + 1; r < m; ++r) {
          if (std::fabs(a[size_t(r * m + c)]) > std::fabs(a[size_t(pivot * m + c)])) pivot = r;
        }
        if (a[size_t(pivot * m + c)] == 0) {
          det = 0;
          break;
        }
        if (pivot != c) {
          for (int64_t k = 0; k < m; ++k) std::swap(a[size_t(c * m + k)], a[size_t(pivot * m + k)]);
          det = -det;
        }
        double d = a[size_t(c * m + c)];
        det *= d;
        for (int64_t r = c + 1; r < m; ++r) {
          double f = a[size_t(r * m + c)] / d;
          for (int64_t k = c; k < m; ++k) a[size_t(r * m + k)] -= f * a[size_t(c * m + k)];
        }
      }
      out[0].as<float>()[b] = float(det);
    }
  }
};

}  // namespace

GEBE_CPU_KERNEL("Det", DetKernel);

}  // namespace gebe::cpu
