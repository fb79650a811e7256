// SPDX-License-Identifier: Apache-2.0
#include "runner/worker_protocol.h"

#include <stdexcept>

#include "io/json_input.h"
#include "io/results_json.h"

namespace fa2b {

std::string request_line(const WorkerRequest& request) {
  CaseResult skeleton;
  skeleton.c = request.c;
  // Keys in this order ("case" first) keep the line easy for a test's fake worker to rewrite.
  const nlohmann::json j = {{"case", to_json(skeleton)}, {"dump", request.dump}};
  return j.dump() + "\n";
}

std::string response_line(const WorkerResponse& response) {
  nlohmann::json j = {{"result", to_json(response.result)}};
  if (!response.poisoned.empty()) j["poisoned"] = response.poisoned;
  return j.dump() + "\n";
}

namespace {

nlohmann::json parse_object(const std::string& line, const char* key) {
  const nlohmann::json j = parse_json_input(line, "worker message");
  if (!j.is_object() || !j.contains(key) || !j[key].is_object())
    throw std::runtime_error(std::string("worker message without an object \"") + key + "\"");
  return j;
}

}  // namespace

WorkerRequest parse_request(const std::string& line) {
  const nlohmann::json j = parse_object(line, "case");
  WorkerRequest r;
  r.c = case_result_from_json(j["case"]).c;
  r.dump = j.value("dump", false);
  return r;
}

WorkerResponse parse_response(const std::string& line) {
  const nlohmann::json j = parse_object(line, "result");
  WorkerResponse r;
  r.result = case_result_from_json(j["result"]);
  if (j.contains("poisoned") && j["poisoned"].is_string()) r.poisoned = j["poisoned"];
  return r;
}

}  // namespace fa2b
