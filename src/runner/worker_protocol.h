// SPDX-License-Identifier: Apache-2.0
// What the sweep and its worker process (`fa2bench run-worker`) say to each other over their
// socket: one JSON line per request (a case to run) and one per response (its result). The case
// and the result use the results schema's case JSON (io/results_json.h), the same text a
// results.jsonl line holds, so nothing of a result is lost on the way.
#pragma once

#include <string>

#include "core/result.h"

namespace fa2b {

struct WorkerRequest {
  Case c;
  bool dump = false;  // write the case's tensors (--dump) to the worker's dump dir
};

struct WorkerResponse {
  CaseResult result;
  // Non-empty when the worker can run no further case (a sticky CUDA error poisoned its
  // context): the sweep replaces it before the next case.
  std::string poisoned;
};

// Each a single line, ending in '\n'.
std::string request_line(const WorkerRequest& request);
std::string response_line(const WorkerResponse& response);
// Throw std::runtime_error (or ResultsFileError) on a line that is not one.
WorkerRequest parse_request(const std::string& line);
WorkerResponse parse_response(const std::string& line);

}  // namespace fa2b
