// Discrete Fourier transforms: DFT (opset 17: axis an attribute; 20: an input) and STFT
// (frames of a signal, optionally windowed), and the MelWeightMatrix of mel spectrograms. Real inputs
// end in a dim of 1, complex ones in a dim of 2 (real, imaginary); outputs are complex. Each
// sequence is zero-padded (or cut) to the transform's length and run through KISS FFT
// (native/third_party/kissfft) in double precision; a length with a large prime factor goes through
// Bluestein's chirp-z form instead, so every length costs O(n log n).
#include <kissfft.hh>

#include <algorithm>
#include <cmath>
#include <complex>
#include <vector>

#include "cpu/ops/op_util.h"

namespace gebe::cpu {

namespace {

using Fft = kissfft<double>;

// The longest transform: a thread's scratch is three arrays of that many complex doubles (the plan's
// twiddles, the padded input and the product), 48 MB at 2^20. MelWeightMatrix has the same bound.
constexpr int64_t kMaxTransformLength = int64_t(1) << 20;

// KISS FFT splits a length into radix-4 stages, then 2, 3, 5, 7 and on (its constructor's
// factoring, repeated here); a stage of radix p costs about length × p complex multiply-adds, the
// generic butterfly of a prime p exactly that. So a length with a large prime factor costs up to
// length² per transform, and lengths and steps can come from a request. The total is capped at 2^34
// such steps: about half a minute on one core here (a prime length of 32749 took 2.1 s, 1.9 ns a
// step), what the direct transform's cap of 2^31 sine-and-cosine multiply-adds took before. About
// six hours of 16 kHz audio in Whisper's frames (400 samples, hop 160: 7600 steps each) fit.
constexpr double kMaxTransformWork = double(int64_t(1) << 34);
double TransformWork(int64_t length) {
  double stages = 1;  // the padded copy in
  int64_t n = length, p = 4;
  while (n > 1) {
    while (n % p != 0) {
      p = p == 4 ? 2 : p == 2 ? 3 : p + 2;
      if (p * p > n) p = n;
    }
    n /= p;
    stages += double(p);
  }
  return double(length) * stages;
}

// Bluestein's chirp-z form runs a length-n transform as a circular convolution of length m, the
// power of two at or above 2n - 1: a product by a chirp, an FFT of m, a product by the chirp's
// transform (computed once a plan), an inverse FFT of m, a product by the chirp. It is taken where
// that costs fewer steps than KISS FFT's own stages (a length with a prime factor of some hundreds
// or more), up to m = 2^20, which keeps a thread's scratch within the bound above.
constexpr int64_t kMaxChirpLength = int64_t(1) << 20;
int64_t ChirpLength(int64_t length) {
  int64_t m = 1;
  while (m < 2 * length - 1) m *= 2;
  return m;
}
double ChirpWork(int64_t length) {
  const int64_t m = ChirpLength(length);
  return 2 * TransformWork(m) + 3 * double(m);
}
bool UsesChirp(int64_t length) {
  return length > 2 && ChirpLength(length) <= kMaxChirpLength && ChirpWork(length) < TransformWork(length);
}

void CheckTransform(const Kernel& kernel, int64_t sequences, int64_t length) {
  if (length > kMaxTransformLength) {
    throw EngineError(kernel.node().label() + ": a transform length of " + std::to_string(length) + " is above the cpu engine's " +
                      std::to_string(kMaxTransformLength) + "; use a shorter dft_length or frame");
  }
  const double work = double(sequences) * (UsesChirp(length) ? ChirpWork(length) : TransformWork(length));
  if (work > kMaxTransformWork) {
    throw EngineError(kernel.node().label() + ": " + std::to_string(sequences) + " transforms of length " + std::to_string(length) +
                      " are above the cpu engine's 2^34 FFT steps (a length's FFT costs about the length times the sum of its " +
                      "prime factors, or four times its own FFT past a prime factor of some hundreds); use fewer frames, or a " +
                      "shorter length");
  }
}

// What every thread shares for transforms of one length and direction.
struct Plan {
  Plan(int64_t length, bool inverse)
      : chirp(UsesChirp(length)), fft(size_t(chirp ? ChirpLength(length) : length), inverse && !chirp),
        inverse_fft(size_t(chirp ? ChirpLength(length) : 1), true) {
    if (!chirp) return;
    const int64_t n = length, m = ChirpLength(length);
    // c_j = exp(-πi j²/n) (forward; +πi inverse), j² taken mod 2n so the angle stays exact.
    c.resize(size_t(n));
    const double sign = inverse ? 1.0 : -1.0;
    for (int64_t j = 0; j < n; ++j) {
      const int64_t q = (j * j) % (2 * n);  // j < 2^20: j² fits
      const double angle = sign * std::acos(-1.0) * double(q) / double(n);
      c[size_t(j)] = {std::cos(angle), std::sin(angle)};
    }
    // The transform of conj(c) laid out circularly (t and m - t), with the inverse FFT's 1/m folded in.
    std::vector<std::complex<double>> b(static_cast<size_t>(m));
    for (int64_t t = 0; t < n; ++t) {
      b[size_t(t)] = std::conj(c[size_t(t)]);
      if (t > 0) b[size_t(m - t)] = std::conj(c[size_t(t)]);
    }
    chirp_transform.resize(size_t(m));
    fft.transform(b.data(), chirp_transform.data());
    for (auto& v : chirp_transform) v /= double(m);
  }

  bool chirp;
  Fft fft;          // the length's own (direct), or the forward FFT of m (chirp)
  Fft inverse_fft;  // chirp: the inverse FFT of m
  std::vector<std::complex<double>> c, chirp_transform;
};

// One thread's transforms of a plan's length: in → zero-padded complex copy (windowed) → FFT →
// the first `bins` outputs, divided by the length for an inverse transform.
class RowTransform {
 public:
  RowTransform(const Plan& plan, int64_t length, bool inverse)
      : plan_(plan), fft_(plan.chirp ? Fft(1, false) : plan.fft), inverse_(inverse), in_(size_t(length)), out_(size_t(length)) {
    if (plan.chirp) a_.resize(plan.chirp_transform.size()), a_hat_.resize(plan.chirp_transform.size());
  }

  // in: n samples `in_stride` floats apart, each real or (complex_in) a pair; out: bins pairs
  // `out_stride` floats apart.
  void Run(const float* in, int64_t in_stride, int64_t n, bool complex_in, const float* window, float* out, int64_t out_stride,
           int64_t bins) {
    for (int64_t t = 0; t < n; ++t) {
      double re = in[t * in_stride], im = complex_in ? in[t * in_stride + 1] : 0.0;
      if (window != nullptr) re *= window[t], im *= window[t];
      in_[size_t(t)] = {re, im};
    }
    std::fill(in_.begin() + n, in_.end(), std::complex<double>());
    if (plan_.chirp) Chirp();
    else fft_.transform(in_.data(), out_.data());
    const double scale = inverse_ ? 1.0 / double(in_.size()) : 1.0;
    for (int64_t k = 0; k < bins; ++k) {
      out[k * out_stride] = float(out_[size_t(k)].real() * scale);
      out[k * out_stride + 1] = float(out_[size_t(k)].imag() * scale);
    }
  }

 private:
  // Bluestein: X_k = c_k · Σ_j (x_j c_j) conj(c_(k-j)), the sum a circular convolution of length m.
  void Chirp() {
    const size_t n = in_.size(), m = a_.size();
    for (size_t j = 0; j < n; ++j) a_[j] = in_[j] * plan_.c[j];
    std::fill(a_.begin() + std::ptrdiff_t(n), a_.end(), std::complex<double>());
    plan_.fft.transform(a_.data(), a_hat_.data());  // m is a power of two: radix 2 and 4 only, no scratch
    for (size_t t = 0; t < m; ++t) a_hat_[t] *= plan_.chirp_transform[t];
    plan_.inverse_fft.transform(a_hat_.data(), a_.data());
    for (size_t k = 0; k < n; ++k) out_[k] = a_[k] * plan_.c[k];
  }

  const Plan& plan_;
  Fft fft_;  // direct: a copy, as the generic butterfly writes the object's scratch (chirp: unused)
  bool inverse_;
  std::vector<std::complex<double>> in_, out_, a_, a_hat_;
};

// Runs rows [0, rows) of length-`length` transforms over the pool, row(r, transform) each.
template <typename Row>
void TransformRows(const RunContext& ctx, int64_t rows, int64_t length, bool inverse, const Row& row) {
  const Plan plan(length, inverse);
  ParallelForContiguous(ctx.pool, rows, 1, [&](int64_t r0, int64_t r1) {
    RowTransform transform(plan, length, inverse);
    for (int64_t r = r0; r < r1; ++r) row(r, transform);
  });
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
    const int64_t n = std::min(n_in, g.length);
    const float* px = x.as<const float>();
    float* py = out[0].as<float>();
    if (g.length == 0) {  // an empty axis and no dft_length: every bin is 0
      std::fill(py, py + out[0].count(), 0.0f);
      return;
    }
    TransformRows(ctx, outer * inner, g.length, inverse_, [&](int64_t r, RowTransform& transform) {
      const int64_t o = r / inner, i = r % inner;
      transform.Run(px + (o * n_in * inner + i) * comps, inner * comps, n, comps == 2, nullptr, py + (o * g.bins * inner + i) * 2,
                    inner * 2, g.bins);
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
    const int64_t comps = x.shape.back();
    const int64_t sequences = SizeTo(x.shape, size_t(g.axis)) * (SizeFrom(x.shape, size_t(g.axis) + 1) / comps);
    CheckTransform(*this, sequences, g.length);
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
    TransformRows(ctx, x.shape[0] * g.frames, g.length, false, [&](int64_t r, RowTransform& transform) {
      const int64_t b = r / g.frames, f = r % g.frames;
      transform.Run(px + (b * len + f * g.step) * comps, comps, g.length, comps == 2, window, py + r * g.bins * 2, 2, g.bins);
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
    CheckTransform(*this, x.shape[0] * g.frames, g.length);
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
