// Discrete Fourier transforms: DFT (opset 17: axis an attribute; 20: an input) and STFT
// (frames of a signal, optionally windowed). Real inputs end in a dim of 1, complex ones in a dim
// of 2 (real, imaginary); outputs are complex. Computed directly in double precision (O(n·k) per
// sequence, no FFT): exact for any length, and the sizes speech front-ends use are small.
#include <cmath>

#include "cpu/ops/op_util.h"

namespace gebe::cpu {

namespace {

// out[k] (k < bins) = sum over t < n of in[t] · e^(∓2πi·k·t/length), in and out strided complex.
void Transform(const float* in, int64_t in_stride, int64_t n, bool complex_in, float* out, int64_t out_stride, int64_t bins,
               int64_t length, bool inverse, const float* window) {
  const double sign = inverse ? 1.0 : -1.0, two_pi = 6.283185307179586476925286766559;
  for (int64_t k = 0; k < bins; ++k) {
    double re = 0, im = 0;
    for (int64_t t = 0; t < n; ++t) {
      double xr = in[t * in_stride], xi = complex_in ? in[t * in_stride + 1] : 0.0;
      if (window) xr *= window[t], xi *= window[t];
      double angle = sign * two_pi * double((k * t) % length) / double(length);
      double c = std::cos(angle), s = std::sin(angle);
      re += xr * c - xi * s;
      im += xr * s + xi * c;
    }
    if (inverse) re /= double(length), im /= double(length);
    out[k * out_stride] = float(re);
    out[k * out_stride + 1] = float(im);
  }
}

class DftKernel : public Kernel {
 public:
  DftKernel(const Node& node, int64_t opset)
      : Kernel(node), axis_input_(opset >= 20), axis_(node.get_int("axis", opset >= 20 ? -2 : 1)),
        inverse_(node.get_int("inverse", 0) != 0), onesided_(node.get_int("onesided", 0) != 0) {
    if (inverse_ && onesided_) Fail("onesided=1 with inverse=1 is not supported");
  }
  bool Infer(const std::vector<const TensorRef*>& in, std::vector<TensorRef>& out) override {
    const TensorRef& x = Input(in, 0, "input");
    ExpectType(x, "input", {DataType::kFloat32});
    Geometry g;
    if (!Resolve(in, g)) return false;
    Shape s = x.shape;
    s[size_t(g.axis)] = g.bins;
    s.back() = 2;
    out[0] = {DataType::kFloat32, s, nullptr};
    return true;
  }
  void Run(const std::vector<const TensorRef*>& in, std::vector<TensorRef>& out, const RunContext& ctx) override {
    const TensorRef& x = *in[0];
    Geometry g;
    Resolve(in, g);
    size_t axis = size_t(g.axis);
    int64_t comps = x.shape.back(), n_in = x.shape[axis];
    int64_t outer = SizeTo(x.shape, axis), inner = SizeFrom(x.shape, axis + 1) / comps;
    int64_t n = std::min(n_in, g.length);
    const float* px = x.as<const float>();
    float* py = out[0].as<float>();
    ctx.pool->ParallelFor(outer * inner, 1, [&](int64_t r0, int64_t r1) {
      for (int64_t r = r0; r < r1; ++r) {
        int64_t o = r / inner, i = r % inner;
        Transform(px + (o * n_in * inner + i) * comps, inner * comps, n, comps == 2, py + (o * g.bins * inner + i) * 2, inner * 2,
                  g.bins, g.length, inverse_, nullptr);
      }
    });
  }

 private:
  struct Geometry {
    int64_t axis = 0, length = 0, bins = 0;
  };
  bool Resolve(const std::vector<const TensorRef*>& in, Geometry& g) const {
    const TensorRef& x = *in[0];
    if (x.rank() < 2 || (x.shape.back() != 1 && x.shape.back() != 2)) {
      Fail("input must end in a dim of 1 (real) or 2 (complex); shape " + ShapeToString(x.shape));
    }
    int64_t axis = axis_;
    if (axis_input_ && in.size() > 2 && in[2]) {
      if (!Known(*in[2])) return false;
      axis = ReadInts(*in[2]).at(0);
    }
    g.axis = NormalizeAxis(*this, axis, x.rank() - 1);
    g.length = x.shape[size_t(g.axis)];
    if (in.size() > 1 && in[1] && in[1]->count() > 0) {
      if (!Known(*in[1])) return false;
      g.length = ReadInts(*in[1]).at(0);
      if (g.length <= 0) Fail("dft_length must be positive");
    }
    g.bins = onesided_ ? g.length / 2 + 1 : g.length;
    return true;
  }

  bool axis_input_;
  int64_t axis_;
  bool inverse_, onesided_;
};

class StftKernel : public Kernel {
 public:
  StftKernel(const Node& node, int64_t) : Kernel(node), onesided_(node.get_int("onesided", 1) != 0) {}
  bool Infer(const std::vector<const TensorRef*>& in, std::vector<TensorRef>& out) override {
    const TensorRef& x = Input(in, 0, "signal");
    ExpectType(x, "signal", {DataType::kFloat32});
    Geometry g;
    if (!Resolve(in, g)) return false;
    out[0] = {DataType::kFloat32, {x.shape[0], g.frames, g.bins, 2}, nullptr};
    return true;
  }
  void Run(const std::vector<const TensorRef*>& in, std::vector<TensorRef>& out, const RunContext& ctx) override {
    const TensorRef& x = *in[0];
    Geometry g;
    Resolve(in, g);
    int64_t comps = x.shape[2], len = x.shape[1];
    const float* window = in.size() > 2 && in[2] ? in[2]->as<const float>() : nullptr;
    const float* px = x.as<const float>();
    float* py = out[0].as<float>();
    ctx.pool->ParallelFor(x.shape[0] * g.frames, 1, [&](int64_t r0, int64_t r1) {
      for (int64_t r = r0; r < r1; ++r) {
        int64_t b = r / g.frames, f = r % g.frames;
        Transform(px + (b * len + f * g.step) * comps, comps, g.length, comps == 2, py + r * g.bins * 2, 2, g.bins, g.length, false, window);
      }
    });
  }

 private:
  struct Geometry {
    int64_t step = 0, length = 0, frames = 0, bins = 0;
  };
  bool Resolve(const std::vector<const TensorRef*>& in, Geometry& g) const {
    const TensorRef& x = *in[0];
    if (x.rank() != 3 || (x.shape[2] != 1 && x.shape[2] != 2)) Fail("signal must be [batch, length, 1 or 2]; shape " + ShapeToString(x.shape));
    const TensorRef& step = Input(in, 1, "frame_step");
    const TensorRef* window = in.size() > 2 ? in[2] : nullptr;
    const TensorRef* length = in.size() > 3 ? in[3] : nullptr;
    if (!Known(step) || (length && !Known(*length))) return false;
    g.step = ReadInts(step).at(0);
    if (window) {
      ExpectType(*window, "window", {DataType::kFloat32});
      if (window->rank() != 1) Fail("window must be 1-D");
      g.length = window->shape[0];
    }
    if (length) {
      int64_t l = ReadInts(*length).at(0);
      if (window && l != g.length) Fail("frame_length " + std::to_string(l) + " differs from the window's length " + std::to_string(g.length));
      g.length = l;
    }
    if (g.length <= 0 || g.step <= 0) Fail("frame_step and the frame length (from frame_length or the window) must be positive");
    if (g.length > x.shape[1]) Fail("the frame length " + std::to_string(g.length) + " is longer than the signal (" + std::to_string(x.shape[1]) + ")");
    g.frames = (x.shape[1] - g.length) / g.step + 1;
    g.bins = onesided_ ? g.length / 2 + 1 : g.length;
    return true;
  }

  bool onesided_;
};

}  // namespace

GEBE_CPU_KERNEL("DFT", DftKernel);
GEBE_CPU_KERNEL("STFT", StftKernel);

}  // namespace gebe::cpu
