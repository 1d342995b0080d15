// A plain C++ driver for the cpu engine, built with AddressSanitizer + UndefinedBehaviorSanitizer
// by `npm run test:native:asan` (run-asan.sh). It goes through the engine registry exactly as the
// scheduler does, and exercises: the MNIST fixture at several batch sizes and thread counts, the
// small-plane convolution fixture, every bad-model fixture, torch's opset-23 Llama block, the
// model fuzzer's findings, truncated copies of a real model, and every ONNX node test the engine
// loads (Debian's libonnx-testdata when installed, and fixtures/onnx-node). Numeric agreement is
// checked by the vitest suites; here the point is that nothing reads or writes out of bounds,
// leaks or hits undefined behaviour.
#include <dirent.h>
#include <sys/stat.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <random>
#include <string>
#include <vector>

#include "cpu/onnx_reader.h"
#include "engine/engine_registry.h"

#include "check.h"
#include "run_on_values.h"

using namespace gebe;

namespace {

std::unique_ptr<Session> Load(const std::string& path, int threads, size_t cap = size_t(4) << 30) {
  const EngineEntry* engine = FindEngineForPath(path);
  if (!engine) throw std::runtime_error("no engine registered for " + path);
  SessionOptions options;
  options.intra_op_threads = threads;
  options.max_tensor_bytes = cap;
  options.parameters["allow_non_finite_inputs"] = "true";
  return engine->load(path, options);
}

std::vector<std::string> ListDir(const std::string& dir) {
  std::vector<std::string> names;
  if (DIR* d = opendir(dir.c_str())) {
    while (dirent* e = readdir(d)) {
      std::string n = e->d_name;
      if (n != "." && n != "..") names.push_back(n);
    }
    closedir(d);
  }
  std::sort(names.begin(), names.end());
  return names;
}

bool Exists(const std::string& path) {
  struct stat st;
  return stat(path.c_str(), &st) == 0;
}

void RunMnist(const std::string& root) {
  std::string model = root + "/fixtures/models/mnist-cnn.onnx";
  for (int threads : {1, 3}) {
    auto session = Load(model, threads);
    std::mt19937 rng(7);
    std::uniform_real_distribution<float> dist(-1.f, 1.f);
    for (int64_t batch : {1, 5, 16}) {
      std::vector<float> data(size_t(batch * 784));
      for (auto& v : data) v = dist(rng);
      TensorView in{"input", DataType::kFloat32, {batch, 1, 28, 28}, data.data(), data.size() * 4};
      std::vector<Tensor> out;
      session->run({in}, out);
      Check(out.size() == 1 && out[0].shape == std::vector<int64_t>{batch, 10}, "mnist output shape");
      const float* p = static_cast<const float*>(out[0].buffer.data());
      for (int64_t b = 0; b < batch; ++b) {
        float sum = 0;
        for (int k = 0; k < 10; ++k) sum += p[b * 10 + k];
        Check(std::fabs(sum - 1.f) < 1e-4f, "mnist softmax row sums to 1");
      }
    }
    CompileReport again = session->compile({{"input", {5, 1, 28, 28}}});
    Check(again.cached, "plan for batch 5 is cached");
    // Wrong inputs must throw, not crash.
    std::vector<float> small(10);
    std::vector<Tensor> out;
    for (const TensorView& bad : {TensorView{"input", DataType::kFloat32, {1, 1, 28, 28}, small.data(), small.size() * 4},
                                  TensorView{"input", DataType::kInt32, {1, 1, 28, 28}, small.data(), 784 * 4},
                                  TensorView{"nope", DataType::kFloat32, {1, 1, 28, 28}, small.data(), 784 * 4}}) {
      bool threw = false;
      try {
        session->run({bad}, out);
      } catch (const EngineError&) {
        threw = true;
      }
      Check(threw, "bad input throws EngineError");
    }
  }
}

// torch's opset-23 Llama block (fixtures/models/torch/llama_mini_opset23.onnx: RMSNormalization,
// RotaryEmbedding at given positions, grouped-query causal Attention) at 1 and 2 threads: finite
// outputs, the same at both; a position past the rotary tables and one below 0 throw.
void RunLlamaOpset23(const std::string& root) {
  const std::string model = root + "/fixtures/models/torch/llama_mini_opset23.onnx";
  std::vector<int64_t> ids(32), pos(32);
  for (int64_t i = 0; i < 32; ++i) {
    ids[size_t(i)] = (i * 37) % 100;
    pos[size_t(i)] = i % 16 + (i < 16 ? 0 : 5);
  }
  std::vector<float> first;
  for (int threads : {1, 2}) {
    auto session = Load(model, threads);
    std::vector<Tensor> out;
    session->run({TensorView{"ids", DataType::kInt64, {2, 16}, ids.data(), ids.size() * 8},
                  TensorView{"pos", DataType::kInt64, {2, 16}, pos.data(), pos.size() * 8}}, out);
    Check(out.size() == 1 && out[0].shape == std::vector<int64_t>{2, 16, 64}, "llama output shape");
    const float* p = static_cast<const float*>(out[0].buffer.data());
    if (first.empty()) first.assign(p, p + 2 * 16 * 64);
    for (size_t i = 0; i < first.size(); ++i) {
      Check(std::isfinite(p[i]) && std::fabs(p[i] - first[i]) < 1e-4f, "llama outputs finite and the same at 1 and 2 threads");
    }
    for (int64_t bad : {64, -1}) {
      std::vector<int64_t> far = pos;
      far[7] = bad;
      bool threw = false;
      try {
        session->run({TensorView{"ids", DataType::kInt64, {2, 16}, ids.data(), ids.size() * 8},
                      TensorView{"pos", DataType::kInt64, {2, 16}, far.data(), far.size() * 8}}, out);
      } catch (const EngineError&) {
        threw = true;
      }
      Check(threw, "a position outside the rotary tables throws EngineError");
    }
  }
}

// A model run image by image at several batch sizes and thread counts: the same image repeated
// through the batch must give finite outputs, inside [lo, hi], and the same values whatever the
// batch and the threads around it.
struct BatchCheck {
  const char* name;              // the fixture in fixtures/models/, and the checks' wording
  std::vector<int64_t> image;    // the input's shape without the batch
  std::vector<int64_t> output;   // the output's shape without the batch
  std::vector<int> threads;
  unsigned seed;
  float lo = -INFINITY, hi = INFINITY;
};

void RunBatchIndependent(const std::string& root, const BatchCheck& c) {
  const std::string what = c.name;
  const int64_t in_count = ElementCount(c.image), out_count = ElementCount(c.output);
  std::vector<float> first;
  for (int threads : c.threads) {
    auto session = Load(root + "/fixtures/models/" + what + ".onnx", threads);
    std::mt19937 rng(c.seed);
    std::uniform_real_distribution<float> dist(-1.f, 1.f);
    std::vector<float> pixels(static_cast<size_t>(in_count));
    for (auto& v : pixels) v = dist(rng);
    for (int64_t batch : {1, 3, 4}) {
      std::vector<float> data;
      for (int64_t b = 0; b < batch; ++b) data.insert(data.end(), pixels.begin(), pixels.end());
      std::vector<int64_t> in_shape = {batch}, out_shape = {batch};
      in_shape.insert(in_shape.end(), c.image.begin(), c.image.end());
      out_shape.insert(out_shape.end(), c.output.begin(), c.output.end());
      TensorView in{"input", DataType::kFloat32, in_shape, data.data(), data.size() * 4};
      std::vector<Tensor> out;
      session->run({in}, out);
      Check(out.size() == 1 && out[0].shape == out_shape, what + " output shape");
      const float* p = static_cast<const float*>(out[0].buffer.data());
      if (first.empty()) first.assign(p, p + out_count);
      for (int64_t i = 0; i < batch * out_count; ++i) {
        Check(std::isfinite(p[i]) && p[i] >= c.lo && p[i] <= c.hi, what + " output finite and in range");
        Check(std::fabs(p[i] - first[size_t(i % out_count)]) < 1e-4f, what + " image independent of batch and threads");
      }
    }
  }
}

// Three 3×3 convs on 14×14 and 7×7 planes (the transposed small-plane path, its channels-last
// copy and lazily packed weights), ending in Clip's [0, 6].
void RunSmallPlaneConvs(const std::string& root) {
  RunBatchIndependent(root, {"small-plane-convs", {40, 14, 14}, {36, 7, 7}, {1, 2, 3}, 11, 0.f, 6.f});
}

// A ResNet-style block (fixtures/generate.ts, residualBlockOnnx): the residual added in a Conv's
// epilogue (image by image at batch 4 on 2 threads), and a broadcast residual through the Add's kernel.
void RunResidualBlock(const std::string& root) {
  RunBatchIndependent(root, {"residual-block", {32, 12, 12}, {16, 6, 6}, {1, 2}, 12});
}

void RunBadModels(const std::string& root) {
  std::string dir = root + "/fixtures/models/bad";
  for (const std::string& name : ListDir(dir)) {
    bool threw = false;
    try {
      auto session = Load(dir + "/" + name, 1, size_t(1) << 20);
      session->compile({});
    } catch (const EngineError&) {
      threw = true;
    }
    if (name == "huge-intermediate.onnx") {
      // Loads fine; the cap bites at run time.
      auto session = Load(dir + "/" + name, 1, size_t(1) << 20);
      int64_t shape[2] = {4096, 4096};
      std::vector<Tensor> out;
      threw = false;
      try {
        session->run({TensorView{"shape", DataType::kInt64, {2}, shape, sizeof shape}}, out);
      } catch (const EngineError&) {
        threw = true;
      }
    }
    Check(threw, "bad model " + name + " is refused");
  }
  // Truncations of a real model at many cut points.
  std::ifstream in(root + "/fixtures/models/mnist-cnn.onnx", std::ios::binary);
  std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  std::string tmp = "/tmp/gebe-asan-truncated.onnx";
  for (size_t cut = 1; cut < bytes.size(); cut += 997) {
    std::ofstream(tmp, std::ios::binary).write(bytes.data(), std::streamsize(cut));
    bool threw = false;
    try {
      Load(tmp, 1);
    } catch (const EngineError&) {
      threw = true;
    }
    Check(threw, "truncated model at " + std::to_string(cut) + " is refused");
  }
  std::remove(tmp.c_str());
}

// Models the model fuzzer (native/test/fuzz) found crashing or undefined, kept once fixed: each
// must load and run on zeros and on edge values, or be refused with an EngineError.
void RunFuzzFindings(const std::string& root) {
  std::string dir = root + "/fixtures/models/fuzz";
  int replayed = 0;
  for (const std::string& name : ListDir(dir)) {
    try {
      auto session = Load(dir + "/" + name, 1, size_t(64) << 20);
      gebe_test::RunOnZerosAndEdges(*session);
    } catch (const EngineError&) {
    }
    ++replayed;
  }
  Check(replayed > 0, "fuzz findings replayed");
}

// Each conformance model runs its data sets, then on its declared shapes filled with zeros and
// with edge values (run_on_values.h): what a client's values could do to the same operators.
void RunConformance(const std::string& node_dir) {
  int loaded = 0, ran = 0, threw = 0, edges_ran = 0, edges_threw = 0;
  for (const std::string& test : ListDir(node_dir)) {
    std::string dir = node_dir + "/" + test;
    std::unique_ptr<Session> session;
    try {
      session = Load(dir + "/model.onnx", 2);
    } catch (const EngineError&) {
      continue;
    }
    ++loaded;
    for (const std::string& set : ListDir(dir)) {
      if (set.rfind("test_data_set_", 0) != 0) continue;
      std::vector<cpu::ConstTensor> tensors;
      std::vector<TensorView> views;
      bool usable = true;
      for (size_t i = 0; Exists(dir + "/" + set + "/input_" + std::to_string(i) + ".pb"); ++i) {
        if (i >= session->inputs().size()) { usable = false; break; }
        tensors.push_back(cpu::ReadTensorProtoFile(dir + "/" + set + "/input_" + std::to_string(i) + ".pb", nullptr));
        const auto& t = tensors.back();
        views.push_back({session->inputs()[i].name, t.dtype, t.shape, t.storage ? t.storage->data() : nullptr,
                         t.storage ? t.storage->size() : 0});
      }
      if (!usable) continue;
      std::vector<Tensor> out;
      try {
        session->run(views, out);
        ++ran;
      } catch (const EngineError&) {
        ++threw;
      }
    }
    const int refused = gebe_test::RunOnZerosAndEdges(*session);
    edges_threw += refused;
    edges_ran += int(gebe_test::kEdgeRotations + 1) - refused;
  }
  std::printf("conformance under sanitizers: %d models loaded, %d data sets ran, %d refused with an error; "
              "on zeros and edge values %d runs completed, %d refused\n", loaded, ran, threw, edges_ran, edges_threw);
  Check(ran > 0, "some conformance data sets ran");
}

}  // namespace

int main(int argc, char** argv) {
  std::string root = argc > 1 ? argv[1] : ".";
  try {
    RunMnist(root);
    RunSmallPlaneConvs(root);
    RunResidualBlock(root);
    RunLlamaOpset23(root);
    RunBadModels(root);
    RunFuzzFindings(root);
    std::string node_dir = "/usr/share/libonnx-testdata/data/node";
    if (Exists(node_dir)) RunConformance(node_dir);
    else std::printf("libonnx-testdata not installed; conformance models skipped\n");
    // ONNX 1.23's node tests of the operators opsets 18-24 added (scripts/make-onnx-node-fixtures.py).
    RunConformance(root + "/fixtures/onnx-node");
  } catch (const std::exception& e) {
    std::fprintf(stderr, "FAIL: unexpected exception: %s\n", e.what());
    return 1;
  }
  if (failures) {
    std::fprintf(stderr, "%d check(s) failed\n", failures);
    return 1;
  }
  std::printf("engine driver: all checks passed under sanitizers\n");
  return 0;
}
