// The technique layer of an installed lb4mpi, without MPI: GSS's closed form
// must cover N = 1000 on 4 ranks, and a bad name must throw lb4mpi::Error
// (caught here: its type information crosses the library boundary).
#include <lb4mpi/techniques/chunk_calculator.hpp>

#include <cstdio>

int main() {
  lb4mpi::Index total = 0;
  for (const auto& c : lb4mpi::simulate_chunks(lb4mpi::Technique::GSS, {1000, 4}, lb4mpi::TechniqueParams{},
                                               lb4mpi::Form::Closed)) {
    total += c.size;
  }
  bool caught = false;
  try {
    (void)lb4mpi::parse_technique("NoSuchTechnique");
  } catch (const lb4mpi::Error&) {
    caught = true;
  }
  const bool ok = total == 1000 && caught;
  std::printf("consumer-techniques: %s: %lld of 1000 iterations%s\n", ok ? "ok" : "FAILED",
              static_cast<long long>(total), caught ? ", caught Error" : "");
  return ok ? 0 : 1;
}
