// The JS side of the classification extension's labels: an output's labels live natively, made
// once at load from the label file's lines (exports.classification.labels, classification_js.cc),
// and the same copy reaches the JS path's classify and, through publication, the native routes.
#pragma once

#include <napi.h>

#include <memory>

#include "executor/classification.h"

namespace gebe {

// The labels behind a handle from exports.classification.labels(); null when `value` is not one.
std::shared_ptr<const ClassLabels> ClassLabelsOf(Napi::Value value);

}  // namespace gebe
