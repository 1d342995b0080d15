// Tests of the row kernels in ops/vector_math.* (Erf, Gelu, Tanh, Sigmoid, Softmax and LayerNorm
// rows) against double-precision references, for every row length from 1 to 70 (vector bodies
// and masked tails). run-asan.sh runs it once per ISA this CPU has (GEBE_CPU_ISA=portable, avx2,
// avx512), so every path is checked where the machine can run it.
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "cpu/isa.h"
#include "cpu/ops/vector_math.h"

#include "check.h"

using namespace gebe::cpu;

namespace {

std::vector<float> Random(size_t n, float scale, std::mt19937& rng) {
  std::uniform_real_distribution<float> d(-scale, scale);
  std::vector<float> v(n);
  for (auto& x : v) x = d(rng);
  return v;
}

void ErfAndGelu(std::mt19937& rng) {
  for (size_t n = 1; n <= 70; ++n) {
    std::vector<float> x = Random(n, 6.f, rng), y(n), g(n);
    ErfArray(x.data(), y.data(), int64_t(n));
    GeluArray(x.data(), g.data(), int64_t(n));
    for (size_t i = 0; i < n; ++i) {
      double ref = std::erf(double(x[i]));
      Check(std::fabs(y[i] - ref) <= 1e-6, "erf(" + std::to_string(x[i]) + ") = " + std::to_string(y[i]));
      double gref = 0.5 * x[i] * (1 + std::erf(x[i] / std::sqrt(2.0)));
      Check(std::fabs(g[i] - gref) <= 1e-6 * std::fmax(1.0, std::fabs(gref)), "gelu(" + std::to_string(x[i]) + ")");
    }
  }
  for (size_t n = 1; n <= 70; ++n) {
    std::vector<float> x = Random(n, 40.f, rng), y(n);
    SigmoidArray(x.data(), y.data(), int64_t(n));
    for (size_t i = 0; i < n; ++i) {
      double ref = 1 / (1 + std::exp(-double(x[i])));
      Check(std::fabs(y[i] - ref) <= 1e-6 * ref + 1e-30, "sigmoid(" + std::to_string(x[i]) + ") = " + std::to_string(y[i]));
    }
  }
  for (size_t n = 1; n <= 70; ++n) {
    for (float scale : {0.7f, 12.f}) {
      std::vector<float> x = Random(n, scale, rng), y(n);
      TanhArray(x.data(), y.data(), int64_t(n));
      for (size_t i = 0; i < n; ++i) {
        double ref = std::tanh(double(x[i]));
        Check(std::fabs(y[i] - ref) <= 1e-6 * std::fabs(ref) + 1e-30, "tanh(" + std::to_string(x[i]) + ") = " + std::to_string(y[i]));
      }
    }
  }
  float tiny[2] = {1e-20f, -3e-6f}, tiny_out[2];
  TanhArray(tiny, tiny_out, 2);
  Check(tiny_out[0] == 1e-20f && std::fabs(tiny_out[1] + 3e-6f) <= 1e-12f, "tanh keeps tiny inputs' precision");
  float special[3] = {std::numeric_limits<float>::quiet_NaN(), 0.f, -0.f}, out[3];
  TanhArray(special, out, 3);
  Check(std::isnan(out[0]) && out[1] == 0.f && out[2] == 0.f, "tanh passes NaN and keeps zeros");
  SigmoidArray(special, out, 3);
  Check(std::isnan(out[0]) && out[1] == 0.5f && out[2] == 0.5f, "sigmoid passes NaN and maps zeros to one half");
  ErfArray(special, out, 3);
  Check(std::isnan(out[0]) && out[1] == 0.f && out[2] == 0.f, "erf passes NaN and keeps zeros");
  // In place.
  std::vector<float> x = Random(19, 2.f, rng), copy = x;
  ErfArray(x.data(), x.data(), 19);
  for (size_t i = 0; i < x.size(); ++i) Check(std::fabs(x[i] - std::erf(double(copy[i]))) <= 1e-6, "erf in place");
}

void Softmax(std::mt19937& rng) {
  for (size_t n = 1; n <= 70; ++n) {
    for (bool with_bias : {false, true}) {
      std::vector<float> x = Random(n, 30.f, rng), bias = Random(n, 5.f, rng), y(n);
      const float scale = 0.37f;
      SoftmaxRow(x.data(), with_bias ? bias.data() : nullptr, scale, y.data(), int64_t(n));
      double mx = -INFINITY, sum = 0;
      std::vector<double> v(n);
      // The logits rounded to float as the kernel forms them; the check is then on exp and the sum.
      for (size_t i = 0; i < n; ++i) mx = std::fmax(mx, v[i] = double(x[i] * scale + (with_bias ? bias[i] : 0.f)));
      for (size_t i = 0; i < n; ++i) sum += std::exp(v[i] - mx);
      for (size_t i = 0; i < n; ++i) {
        double ref = std::exp(v[i] - mx) / sum;
        Check(std::fabs(y[i] - ref) <= 2e-6 * std::fmax(ref, 1e-3), "softmax n=" + std::to_string(n) + " i=" + std::to_string(i));
      }
    }
  }
  std::vector<float> x = {1.f, std::numeric_limits<float>::quiet_NaN(), 2.f}, y(3);
  SoftmaxRow(x.data(), nullptr, 1.f, y.data(), 3);
  Check(std::isnan(y[0]) && std::isnan(y[1]) && std::isnan(y[2]), "a NaN makes the whole softmax row NaN");
  std::vector<float> masked = {0.f, -10000.f, 3.f, -INFINITY}, out(4);
  SoftmaxRow(masked.data(), nullptr, 1.f, out.data(), 4);
  Check(out[1] == 0.f && out[3] == 0.f && std::fabs(out[0] + out[2] - 1.f) < 1e-6f, "masked logits get 0");
}

void LayerNorm(std::mt19937& rng) {
  for (size_t n = 1; n <= 70; ++n) {
    for (bool with_beta : {false, true}) {
      std::vector<float> x = Random(n, 3.f, rng), gamma = Random(n, 1.f, rng), beta = Random(n, 1.f, rng), y(n);
      for (auto& v : x) v += 100.f;  // a large mean: the variance must still be accurate
      float mean = 0, inv = 0;
      LayerNormRow(x.data(), gamma.data(), with_beta ? beta.data() : nullptr, 1e-5f, y.data(), int64_t(n), &mean, &inv);
      double m = 0, var = 0;
      for (float v : x) m += v;
      m /= double(n);
      for (float v : x) var += (v - m) * (v - m);
      var /= double(n);
      double rinv = 1 / std::sqrt(var + 1e-5);
      Check(std::fabs(mean - m) <= 1e-5 * std::fabs(m), "layernorm mean");
      Check(std::fabs(inv - rinv) <= 1e-4 * rinv, "layernorm inverse std");
      for (size_t i = 0; i < n; ++i) {
        double ref = (x[i] - m) * rinv * gamma[i] + (with_beta ? beta[i] : 0.f);
        Check(std::fabs(y[i] - ref) <= 1e-3 * std::fmax(1.0, std::fabs(ref)), "layernorm n=" + std::to_string(n) + " i=" + std::to_string(i));
      }
    }
  }
}

}  // namespace

int main() {
  if (!IsaError().empty()) {
    std::printf("vector math: skipped (%s)\n", IsaError().c_str());
    return 0;
  }
  cpu_test::print_limit = 20;  // a wrong kernel fails thousands of elements
  std::mt19937 rng(42);
  ErfAndGelu(rng);
  Softmax(rng);
  LayerNorm(rng);
  const char* path = IsaName(ActiveIsa());
  if (failures) {
    std::fprintf(stderr, "%d check(s) failed on the %s path\n", failures, path);
    return 1;
  }
  std::printf("vector math (%s path): all checks passed\n", path);
  return 0;
}
