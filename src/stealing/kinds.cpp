// Names and parsing of the owned loops' choices; the steal amount (`000`
// §4.1.4: a ratio of the victim's unstarted iterations, or the first chunk a
// DLS technique gives for them). Pure C++, no MPI.
#include "lb4mpi/stealing/kinds.hpp"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <string>

#include "lb4mpi/techniques/chunk_calculator.hpp"

namespace lb4mpi {
namespace {

// Lower case, '_' read as '-', surrounding blanks dropped.
std::string normalize(std::string_view text) {
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.front())) != 0) text.remove_prefix(1);
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.back())) != 0) text.remove_suffix(1);
  std::string out(text);
  for (char& c : out) c = c == '_' ? '-' : static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

constexpr Balancer kBalancers[] = {Balancer::None, Balancer::Steal, Balancer::A2WS,
                                   Balancer::LW, Balancer::RandomSteal, Balancer::Token};
constexpr Victim kVictims[] = {Victim::Random, Victim::Locality, Victim::NaiveLocality};

}  // namespace

std::string_view name(Balancer b) {
  switch (b) {
    case Balancer::None: return "none";
    case Balancer::Steal: return "steal";
    case Balancer::A2WS: return "a2ws";
    case Balancer::LW: return "lw";
    case Balancer::RandomSteal: return "random-steal";
    case Balancer::Token: return "token";
  }
  return "?";
}

Balancer parse_balancer(std::string_view text) {
  const std::string s = normalize(text);
  for (Balancer b : kBalancers) {
    if (s == name(b)) return b;
  }
  throw Error("unknown balancer '" + std::string(text) + "'; valid balancers: none, steal, a2ws, lw, random-steal, token");
}

std::string_view name(Victim v) {
  switch (v) {
    case Victim::Random: return "random";
    case Victim::Locality: return "locality";
    case Victim::NaiveLocality: return "naive-locality";
  }
  return "?";
}

Victim parse_victim(std::string_view text) {
  const std::string s = normalize(text);
  if (s == "laws") return Victim::Locality;
  if (s == "nlaws") return Victim::NaiveLocality;
  for (Victim v : kVictims) {
    if (s == name(v)) return v;
  }
  throw Error("unknown victim selection '" + std::string(text) +
              "'; valid: random, locality (laws), naive-locality (nlaws)");
}

std::string StealAmount::text() const {
  if (!is_ratio) return std::string(name(technique));
  char buf[32];
  std::snprintf(buf, sizeof buf, "%g%%", ratio * 100.0);
  return buf;
}

std::string StealAmount::check() const {
  if (is_ratio) {
    if (!(ratio > 0.0 && ratio <= 1.0)) {
      char buf[64];
      std::snprintf(buf, sizeof buf, "%g", ratio * 100.0);
      return std::string("the steal ratio must be in (0, 100] percent, got ") + buf + " %";
    }
    return {};
  }
  if (technique == Technique::Auto || info(technique).adaptive) {
    std::string valid;
    for (const TechniqueInfo& t : all_techniques()) {
      if (!t.adaptive) valid += (valid.empty() ? "" : ", ") + std::string(t.name);
    }
    return "the steal amount needs a non-adaptive technique (" + valid + ") or a ratio, got " +
           std::string(name(technique));
  }
  return {};
}

Index StealAmount::take(Index remaining, int ranks, int thief, const TechniqueParams& params) const {
  if (remaining <= 0) return 0;
  Index k = 1;
  if (is_ratio) {
    k = static_cast<Index>(std::ceil(ratio * static_cast<double>(remaining)));
  } else {
    // The technique applied to the victim's remaining iterations: the first
    // chunk of a loop of R iterations on P ranks (for the thief, WF's weight).
    ChunkCalculator calc(technique, LoopShape{remaining, ranks}, params);
    if (const std::optional<Chunk> c = calc.next(thief)) k = c->size;
  }
  return std::clamp<Index>(k, 1, remaining);
}

StealAmount parse_steal_amount(std::string_view text) {
  std::string s = normalize(text);
  const bool percent = !s.empty() && s.back() == '%';
  if (percent) s.pop_back();
  const bool fraction = s.find('.') != std::string::npos;
  if (percent || fraction) {
    errno = 0;
    char* end = nullptr;
    const double v = std::strtod(s.c_str(), &end);
    if (errno == 0 && end != s.c_str() && *end == '\0' && std::isfinite(v)) {
      return StealAmount::of_ratio(percent ? v / 100.0 : v);
    }
  } else {
    try {
      return StealAmount::of(parse_technique(s));
    } catch (const Error&) {
    }
  }
  throw Error("unknown steal amount '" + std::string(text) +
              "'; valid: a technique name or `000` Table 4.1 id (" + valid_technique_names() +
              "), or a ratio such as 25%, 35%, 50% or 0.5");
}

}  // namespace lb4mpi
