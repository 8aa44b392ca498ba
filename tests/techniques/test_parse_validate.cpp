// Technique names, `000` Table 4.1 ids, and parameter validation.
#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <limits>
#include <string>

#include "helpers.hpp"

namespace lb4mpi::test {
namespace {

std::string lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

TEST(Parse, TableIsCompleteAndInEnumOrder) {
  ASSERT_EQ(all_techniques().size(), 21U);
  const std::vector<std::string> expected{
      "STATIC", "SS", "FSC", "mFSC",  "GSS",   "TAP",   "TSS",   "FAC", "FAC2", "TFSS", "FISS",
      "VISS",   "WF", "AWF", "AWF-B", "AWF-C", "AWF-D", "AWF-E", "AF",  "RND",  "PLS"};
  for (std::size_t i = 0; i < expected.size(); ++i) {
    EXPECT_EQ(all_techniques()[i].name, expected[i]);
    EXPECT_EQ(static_cast<std::size_t>(all_techniques()[i].technique), i);
    EXPECT_EQ(name(all_techniques()[i].technique), expected[i]);
    EXPECT_FALSE(all_techniques()[i].equation.empty());
  }
}

TEST(Parse, CanonicalLowerCaseAndUnderscoreNames) {
  for (const auto& ti : all_techniques()) {
    const std::string canonical(ti.name);
    EXPECT_EQ(parse_technique(canonical), ti.technique) << canonical;
    EXPECT_EQ(parse_technique(lower(canonical)), ti.technique) << canonical;
    std::string underscored = canonical;
    std::replace(underscored.begin(), underscored.end(), '-', '_');
    EXPECT_EQ(parse_technique(underscored), ti.technique) << underscored;
    EXPECT_EQ(parse_technique(lower(underscored)), ti.technique) << underscored;
  }
  EXPECT_EQ(parse_technique("awf_b"), Technique::AWF_B);
  EXPECT_EQ(parse_technique("Awf-e"), Technique::AWF_E);
  EXPECT_EQ(parse_technique("MFSC"), Technique::mFSC);
  EXPECT_EQ(parse_technique(" gss "), Technique::GSS);
}

TEST(Parse, LegacyIdsOfTable41) {
  const std::vector<std::pair<std::string, Technique>> ids{
      {"0", Technique::STATIC}, {"1", Technique::SS},     {"2", Technique::FSC},
      {"3", Technique::mFSC},   {"4", Technique::GSS},    {"5", Technique::TSS},
      {"7", Technique::FAC2},   {"8", Technique::WF},     {"9", Technique::AWF},
      {"10", Technique::AWF_B}, {"11", Technique::AWF_C}, {"12", Technique::AWF_D},
      {"13", Technique::AWF_E}, {"14", Technique::AF}};
  for (const auto& [text, t] : ids) {
    EXPECT_EQ(parse_technique(text), t) << text;
    EXPECT_EQ(std::to_string(info(t).legacy_id), text);
  }
  for (const Technique t : {Technique::TAP, Technique::FAC, Technique::TFSS, Technique::FISS,
                            Technique::VISS, Technique::RND, Technique::PLS}) {
    EXPECT_EQ(info(t).legacy_id, -1) << name(t);
  }
  // "FAC" is probabilistic factoring; id 7 is LB4MPI's FAC, i.e. FAC2.
  EXPECT_EQ(parse_technique("FAC"), Technique::FAC);
  EXPECT_EQ(parse_technique("wFAC"), Technique::WF);
  EXPECT_EQ(parse_technique("WFAC"), Technique::WF);
}

TEST(Parse, UnknownNamesListTheValidChoices) {
  for (const std::string bad : {"FOO", "", "6", "15", "-1", "AWF-F", "GSS2", "7x"}) {
    try {
      (void)parse_technique(bad);
      ADD_FAILURE() << "'" << bad << "' parsed";
    } catch (const Error& e) {
      const std::string msg = e.what();
      EXPECT_NE(msg.find("'" + bad + "'"), std::string::npos) << msg;
      for (const auto& ti : all_techniques())
        EXPECT_NE(msg.find(std::string(ti.name)), std::string::npos) << msg;
      EXPECT_NE(msg.find("7 FAC2"), std::string::npos) << msg;
      EXPECT_NE(msg.find("14 AF"), std::string::npos) << msg;
    }
  }
  EXPECT_EQ(valid_technique_names().substr(0, 16), "STATIC, SS, FSC,");
}

TEST(Parse, Facts) {
  for (const auto& ti : all_techniques()) {
    const bool closed_expected = !(ti.technique == Technique::WF || ti.technique == Technique::AF ||
                                   (ti.name.substr(0, 3) == "AWF"));
    EXPECT_EQ(ti.has_closed_form, closed_expected) << ti.name;
    const bool adaptive_expected = ti.technique == Technique::AF || ti.name.substr(0, 3) == "AWF";
    EXPECT_EQ(ti.adaptive, adaptive_expected) << ti.name;
  }
  EXPECT_TRUE(info(Technique::FAC2).batched);
  EXPECT_FALSE(info(Technique::GSS).batched);
}

// ---- validation -----------------------------------------------------------------

void expect_error(Technique t, Index n, int p, const TechniqueParams& params,
                  const std::string& fragment) {
  try {
    params.validate(t, n, p);
    ADD_FAILURE() << "accepted: " << fragment;
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find(fragment), std::string::npos) << e.what();
  }
  EXPECT_THROW(ChunkCalculator(t, {n, p}, params), Error);
}

TEST(Validate, DefaultsAreValidForEveryTechnique) {
  for (const auto& ti : all_techniques()) {
    EXPECT_NO_THROW(TechniqueParams{}.validate(ti.technique, 1000, 4)) << ti.name;
    EXPECT_NO_THROW(TechniqueParams{}.validate(ti.technique, 0, 1)) << ti.name;
  }
}

TEST(Validate, LoopShapeAndChunkBounds) {
  const TechniqueParams ok;
  expect_error(Technique::GSS, -1, 4, ok, "N must be >= 0, got -1");
  expect_error(Technique::GSS, (Index{1} << 62) + 1, 4, ok, "<= 2^62");
  expect_error(Technique::GSS, 100, 0, ok, "P must be >= 1, got 0");
  TechniqueParams bad = ok;
  bad.min_chunk = 0;
  expect_error(Technique::SS, 100, 4, bad, "min_chunk must be >= 1, got 0");
  bad = ok;
  bad.min_chunk = 10;
  bad.max_chunk = 5;
  expect_error(Technique::SS, 100, 4, bad,
               "max_chunk must be 0 (no maximum) or >= min_chunk = 10, got 5");
  bad.max_chunk = -1;
  expect_error(Technique::SS, 100, 4, bad, "got -1");
}

TEST(Validate, TechniqueParameters) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  TechniqueParams p;
  p.h = 0.0;
  expect_error(Technique::FSC, 100, 4, p, "FSC needs h (scheduling overhead) > 0, got 0");
  p = {};
  p.sigma = 0.0;
  expect_error(Technique::FSC, 100, 4, p, "FSC needs sigma > 0, got 0");
  p = {};
  p.mu = 0.0;
  expect_error(Technique::TAP, 100, 4, p, "TAP needs mu > 0, got 0");
  expect_error(Technique::FAC, 100, 4, p, "FAC needs mu > 0, got 0");
  p = {};
  p.sigma = -1.0;
  expect_error(Technique::TAP, 100, 4, p, "TAP needs sigma >= 0, got -1");
  expect_error(Technique::FAC, 100, 4, p, "FAC needs sigma >= 0, got -1");
  p = {};
  p.alpha = nan;
  expect_error(Technique::TAP, 100, 4, p, "TAP needs alpha >= 0, got nan");
  p = {};
  p.fiss_batches = 1;
  expect_error(Technique::FISS, 100, 4, p, "FISS needs fiss_batches >= 2, got 1");
  p = {};
  p.viss_x = 0.0;
  expect_error(Technique::VISS, 100, 4, p, "VISS needs viss_x > 0, got 0");
  p = {};
  p.pls_swr = 1.5;
  expect_error(Technique::PLS, 100, 4, p, "PLS needs pls_swr in [0, 1], got 1.5");
  p.pls_swr = nan;
  expect_error(Technique::PLS, 100, 4, p, "PLS needs pls_swr in [0, 1]");
  p = {};
  p.weights = {1.0, 2.0, 1.0};
  expect_error(Technique::WF, 100, 4, p, "WF needs 4 weights (one per rank), got 3");
  expect_error(Technique::AWF, 100, 4, p, "AWF needs 4 weights (one per rank), got 3");
  p.weights = {1.0, 0.0, 1.0, 1.0};
  expect_error(Technique::WF, 100, 4, p, "WF needs positive finite weights, got 0 for rank 1");
  p.weights = {1.0, 1.0, std::numeric_limits<double>::infinity(), 1.0};
  expect_error(Technique::WF, 100, 4, p, "for rank 2");
}

TEST(Validate, OnlyTheParametersATechniqueUsesAreChecked) {
  TechniqueParams p;
  p.h = -1.0;
  p.fiss_batches = 0;
  p.weights = {1.0};
  EXPECT_NO_THROW(p.validate(Technique::GSS, 100, 4));
}

}  // namespace
}  // namespace lb4mpi::test
