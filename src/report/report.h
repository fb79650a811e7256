// SPDX-License-Identifier: Apache-2.0
// Report writers for people and CI (CSV, Markdown summary, JUnit) and the text cells they share.
// results.json itself, its loader and the streaming JSONL are io (io/results_json.h,
// io/jsonl_writer.h): the runner writes and reads them too.
#pragma once

#include <string>
#include <vector>

#include "core/result.h"

namespace fa2b {

// Final files are written to "<path>.tmp" and renamed, so a crash never leaves half a file.
void write_results_csv(const ResultSet& rs, const std::string& path);
// One row per verdict: name, kind, verdict (pass, fail, error, deferred, skipped), measured,
// threshold, detail.
void write_checks_csv(const ResultSet& rs, const std::string& path);
// Per shape: each backend's time, TFLOP/s and peak, with speedup and memory reduction
// against `baseline` (a role or backend name), as the seed article's tables show them.
void write_summary_md(const ResultSet& rs, const std::string& path,
                      const std::string& baseline = "naive");
void write_junit(const ResultSet& rs, const std::string& path);
// Escapes text for XML attributes and character data (control characters become "\xNN").
std::string xml_escape(const std::string& s);
// Rows as columns for a terminal, two spaces apart, trailing blanks trimmed; column i is
// right-aligned where right[i] is true, else left-aligned. Widths count UTF-8 code points.
std::string aligned_columns(const std::vector<std::vector<std::string>>& rows,
                            const std::vector<bool>& right = {});
// A markdown table cell: pipes escaped, line breaks flattened to spaces.
std::string md_cell(const std::string& s);
// A CSV field (RFC 4180): quoted when it holds a comma, quote or line break, quotes doubled.
std::string csv_field(const std::string& s);
// A CSV number: empty for NaN, "inf"/"-inf" for infinities, else the shortest exact form.
std::string csv_number(double v);

// The text each writer above puts in its file (for stdout output and tests).
std::string results_csv_text(const ResultSet& rs);
std::string checks_csv_text(const ResultSet& rs);
std::string summary_md_text(const ResultSet& rs, const std::string& baseline = "naive");
std::string junit_text(const ResultSet& rs);

}  // namespace fa2b
