// TechniqueParams::validate: the general checks here, each technique's own in
// its descriptor. Every message names the parameter, the value and the valid
// range.
#include <cctype>
#include <cmath>
#include <sstream>
#include <string>

#include "lb4mpi/techniques/params.hpp"
#include "math.hpp"
#include "rules.hpp"

namespace lb4mpi {

std::string detail::show(double v) {
  std::ostringstream os;
  os << v;
  return os.str();
}

// `field` is the member's name, and the message starts with the technique:
// "FISS needs fiss_batches >= 2, got 1".
void detail::fail(Technique t, const char* field, const std::string& what) {
  throw InvalidParameter(field, std::string(name(t)) + " needs " + field + " " + what);
}

void detail::check_positive(Technique t, const char* field, double v, bool zero_ok, const char* what) {
  if (!std::isfinite(v) || v < 0.0 || (!zero_ok && v == 0.0)) {
    fail(t, field, std::string(what) + (zero_ok ? ">= 0" : "> 0") + ", got " + show(v));
  }
}

std::string_view name(RndBounds b) { return b == RndBounds::Unit ? "unit" : "paper004"; }

RndBounds parse_rnd_bounds(std::string_view text) {
  std::string s(text);
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (s == "unit") return RndBounds::Unit;
  if (s == "paper004") return RndBounds::Paper004;
  throw Error("unknown RND bounds '" + std::string(text) + "'; valid values: unit, paper004");
}

void TechniqueParams::validate(Technique t, Index n, int p) const {
  if (t != Technique::Auto) (void)detail::descriptor(t);  // throws for an id outside the enum
  if (n < 0) throw Error("the number of iterations N must be >= 0, got " + std::to_string(n));
  if (n > detail::kMaxIterations) {
    throw Error("the number of iterations N must be <= 2^62 = " +
                std::to_string(detail::kMaxIterations) + ", got " + std::to_string(n));
  }
  if (p < 1) throw Error("the number of ranks P must be >= 1, got " + std::to_string(p));
  if (min_chunk < 1) throw InvalidParameter("min_chunk", "min_chunk must be >= 1, got " + std::to_string(min_chunk));
  if (max_chunk != 0 && max_chunk < min_chunk) {
    throw InvalidParameter("max_chunk", "max_chunk must be 0 (no maximum) or >= min_chunk = " +
                                            std::to_string(min_chunk) + ", got " + std::to_string(max_chunk));
  }
  if (t == Technique::Auto) return;
  const detail::Descriptor& d = detail::descriptor(t);
  if (d.check != nullptr) d.check(t, *this, p);
}

}  // namespace lb4mpi
