// Discrete Fourier transforms: DFT (opset 17: axis an attribute; 20: an input) and STFT
// (frames of a signal, optionally windowed), and the MelWeightMatrix of mel spectrograms. Real inputs end in a dim of 1, complex ones in a dim
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

// The direct transform costs one complex multiply-add (and a sine and cosine) per sample per bin.
// Its lengths and step can come from a request, and sizes alone do not bound that product (an STFT
// with step 1 over a long signal, a dft_length of millions), so it is capped: 2^31 covers the
// spectrogram of two minutes of 16 kHz audio (400-sample frames, hop 160).
constexpr int64_t kMaxTransformWork = int64_t(1) << 31;
void CheckTransformWork(const Kernel& kernel, int64_t sequences, int64_t samples, int64_t bins) {
  const double work = double(sequences) * double(samples) * double(bins);
  if (work > double(kMaxTransformWork)) {
    throw EngineError(kernel.node().label() + ": " + std::to_string(sequences) + " transforms of " + std::to_string(samples) +
                      " samples into " + std::to_string(bins) + " bins are above the cpu engine's 2^31 multiply-adds (it computes " +
                      "them directly, with no FFT); use fewer or shorter frames");
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
    const int64_t comps = x.shape.back(), axis_size = x.shape[size_t(g.axis)];
    const int64_t sequences = SizeTo(x.shape, size_t(g.axis)) * (SizeFrom(x.shape, size_t(g.axis) + 1) / comps);
    CheckTransformWork(*this, sequences, std::min(axis_size, g.length), g.bins);
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
    CheckTransformWork(*this, x.shape[0] * g.frames, g.length, g.bins);
    return true;
  }

  bool onesided_;
};

// MelWeightMatrix: [dft_length / 2 + 1, num_mel_bins] triangular filters on the HTK mel scale
// between lower_edge_hertz and upper_edge_hertz, as ONNX's reference builds them.
class MelWeightMatrixKernel : public Kernel {
 public:
  MelWeightMatrixKernel(const Node& node, int64_t) : Kernel(node), out_type_(FromOnnxType(int(node.get_int("output_datatype", 1)))) {
    if (out_type_ != DataType::kFloat32 && out_type_ != DataType::kFloat64) Fail("output_datatype must be FLOAT or DOUBLE");
  }
  bool Infer(const std::vector<const TensorRef*>& in, std::vector<TensorRef>& out) override {
    for (size_t i = 0; i < 5; ++i) {
      if (!Known(Input(in, i, kNames[i]))) return false;
    }
    Params p = Read(in);
    out[0] = {out_type_, {p.dft_length / 2 + 1, p.mel_bins}, nullptr};
    return true;
  }
  void Run(const std::vector<const TensorRef*>& in, std::vector<TensorRef>& out, const RunContext&) override {
    Params p = Read(in);
    int64_t rows = p.dft_length / 2 + 1, m = p.mel_bins;
    std::vector<double> w(size_t(rows * m), 0.0);
    auto to_mel = [](double hz) { return 2595.0 * std::log10(1 + hz / 700.0); };
    double low = to_mel(p.lower), high = to_mel(p.upper), step = (high - low) / double(m + 2);  // sic: ONNX divides by the m + 2 points, not the m + 1 gaps
    std::vector<int64_t> bins(size_t(m + 2));
    for (int64_t i = 0; i < m + 2; ++i) {
      double hz = 700.0 * (std::pow(10.0, (low + double(i) * step) / 2595.0) - 1);
      bins[size_t(i)] = FromReal<int64_t>(std::floor(double(p.dft_length + 1) * hz / double(p.sample_rate)));
    }
    auto set = [&](int64_t row, int64_t col, double v) {
      if (row >= 0 && row < rows) w[size_t(row * m + col)] = v;
    };
    for (int64_t i = 0; i < m; ++i) {
      int64_t lo = bins[size_t(i)], center = bins[size_t(i + 1)], hi = bins[size_t(i + 2)];
      if (center == lo) set(center, i, 1);
      else for (int64_t j = lo; j <= center; ++j) set(j, i, double(j - lo) / double(center - lo));
      for (int64_t j = center; j < hi; ++j) set(j, i, double(hi - j) / double(hi - center));
    }
    for (size_t i = 0; i < w.size(); ++i) {
      if (out_type_ == DataType::kFloat64) out[0].as<double>()[i] = w[i];
      else out[0].as<float>()[i] = float(w[i]);
    }
  }

 private:
  static constexpr const char* kNames[5] = {"num_mel_bins", "dft_length", "sample_rate", "lower_edge_hertz", "upper_edge_hertz"};
  struct Params {
    int64_t mel_bins, dft_length, sample_rate;
    double lower, upper;
  };
  static double Scalar(const TensorRef& t) {
    if (t.dtype == DataType::kFloat32) return t.as<const float>()[0];
    if (t.dtype == DataType::kFloat64) return t.as<const double>()[0];
    return double(ReadInts(t).at(0));
  }
  Params Read(const std::vector<const TensorRef*>& in) const {
    for (size_t i = 0; i < 5; ++i) {
      if (in[i]->count() != 1) Fail(std::string(kNames[i]) + " must hold one value");
    }
    Params p{int64_t(Scalar(*in[0])), int64_t(Scalar(*in[1])), int64_t(Scalar(*in[2])), Scalar(*in[3]), Scalar(*in[4])};
    // Bounded: the matrix is rows × mel_bins doubles while it is built.
    if (p.mel_bins <= 0 || p.mel_bins > 65536 || p.dft_length <= 0 || p.dft_length > (int64_t(1) << 20) || p.sample_rate <= 0) {
      Fail("num_mel_bins (1-65536), dft_length (1-2^20) and sample_rate must be positive");
    }
    if (!(p.lower >= 0 && p.upper > p.lower)) Fail("lower_edge_hertz must be >= 0 and below upper_edge_hertz");
    return p;
  }
  DataType out_type_;
};

}  // namespace

GEBE_CPU_KERNEL("DFT", DftKernel);
GEBE_CPU_KERNEL("MelWeightMatrix", MelWeightMatrixKernel);
GEBE_CPU_KERNEL("STFT", StftKernel);

}  // namespace gebe::cpu
