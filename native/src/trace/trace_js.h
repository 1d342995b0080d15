// A trace JS built, as a RequestTrace: what trace.finish() takes, and what the HTTP and gRPC
// bindings' answer() takes beside a JS answer, whose send the front end then times.
#pragma once

#include <napi.h>

#include <memory>

#include "trace/request_trace.h"

namespace gebe {

// {id, parentId, model, version, last, timestamps, protocol, ns: bigint[], tensors?: [...]}.
std::unique_ptr<RequestTrace> TraceFromJs(const Napi::Object& o);

// The same shape from a RequestTrace (what trace.take() lists, and what the executor hands JS
// with the answer of a request a native front end received, for the front end to time the send).
Napi::Object TraceToJs(Napi::Env env, const RequestTrace& t);

}  // namespace gebe
