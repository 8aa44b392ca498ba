// Names, `000` Table 4.1 ids and facts of the techniques; parsing.
#include "lb4mpi/techniques/technique.hpp"

#include <cctype>
#include <charconv>
#include <string>

namespace lb4mpi {

namespace {

using T = Technique;

// technique, name, legacy id, closed form, adaptive, batched, up front, equation
constexpr std::array<TechniqueInfo, kTechniqueCount> kInfo = {{
    {T::STATIC, "STATIC", 0, true, false, false, true, "001 Eq. 1"},
    {T::SS, "SS", 1, true, false, false, false, "001 Eq. 2"},
    {T::FSC, "FSC", 2, true, false, false, false, "001 Eq. 3 (to the power 2/3, as its Table 2)"},
    {T::mFSC, "mFSC", 3, true, false, false, false, "003 Appendix B"},
    {T::GSS, "GSS", 4, true, false, false, false, "001 Eq. 4 (recursive), Eq. 14 (closed)"},
    {T::TAP, "TAP", -1, true, false, false, false, "001 Eq. 5 (recursive), Eq. 16 (closed)"},
    {T::TSS, "TSS", 5, true, false, false, false, "001 Eq. 6 (recursive), Eq. 17 (closed)"},
    {T::FAC, "FAC", -1, true, false, true, false,
     "000 Eq. 2.2 (recursive); closed: batch recurrence replayed locally (no closed form in the "
     "papers)"},
    {T::FAC2, "FAC2", 7, true, false, true, false, "001 Eq. 7 (recursive), Eq. 15 (closed)"},
    {T::TFSS, "TFSS", -1, true, false, true, false, "001 Eq. 8 (recursive), Eq. 18 (closed)"},
    {T::FISS, "FISS", -1, true, false, true, false, "001 Eq. 9 (recursive), Eq. 19 (closed)"},
    {T::VISS, "VISS", -1, true, false, true, false, "001 Eq. 10 (recursive), Eq. 20 (closed)"},
    {T::WF, "WF", 8, false, false, true, false, "003 2.2.2.1 (FAC2 batches, fixed weights)"},
    {T::AWF, "AWF", 9, false, true, true, false, "003 2.2.2.2, Appendix B (weights per time step)"},
    {T::AWF_B, "AWF-B", 10, false, true, true, false,
     "003 2.2.2.2, Appendix B (weights per batch, work time)"},
    {T::AWF_C, "AWF-C", 11, false, true, false, false,
     "003 2.2.2.2, Appendix B (weights per chunk, work time)"},
    {T::AWF_D, "AWF-D", 12, false, true, true, false,
     "003 2.2.2.2, Appendix B (weights per batch, elapsed time)"},
    {T::AWF_E, "AWF-E", 13, false, true, false, false,
     "003 2.2.2.2, Appendix B (weights per chunk, elapsed time)"},
    {T::AF, "AF", 14, false, true, false, false, "001 Eq. 11"},
    {T::RND, "RND", -1, true, false, false, false, "001 Eq. 12"},
    {T::PLS, "PLS", -1, true, false, false, false, "001 Eq. 13 (recursive), Eq. 21 (closed)"},
}};

constexpr bool table_in_enum_order() {
  for (std::size_t i = 0; i < kInfo.size(); ++i) {
    if (static_cast<std::size_t>(kInfo[i].technique) != i) return false;
  }
  return true;
}
static_assert(table_in_enum_order(), "kInfo must follow the order of enum class Technique");

// Upper case, '_' read as '-', surrounding blanks dropped.
std::string normalize(std::string_view text) {
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.front())) != 0)
    text.remove_prefix(1);
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.back())) != 0)
    text.remove_suffix(1);
  std::string out;
  out.reserve(text.size());
  for (const char c : text) {
    out.push_back(c == '_' ? '-' : static_cast<char>(std::toupper(static_cast<unsigned char>(c))));
  }
  return out;
}

// The text as the error message quotes it: a NUL or another control byte
// would cut or garble the message, so those are written as \xHH.
std::string printable(std::string_view text) {
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out;
  for (const char c : text) {
    const auto u = static_cast<unsigned char>(c);
    if (u < 0x20 || u == 0x7f) {
      out += "\\x";
      out += kHex[u >> 4U];
      out += kHex[u & 0xfU];
    } else {
      out.push_back(c);
    }
  }
  return out;
}

std::string valid_ids() {
  std::string out;
  for (const auto& ti : kInfo) {
    if (ti.legacy_id < 0) continue;
    if (!out.empty()) out += ", ";
    out += std::to_string(ti.legacy_id) + " " + std::string(ti.name);
  }
  return out;
}

}  // namespace

const std::array<TechniqueInfo, kTechniqueCount>& all_techniques() { return kInfo; }

const TechniqueInfo& info(Technique t) {
  if (t == Technique::Auto) {
    throw Error("auto is not a chunk-size technique: a loop's front end picks one for each execution");
  }
  const auto index = static_cast<std::size_t>(t);
  if (index >= kInfo.size()) throw Error("unknown technique id " + std::to_string(index));
  return kInfo[index];
}

std::string_view name(Technique t) { return t == Technique::Auto ? std::string_view("auto") : info(t).name; }

Technique parse_technique(std::string_view text) {
  const std::string key = normalize(text);
  int id = -1;
  const auto [end, ec] = std::from_chars(key.data(), key.data() + key.size(), id);
  if (!key.empty() && ec == std::errc() && end == key.data() + key.size()) {
    for (const auto& ti : kInfo) {
      if (ti.legacy_id == id && id >= 0) return ti.technique;
    }
  } else {
    if (key == "WFAC") return Technique::WF;  // the name `000` Table 4.1 uses
    if (key == "AUTO") return Technique::Auto;
    for (const auto& ti : kInfo) {
      if (normalize(ti.name) == key) return ti.technique;
    }
  }
  throw Error("unknown scheduling technique '" + printable(text) +
              "'; valid names: " + valid_technique_names() +
              " (case-insensitive, '_' for '-', WF also as wFAC); valid ids (000 Table 4.1): " +
              valid_ids());
}

std::string valid_technique_names() {
  std::string out;
  for (const auto& ti : kInfo) {
    if (!out.empty()) out += ", ";
    out += ti.name;
  }
  return out + ", auto";
}

}  // namespace lb4mpi
