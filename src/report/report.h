// Report writers (JSON, CSV, Markdown summary, JUnit, streaming JSONL) and the results loader.
#pragma once

#include <cstdio>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>

#include "core/result.h"

namespace fa2b {

// A case's shape parameters (B, H, H_kv, T_q, T_k, D, dtype, causal, layout, mode).
nlohmann::json params_json(const Case& c);
nlohmann::json to_json(const CaseResult& r);
nlohmann::json to_json(const Verdict& v);
nlohmann::json to_json(const ResultSet& rs);
CaseResult case_result_from_json(const nlohmann::json& j);  // throws ResultsFileError
ResultSet result_set_from_json(const nlohmann::json& j);    // throws ResultsFileError

// A results file that cannot be used: message names the file and the place.
class ResultsFileError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

ResultSet load_results(const std::string& path);

// Final files are written to "<path>.tmp" and renamed, so a crash never leaves half a file.
void write_results_json(const ResultSet& rs, const std::string& path);
void write_results_csv(const ResultSet& rs, const std::string& path);
// Per shape: each backend's time, TFLOP/s and peak, with speedup and memory reduction
// against `baseline` (a role or backend name), as the seed article's tables show them.
void write_summary_md(const ResultSet& rs, const std::string& path,
                      const std::string& baseline = "naive");
void write_junit(const ResultSet& rs, const std::string& path);
// Escapes text for XML attributes and character data (control characters become "\xNN").
std::string xml_escape(const std::string& s);
// A markdown table cell: pipes escaped, line breaks flattened to spaces.
std::string md_cell(const std::string& s);
// A CSV field (RFC 4180): quoted when it holds a comma, quote or line break, quotes doubled.
std::string csv_field(const std::string& s);
// A CSV number: empty for NaN, "inf"/"-inf" for infinities, else the shortest exact form.
std::string csv_number(double v);

// The text each writer above puts in its file (for stdout output and tests).
std::string results_json_text(const ResultSet& rs);  // pretty-printed, ends with a newline
std::string results_csv_text(const ResultSet& rs);
std::string summary_md_text(const ResultSet& rs, const std::string& baseline = "naive");
std::string junit_text(const ResultSet& rs);

// Writes `text` to "<path>.tmp", then renames it to `path`; throws std::runtime_error naming
// the file and the OS error (the temporary is removed when anything fails).
void write_text_file_atomic(const std::string& path, const std::string& text);

// Appends one case as one line and flushes, so an interrupted sweep keeps what it finished.
class JsonlWriter {
 public:
  explicit JsonlWriter(const std::string& path);
  ~JsonlWriter();
  JsonlWriter(const JsonlWriter&) = delete;
  JsonlWriter& operator=(const JsonlWriter&) = delete;
  void append(const CaseResult& r);

 private:
  std::string path_;
  std::FILE* f_ = nullptr;
};

}  // namespace fa2b
