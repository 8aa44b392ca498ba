// Replays inputs through a fuzz target's LLVMFuzzerTestOneInput without
// libFuzzer, with any compiler: `replay_<name> <file or folder>...` runs every
// file (folders recursively, in name order) and exits 0 when all passed; a
// failed check aborts (check.hpp). How the corpora in fuzz/corpus/ become
// regression tests of every build.
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size);
// Defined by the targets that need a set-up (MPI_Init), absent in the others.
extern "C" __attribute__((weak)) int LLVMFuzzerInitialize(int* argc, char*** argv);

namespace {

std::vector<std::filesystem::path> inputs(const std::filesystem::path& root) {
  std::vector<std::filesystem::path> out;
  if (std::filesystem::is_directory(root)) {
    for (const auto& e : std::filesystem::recursive_directory_iterator(root)) {
      if (e.is_regular_file() && e.path().filename().string().front() != '.') out.push_back(e.path());
    }
    std::sort(out.begin(), out.end());
  } else {
    out.push_back(root);
  }
  return out;
}

}  // namespace

int main(int argc, char** argv) {
  if (LLVMFuzzerInitialize != nullptr) LLVMFuzzerInitialize(&argc, &argv);
  if (argc < 2) {
    std::fprintf(stderr, "usage: %s <input file or folder>...\n", argv[0]);
    return 2;
  }
  std::size_t count = 0;
  for (int a = 1; a < argc; ++a) {
    const std::vector<std::filesystem::path> files = inputs(argv[a]);
    if (files.empty()) {
      std::fprintf(stderr, "%s: no input in %s\n", argv[0], argv[a]);
      return 2;
    }
    for (const auto& f : files) {
      std::ifstream in(f, std::ios::binary);
      if (!in) {
        std::fprintf(stderr, "%s: cannot read %s\n", argv[0], f.c_str());
        return 2;
      }
      const std::vector<std::uint8_t> bytes{std::istreambuf_iterator<char>(in), {}};
      std::fprintf(stderr, "replay %s (%zu bytes)\n", f.c_str(), bytes.size());
      LLVMFuzzerTestOneInput(bytes.data(), bytes.size());
      ++count;
    }
  }
  std::fprintf(stderr, "%s: %zu inputs passed\n", argv[0], count);
  return 0;
}
