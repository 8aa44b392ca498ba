// Setting and removing environment variables many times in one process.
//
// setenv keeps every distinct value it was ever given for the life of the
// process (glibc), which a fuzzer's millions of values turn into gigabytes;
// putenv takes the caller's buffer, which is freed once the variable is gone.
#pragma once
#include <cstdlib>
#include <map>
#include <memory>
#include <string>

namespace lb4mpi::fuzz {

class Environment {
 public:
  Environment() = default;
  Environment(const Environment&) = delete;
  Environment& operator=(const Environment&) = delete;
  ~Environment() { clear(); }

  /// `value` up to its first NUL (what a variable can hold).
  void set(const std::string& var, const std::string& value) {
    auto entry = std::make_unique<std::string>(var + "=" + value.substr(0, value.find('\0')));
    putenv(entry->data());
    buffers_[var] = std::move(entry);  // the old buffer is out of environ now
  }
  void unset(const std::string& var) {
    unsetenv(var.c_str());
    buffers_.erase(var);
  }
  /// Removes every variable set through this object.
  void clear() {
    for (const auto& entry : buffers_) unsetenv(entry.first.c_str());
    buffers_.clear();
  }

 private:
  std::map<std::string, std::unique_ptr<std::string>> buffers_;
};

}  // namespace lb4mpi::fuzz
