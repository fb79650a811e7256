// SPDX-License-Identifier: Apache-2.0
// io/json_input: the one parser every JSON input goes through (nesting limit, numbers out of
// range, duplicate keys, echoes cut short).
#include <gtest/gtest.h>

#include <string>

#include "io/json_input.h"

namespace fa2b {
namespace {

using Kind = JsonInputError::Kind;

JsonInputError error_of(const std::string& text, const JsonParseOptions& options = {}) {
  try {
    parse_json_input(text, "in.json", options);
  } catch (const JsonInputError& e) {
    return e;
  }
  ADD_FAILURE() << "parsed without an error: " << text.substr(0, 80);
  return JsonInputError(Kind::syntax, "", 0, 0, "", "");
}

TEST(JsonInput, ParsesOrdinaryDocuments) {
  const auto j = parse_json_input(R"({"a": [1, 2.5, "x", null, true], "b": {"c": -3}})", "x");
  EXPECT_EQ(j["a"][1], 2.5);
  EXPECT_EQ(j["b"]["c"], -3);
}

TEST(JsonInput, NestingAtTheLimitParses) {
  const std::string text = std::string(kMaxJsonDepth, '[') + std::string(kMaxJsonDepth, ']');
  EXPECT_NO_THROW(parse_json_input(text, "x"));
}

TEST(JsonInput, NestingBeyondTheLimitIsRefusedWithItsPlace) {
  // 100 000 levels crashed dump()/copies with a stack overflow; now no DOM is ever built.
  const std::string text = "{\"a\":\n" + std::string(100000, '[') + std::string(100000, ']') + "}";
  const auto e = error_of(text);
  EXPECT_EQ(e.kind(), Kind::too_deep);
  EXPECT_EQ(e.line(), 2u);
  EXPECT_EQ(e.column(), kMaxJsonDepth);  // the bracket that opens level 513 (the object is 1)
  EXPECT_NE(std::string(e.what()).find("in.json: line 2"), std::string::npos) << e.what();
  EXPECT_NE(std::string(e.what()).find("nested deeper than 512"), std::string::npos);
}

TEST(JsonInput, BracketsInStringsAndCommentsDoNotCount) {
  const std::string deep(1000, '[');
  EXPECT_NO_THROW(parse_json_input("{\"s\": \"" + deep + "\\\"" + deep + "\"}", "x"));
  EXPECT_NO_THROW(parse_json_input("// " + deep + "\n/* " + deep + " */ [1]", "x", {true, false}));
}

TEST(JsonInput, NumberOutOfRangeNamesLineAndPointer) {
  const auto e = error_of("{\n  \"measure\": {\"seed\": 1, \"max_time_s\": 1e400}\n}");
  EXPECT_EQ(e.kind(), Kind::out_of_range);
  EXPECT_EQ(e.line(), 2u);
  EXPECT_EQ(e.column(), 40u);
  EXPECT_EQ(e.pointer(), "/measure/max_time_s");
  const std::string what = e.what();
  EXPECT_NE(what.find("in.json: line 2, column 40 (at /measure/max_time_s)"), std::string::npos)
      << what;
}

TEST(JsonInput, NumberOutOfRangeInAListNamesItsIndex) {
  const auto e = error_of(R"({"grid": {"T": [1, 2, -1e999]}})");
  EXPECT_EQ(e.kind(), Kind::out_of_range);
  EXPECT_EQ(e.pointer(), "/grid/T/2");
}

TEST(JsonInput, AHugeNumberLiteralIsNotEchoedWhole) {
  const std::string digits(1000000, '9');
  const auto e = error_of("[1" + digits + "e999]");
  EXPECT_EQ(e.kind(), Kind::out_of_range);
  EXPECT_LT(std::string(e.what()).size(), 600u);
  EXPECT_NE(std::string(e.what()).find("characters in all"), std::string::npos);
}

TEST(JsonInput, AHugeBadTokenIsNotEchoedWhole) {
  const auto e = error_of("[" + std::string(1000000, 'x') + "]");
  EXPECT_EQ(e.kind(), Kind::syntax);
  EXPECT_LT(std::string(e.what()).size(), 1200u);
}

TEST(JsonInput, SyntaxErrorsAndTruncationAreTold) {
  const auto bad = error_of("{\"a\": 1,,}");
  EXPECT_EQ(bad.kind(), Kind::syntax);
  EXPECT_EQ(bad.line(), 1u);
  EXPECT_EQ(bad.column(), 9u);
  EXPECT_EQ(error_of("{\"a\": [1, 2").kind(), Kind::truncated);
  EXPECT_EQ(error_of("{\"a\": \"abc").kind(), Kind::truncated);
}

TEST(JsonInput, DuplicateKeysOnlyWhenAsked) {
  EXPECT_NO_THROW(parse_json_input(R"({"a": 1, "a": 2})", "x"));
  const auto e = error_of(R"({"s": [{"a": 1, "b": 2, "a": 3}]})", {false, true});
  EXPECT_EQ(e.kind(), Kind::duplicate_key);
  ASSERT_EQ(e.duplicates.size(), 1u);
  EXPECT_NE(e.duplicates[0].find("/s/0/a: duplicate key \"a\""), std::string::npos)
      << e.duplicates[0];
}

TEST(JsonInput, CommentsOnlyWhenAllowed) {
  EXPECT_EQ(error_of("// x\n[1]").kind(), Kind::syntax);
  EXPECT_NO_THROW(parse_json_input("// x\n[1]", "x", {true, false}));
}

TEST(JsonInput, ClipEchoCutsAndSays) {
  EXPECT_EQ(clip_echo("short"), "short");
  const std::string cut = clip_echo(std::string(5000, 'a'));
  EXPECT_EQ(cut.substr(0, kMaxEchoChars), std::string(kMaxEchoChars, 'a'));
  EXPECT_NE(cut.find("(5000 characters in all)"), std::string::npos);
  EXPECT_LT(cut.size(), kMaxEchoChars + 40);
}

}  // namespace
}  // namespace fa2b
