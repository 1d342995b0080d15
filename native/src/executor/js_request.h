// The in-process front end: the arguments of the JS `infer` binding (ModelCore::Infer) decoded
// into a DecodedRequest, as every other front end decodes its wire. Like the others it only
// decodes; Normalize checks. Byte views point into the caller's Uint8Arrays, which the facade
// keeps referenced until the answer arrives.
#pragma once

#include <napi.h>

#include "executor/decoded_request.h"

namespace gebe {

// The arguments from `info[first]` on: (names[], datatypes[], shapes[], datas[], outputs[] | null,
// priority?, timeoutUs?). Throws a TypeError when they are not of those types (a facade bug, not
// a client's).
DecodedRequest DecodeJsRequest(const Napi::CallbackInfo& info, size_t first);

// A JS value as a request parameter: an integer number becomes kInt64 (kDouble past 2^53 or
// when fractional), so that Normalize judges the value as the client wrote it.
ParameterValue ParameterFromJs(const Napi::Value& value);

}  // namespace gebe
