// What the sequence batcher is told at load (from config.pbtxt's sequence_batching, read by the
// TS facade and checked there): the candidate slots, the idle timeout, the control inputs it fills
// and the implicit states it carries from one step of a sequence to the next.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "engine/engine.h"

namespace gebe {

enum class ControlKind { kStart, kEnd, kReady, kCorrId };

// One control input the batcher fills (Triton's control_input { name control { kind ... } }).
struct SequenceControl {
  std::string name;
  ControlKind kind = ControlKind::kStart;
  DataType dtype = DataType::kInt32;  // FP32/INT32/BOOL for flags; the CORRID's data_type
  double false_value = 0;             // flags only
  double true_value = 1;
  size_t engine_index = 0;            // filled by the batcher from the engine's inputs
};

// One implicit state: the engine output `output_name` of a step becomes input `input_name` of the
// sequence's next step; `initial` (or zeros) at START.
struct SequenceState {
  std::string input_name;
  std::string output_name;
  DataType dtype = DataType::kFloat32;
  std::vector<int64_t> dims;   // without the batch dimension; fixed (the facade refuses -1)
  std::vector<uint8_t> initial;  // empty: zeros
  size_t engine_input = 0;
  size_t engine_output = 0;
  size_t byte_size = 0;        // of one sequence's state
};

struct SequenceConfig {
  bool enabled = false;
  bool oldest = false;               // strategy: oldest, else direct
  int64_t slots_per_instance = 1;    // direct: max_batch_size; oldest: max_candidate_sequences
  uint64_t max_idle_us = 1000000;    // max_sequence_idle_microseconds (Triton's default 1 s)
  std::vector<SequenceControl> controls;
  std::vector<SequenceState> states;
};

}  // namespace gebe
