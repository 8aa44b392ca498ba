// The C side of lb4mpi's Fortran modules (fortran/): `use DLS` (DLS4LB's
// module: its Fortran communicators and method numbers) and `use lb4mpi`
// (the modern module: options by name, 64-bit ranges, errors as a status).
// Not in the public C header: the Fortran modules are their only callers.
//
// DLS4LB's DLS.f90 numbers the techniques 0..13 in the order of their ids of
// `000` Table 4.1, without a gap where lb4mpi.h has none (6): its number is
// a technique's position among those that have a Table 4.1 id, in id order.
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <memory>
#include <string>
#include <vector>

#include "lb4mpi/export.h"
#include "lb4mpi/lb4mpi.h"
#include "state.hpp"

using namespace lb4mpi::capi::detail;  // NOLINT(google-build-using-namespace): this layer's internals

namespace {

// The C ids (lb4mpi.h) of DLS4LB's numbers 0, 1, ...: the Table 4.1 ids in order.
const std::vector<int>& dls4lb_ids() {
  static const std::vector<int> ids = [] {
    std::vector<int> v;
    for (const lb4mpi::TechniqueInfo& ti : lb4mpi::all_techniques())
      if (ti.legacy_id >= 0) v.push_back(ti.legacy_id);
    std::sort(v.begin(), v.end());
    return v;
  }();
  return ids;
}

int c_id_of(int dls_method) {
  const auto& ids = dls4lb_ids();
  return dls_method >= 0 && dls_method < static_cast<int>(ids.size()) ? ids[static_cast<std::size_t>(dls_method)] : -1;
}

void copy_out(const std::string& s, char* buf, int len) {
  if (buf == nullptr || len <= 0) return;
  // Fortran strings: blank-padded, no terminating NUL.
  const std::size_t n = std::min(s.size(), static_cast<std::size_t>(len));
  std::memcpy(buf, s.data(), n);
  std::memset(buf + n, ' ', static_cast<std::size_t>(len) - n);
}

struct FLoop {
  MPI_Comm comm = MPI_COMM_NULL;
  lb4mpi::Loop loop;
};

// An error every rank of `comm` has: reported as the status when the caller
// asked for one, else printed on every rank, which then ends (status 2).
int fail(MPI_Comm comm, const std::string& msg, int want_status, char* buf, int len) {
  if (want_status != 0) {
    copy_out(msg, buf, len);
    return 2;
  }
  std::fprintf(stderr, "%s\n", msg.c_str());
  std::fflush(stderr);
  int size = 0;
  int world = 0;
  MPI_Comm_size(comm, &size);
  MPI_Comm_size(MPI_COMM_WORLD, &world);
  if (size != world) MPI_Abort(comm, 2);
  MPI_Finalize();
  std::exit(2);
}

}  // namespace

extern "C" {

LB4MPI_API int lb4mpi_f_dls_method_count() { return static_cast<int>(dls4lb_ids().size()); }

// The lb4mpi.h id of DLS4LB's method number, -1 when there is none.
LB4MPI_API int lb4mpi_f_dls_c_method(int dls_method) { return c_id_of(dls_method); }

// The technique layer's name of DLS4LB's method number ("unknown" for none).
LB4MPI_API void lb4mpi_f_dls_name(int dls_method, char* buf, int len) {
  const int id = c_id_of(dls_method);
  copy_out(id < 0 ? std::string("unknown") : std::string(get_DLS_ShortName(id)), buf, len);
}

LB4MPI_API void lb4mpi_f_dls_setup(MPI_Fint comm, infoDLS* info) { DLS_Setup(MPI_Comm_f2c(comm), info); }

LB4MPI_API void lb4mpi_f_dls_groupsetup(MPI_Fint world, int coordinator, infoDLS* GS, infoDLS* LS) {
  DLS_GroupSetup(MPI_Comm_f2c(world), coordinator, GS, LS);
}

// DLS_StartLoop with DLS4LB's method number; an unknown one is reported by
// DLS_StartLoop's agreement on every rank, naming DLS4LB's numbers.
LB4MPI_API void lb4mpi_f_dls_startloop(infoDLS* info, int first, int last, int dls_method) {
  const int id = c_id_of(dls_method);
  if (id < 0) {
    std::string valid;
    for (int m = 0; m < lb4mpi_f_dls_method_count(); ++m)
      valid += (m > 0 ? ", " : "") + std::string(get_DLS_ShortName(c_id_of(m))) + "=" + std::to_string(m);
    defer("lb4mpi: DLS_StartLoop: unknown DLS4LB method " + std::to_string(dls_method) +
          "; valid (DLS.f90's numbers): " + valid);
  }
  DLS_StartLoop(info, first, last, id < 0 ? STATIC : id);
}

// ------------------------------------------------------------ use lb4mpi

LB4MPI_API int lb4mpi_f_technique_count() { return static_cast<int>(lb4mpi::all_techniques().size()); }

// The name of technique i (0-based, canonical order; i = count: "auto").
LB4MPI_API void lb4mpi_f_technique_name(int i, char* buf, int len) {
  const auto& all = lb4mpi::all_techniques();
  copy_out(i >= 0 && i < static_cast<int>(all.size()) ? std::string(all[static_cast<std::size_t>(i)].name)
                                                       : std::string(lb4mpi::name(lb4mpi::Technique::Auto)),
           buf, len);
}

// Starts [first, last] (inclusive, 64-bit) on the Fortran communicator.
// technique and mode: names ("" keeps LB4MPI_SCHEDULING / LB4MPI_MODE or the
// default); robust < 0 keeps LB4MPI_ROBUST. Returns 0, or 2 with the message.
LB4MPI_API int lb4mpi_f_loop_start(MPI_Fint fcomm, std::int64_t first, std::int64_t last, const char* technique,
                                   const char* mode, int robust, int want_status, void** handle, char* msg,
                                   int msglen) {
  *handle = nullptr;
  const MPI_Comm comm = MPI_Comm_f2c(fcomm);
  std::string error;
  Options o;
  try {
    o = Options::from_env();
    if (technique != nullptr && *technique != '\0') {
      o.technique = lb4mpi::parse_technique(technique);
      o.origin["technique"] = std::string("lb4mpi_start technique='") + technique + "'";
    }
    if (mode != nullptr && *mode != '\0') o.mode = lb4mpi::parse_mode(mode);
    if (robust >= 0) o.robust = robust != 0;
  } catch (const std::exception& e) {
    error = std::string("lb4mpi: lb4mpi_start: ") + e.what();
  }
  if (error.empty() && last < first - 1) {
    error = "lb4mpi: lb4mpi_start: last must be >= first - 1 (last = first - 1 is an empty loop), got first " +
            std::to_string(first) + " and last " + std::to_string(last);
  }
  try {
    lb4mpi::Fingerprint f;
    f.add(first).add(last);
    if (error.empty()) f.add(o.fingerprint());
    lb4mpi::agree(comm, error, f.value(), "the arguments of lb4mpi_start");
    auto l = std::make_unique<FLoop>(FLoop{comm, lb4mpi::Loop(comm, first, last + 1, o)});
    *handle = l.release();
    return 0;
  } catch (const std::exception& e) {
    return fail(comm, e.what(), want_status, msg, msglen);
  }
}

// The next chunk [first, last] of this rank: 1, or 0 when the loop has none left.
LB4MPI_API int lb4mpi_f_loop_next(void* handle, std::int64_t* first, std::int64_t* last) {
  auto* l = static_cast<FLoop*>(handle);
  if (l == nullptr) abort_job(MPI_COMM_WORLD, "lb4mpi: lb4mpi_next: the loop was not started (lb4mpi_start)");
  try {
    const std::optional<lb4mpi::Chunk> c = l->loop.next();
    if (!c) return 0;
    *first = c->begin;
    *last = c->begin + c->size - 1;
    return 1;
  } catch (const std::exception& e) {
    abort_job(l->comm, e.what());
  }
}

LB4MPI_API int lb4mpi_f_loop_size(void* handle) {
  int size = 0;
  if (handle != nullptr) MPI_Comm_size(static_cast<FLoop*>(handle)->comm, &size);
  return size;
}

// Collective: the report (T_par, each rank's iterations, the technique that
// ran) and the loop released. Returns 0, or 2 with the message.
LB4MPI_API int lb4mpi_f_loop_finish(void* handle, double* t_par, std::int64_t* iterations, char* technique,
                                    int techlen, int want_status, char* msg, int msglen) {
  std::unique_ptr<FLoop> l(static_cast<FLoop*>(handle));
  if (!l) abort_job(MPI_COMM_WORLD, "lb4mpi: lb4mpi_finish: the loop was not started (lb4mpi_start)");
  try {
    const lb4mpi::Report r = l->loop.finish();
    *t_par = r.t_par;
    for (std::size_t i = 0; i < r.ranks.size(); ++i) iterations[i] = r.ranks[i].iterations;
    copy_out(std::string(lb4mpi::name(r.technique)), technique, techlen);
    return 0;
  } catch (const std::exception& e) {
    return fail(l->comm, e.what(), want_status, msg, msglen);
  }
}

}  // extern "C"
