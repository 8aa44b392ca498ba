// The technique table, collected from the techniques' descriptors; names,
// `000` Table 4.1 ids and parsing.
#include "lb4mpi/techniques/technique.hpp"

#include <cctype>
#include <charconv>
#include <stdexcept>
#include <string>

#include "rules.hpp"

namespace lb4mpi {

namespace {

// Every technique's descriptor, in any order: the table is indexed by
// TechniqueInfo::technique.
const std::array<const detail::Descriptor*, kTechniqueCount> kDescriptors = {
    &detail::kStaticDescriptor, &detail::kSsDescriptor,   &detail::kFscDescriptor,
    &detail::kMfscDescriptor,   &detail::kGssDescriptor,  &detail::kTapDescriptor,
    &detail::kTssDescriptor,    &detail::kFacDescriptor,  &detail::kFac2Descriptor,
    &detail::kTfssDescriptor,   &detail::kFissDescriptor, &detail::kVissDescriptor,
    &detail::kWfDescriptor,     &detail::kAwfDescriptor,  &detail::kAwfBDescriptor,
    &detail::kAwfCDescriptor,   &detail::kAwfDDescriptor, &detail::kAwfEDescriptor,
    &detail::kAfDescriptor,     &detail::kRndDescriptor,  &detail::kPlsDescriptor,
};

// The descriptors in the order of enum class Technique, and their facts.
// Built on first use (the descriptors are constant-initialized, so any
// static initializer may ask); a technique missing or stated twice is a
// programming error caught by the first unit test.
struct Registry {
  std::array<const detail::Descriptor*, kTechniqueCount> by_technique{};
  std::array<TechniqueInfo, kTechniqueCount> infos{};
  Registry() {
    for (const detail::Descriptor* d : kDescriptors) {
      const auto index = static_cast<std::size_t>(d->info.technique);
      if (index >= kTechniqueCount || by_technique[index] != nullptr) {
        throw std::logic_error("technique descriptors: " + std::string(d->info.name) + " out of place");
      }
      by_technique[index] = d;
      infos[index] = d->info;
    }
  }
};

const Registry& registry() {
  static const Registry kRegistry;
  return kRegistry;
}

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
  for (const auto& ti : all_techniques()) {
    if (ti.legacy_id < 0) continue;
    if (!out.empty()) out += ", ";
    out += std::to_string(ti.legacy_id) + " " + std::string(ti.name);
  }
  return out;
}

}  // namespace

const std::array<TechniqueInfo, kTechniqueCount>& all_techniques() { return registry().infos; }

const detail::Descriptor& detail::descriptor(Technique t) {
  if (t == Technique::Auto) {
    throw Error("auto is not a chunk-size technique: a loop's front end picks one for each execution");
  }
  const auto index = static_cast<std::size_t>(t);
  if (index >= kTechniqueCount) throw Error("unknown technique id " + std::to_string(index));
  return *registry().by_technique[index];
}

const TechniqueInfo& info(Technique t) {
  (void)detail::descriptor(t);  // throws for Auto and ids outside the enum
  return registry().infos[static_cast<std::size_t>(t)];
}

std::string_view name(Technique t) { return t == Technique::Auto ? std::string_view("auto") : info(t).name; }

Technique parse_technique(std::string_view text) {
  const std::string key = normalize(text);
  int id = -1;
  const auto [end, ec] = std::from_chars(key.data(), key.data() + key.size(), id);
  if (!key.empty() && ec == std::errc() && end == key.data() + key.size()) {
    for (const auto& ti : all_techniques()) {
      if (ti.legacy_id == id && id >= 0) return ti.technique;
    }
  } else {
    if (key == "WFAC") return Technique::WF;  // the name `000` Table 4.1 uses
    if (key == "AUTO") return Technique::Auto;
    for (const auto& ti : all_techniques()) {
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
  for (const auto& ti : all_techniques()) {
    if (!out.empty()) out += ", ";
    out += ti.name;
  }
  return out + ", auto";
}

}  // namespace lb4mpi
