// JS conversions of the latency summaries (scheduler/latency_summary.h), shared by the native
// models' latencySummaries() and the LatencySummary class that JS-run models observe into.
#pragma once

#include <napi.h>

#include <vector>

#include "scheduler/latency_summary.h"

namespace gebe {

// [q, ...] with every q in [0, 1]; throws a TypeError naming `what` otherwise.
std::vector<double> QuantilesFromJs(const Napi::Value& value, const char* what);
// {count, sumUs, quantilesUs: number[]}.
Napi::Object SummaryReadingToJs(Napi::Env env, const LatencySummary::Reading& reading);

}  // namespace gebe
