// Fills the inputs the sequence batcher owns in one request: the control tensors
// (START/END/READY flags as the config's false/true values, CORRID as the request's id) and the
// implicit state inputs (the sequence's current state). The bytes live in the request
// (owned_inputs), so they stay valid until it is handed back.
#pragma once

#include <string>
#include <vector>

#include "scheduler/scheduled_request.h"
#include "scheduler/sequence_config.h"
#include "scheduler/sequence_id.h"

namespace gebe {

// The state bytes of one live sequence, one buffer per config state.
using SequenceStateBytes = std::vector<std::vector<uint8_t>>;

// The initial state of every config state (its initial_state data, or zeros).
SequenceStateBytes InitialStates(const SequenceConfig& config);

// Sets the control and state inputs of `request` (flags from request.sequence_flags).
// batched: the model has a batch dimension, so each tensor gets a leading 1.
// Returns an error message (the request cannot run: a string id for a numeric CORRID), or "".
std::string FillSequenceInputs(const SequenceConfig& config, bool batched, const SequenceId& id,
                               const SequenceStateBytes& state, ScheduledRequest& request);

}  // namespace gebe
