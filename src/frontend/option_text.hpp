// Option values as a person reads them, in error messages and in "the ranks
// disagree" messages (options.cpp, options_validate.cpp).
#pragma once
#include <cstdio>
#include <string>
#include <type_traits>
#include <vector>

#include "lb4mpi/options.hpp"

namespace lb4mpi::detail {

inline std::string text(Technique t) { return std::string(name(t)); }
inline std::string text(Mode m) { return std::string(name(m)); }
inline std::string text(Wait w) { return std::string(name(w)); }
inline std::string text(RndBounds b) { return std::string(name(b)); }
inline std::string text(bool b) { return b ? "true" : "false"; }
inline std::string text(const std::string& s) { return "'" + s + "'"; }
inline std::string text(double x) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.17g", x);
  return buf;
}
template <class T>
  requires std::is_integral_v<T>
inline std::string text(T x) {
  return std::to_string(x);
}
inline std::string text(const Options::FailAfter& f) {
  if (f.chunks != -1) return std::to_string(f.chunks) + " chunks";
  if (f.seconds != -1.0) return text(f.seconds) + " s";
  if (f.at_end) return "end";
  if (f.in_report) return "report";
  return "first chunk";
}
template <class T>
inline std::string text(const std::vector<T>& v) {
  std::string out = "[";
  for (std::size_t i = 0; i < v.size(); ++i) out += (i > 0 ? ", " : "") + text(v[i]);
  return out + "]";
}

}  // namespace lb4mpi::detail
