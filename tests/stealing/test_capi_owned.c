/* Owned loops from C (lb4mpi/stealing.h): arrays of an MPI datatype, cube
 * slices, objects with serialize/deserialize callbacks; every iteration
 * once with its own items, results at the owner; bad input refused with the
 * same message on every rank. Options from the environment (setenv here, the
 * same on every rank). Exit status: the number of failed checks. */
#define _POSIX_C_SOURCE 200809L
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lb4mpi/stealing.h"

static int rank_ = 0, size_ = 1, failures = 0;
#define CHECK(cond, ...)                                                  \
  do {                                                                    \
    if (!(cond)) {                                                        \
      fprintf(stderr, "[rank %d] %s:%d: ", rank_, __FILE__, __LINE__);    \
      fprintf(stderr, __VA_ARGS__);                                       \
      fprintf(stderr, "\n");                                              \
      ++failures;                                                         \
    }                                                                     \
  } while (0)

enum { N = 240 };
static int ran[N];      /* how often this rank ran each global iteration */
static int bad_items;   /* a body saw an item that is not its iteration's */

static void spin(double seconds) {
  const double until = MPI_Wtime() + seconds;
  while (MPI_Wtime() < until) {
  }
}

/* Rank 0 owns most iterations; beyond 2 ranks, the last rank none. */
static void my_range(int64_t* first, int64_t* last) {
  const int64_t heavy = size_ > 1 ? N * 3 / 4 : N;
  const int empty_last = size_ > 2;
  if (rank_ == 0) {
    *first = 0;
    *last = heavy;
  } else if (empty_last && rank_ == size_ - 1) {
    *first = *last = N;
  } else {
    const int64_t rest = N - heavy, k = size_ - 1 - empty_last;
    *first = heavy + rest * (rank_ - 1) / k;
    *last = heavy + rest * rank_ / k;
  }
}

static int count_wrong(void) {
  int all[N];
  MPI_Allreduce(ran, all, N, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  int wrong = 0;
  for (int i = 0; i < N; ++i) wrong += all[i] != 1;
  return wrong;
}

/* ---- arrays: one long per iteration, a double result */
static void array_body(void* state, int64_t begin, int64_t count, const LB4MPI_View* in, const LB4MPI_View* out) {
  (void)state;
  for (int64_t k = 0; k < count; ++k) {
    const long item = *(const long*)((const char*)in->first + k * in->x_stride);
    if (item != 3 * (begin + k) + 1) ++bad_items;
    *(double*)((char*)out->first + k * out->x_stride) = 0.5 * (double)item;
    ++ran[begin + k];
    spin(begin + k < N / 2 ? 100e-6 : 5e-6);
  }
}

static void test_arrays(const char* var, const char* amount) {
  setenv(var, amount, 1);
  int64_t first, last;
  my_range(&first, &last);
  const int64_t n = last - first;
  long* items = malloc((size_t)(n + 1) * sizeof *items);
  double* results = malloc((size_t)(n + 1) * sizeof *results);
  for (int64_t k = 0; k < n; ++k) items[k] = 3 * (first + k) + 1, results[k] = -1;
  memset(ran, 0, sizeof ran);
  bad_items = 0;
  LB4MPI_Items* in = LB4MPI_Items_array(items, n, MPI_LONG, 1);
  LB4MPI_Items* out = LB4MPI_Items_array(results, n, MPI_DOUBLE, 1);
  LB4MPI_StealSummary s;
  const int rc = LB4MPI_Owned_for(MPI_COMM_WORLD, first, last, in, out, array_body, NULL, &s);
  CHECK(rc == 0, "arrays/%s: %s", amount, LB4MPI_Owned_error());
  CHECK(count_wrong() == 0, "arrays/%s: iterations not run exactly once", amount);
  CHECK(bad_items == 0, "arrays/%s: %d wrong items", amount, bad_items);
  for (int64_t k = 0; k < n; ++k) CHECK(results[k] == 0.5 * (double)items[k], "arrays/%s: result %lld", amount, (long long)(first + k));
  CHECK(s.iterations == N, "arrays/%s: %lld iterations", amount, (long long)s.iterations);
  if (size_ > 1) CHECK(s.iterations_stolen > 0, "arrays/%s: nothing stolen", amount);
  LB4MPI_Items_free(in);
  LB4MPI_Items_free(out);
  free(items);
  free(results);
  unsetenv(var);
}

/* ---- cubes: x-slices of 3 x 2 ints inside a halo of 1, a long sum per slice */
static void cube_body(void* state, int64_t begin, int64_t count, const LB4MPI_View* in, const LB4MPI_View* out) {
  (void)state;
  for (int64_t x = 0; x < count; ++x) {
    long sum = 0;
    for (int y = 0; y < in->ny; ++y)
      for (int z = 0; z < in->nz; ++z) {
        const int v = *(const int*)((const char*)in->first + x * in->x_stride + y * in->y_stride + z * in->element_size);
        if (v != (int)((begin + x) * 100 + y * 10 + z)) ++bad_items;
        sum += v;
      }
    *(long*)((char*)out->first + x * out->x_stride) = sum;
    ++ran[begin + x];
    spin(begin + x < N / 2 ? 100e-6 : 5e-6);
  }
}

static void test_cube(void) {
  setenv("LB4MPI_STEAL_RATIO", "35", 1);
  int64_t first, last;
  my_range(&first, &last);
  const int nx = (int)(last - first);
  const int dims[3] = {nx + 2, 5, 4}, lo[3] = {1, 1, 1}, box[3] = {nx, 3, 2};
  int* cube = malloc((size_t)dims[0] * 5 * 4 * sizeof *cube);
  for (int i = 0; i < dims[0] * 5 * 4; ++i) cube[i] = -9;  /* halo */
  for (int x = 0; x < nx; ++x)
    for (int y = 0; y < 3; ++y)
      for (int z = 0; z < 2; ++z) cube[((x + 1) * 5 + y + 1) * 4 + z + 1] = (int)((first + x) * 100 + y * 10 + z);
  long* sums = malloc((size_t)(nx + 1) * sizeof *sums);
  memset(ran, 0, sizeof ran);
  bad_items = 0;
  LB4MPI_Items* in = LB4MPI_Items_cube(cube, dims, lo, box, MPI_INT);
  LB4MPI_Items* out = LB4MPI_Items_array(sums, nx, MPI_LONG, 1);
  const int rc = LB4MPI_Owned_for(MPI_COMM_WORLD, first, last, in, out, cube_body, NULL, NULL);
  CHECK(rc == 0, "cube: %s", LB4MPI_Owned_error());
  CHECK(count_wrong() == 0, "cube: iterations not run exactly once");
  CHECK(bad_items == 0, "cube: %d wrong cells", bad_items);
  for (int x = 0; x < nx; ++x) {
    const long want = 6 * (first + x) * 100 + 2 * 30 + 3 * 1;  /* sum of y*10 (0,10,20) x2, z (0,1) x3 */
    CHECK(sums[x] == want, "cube: slice %lld sum %ld, want %ld", (long long)(first + x), sums[x], want);
  }
  LB4MPI_Items_free(in);
  LB4MPI_Items_free(out);
  free(cube);
  free(sums);
  unsetenv("LB4MPI_STEAL_RATIO");
}

/* ---- objects with a pointer inside: moved with the callbacks */
typedef struct {
  int64_t id;
  int n;
  double* values;  /* n of them */
} Obj;

static int obj_serialize(void* state, const void* first, int64_t count, void** bytes, int64_t* size) {
  (void)state;
  const Obj* o = first;
  int64_t total = 0;
  for (int64_t k = 0; k < count; ++k) total += (int64_t)(sizeof(int64_t) + sizeof(int) + (size_t)o[k].n * sizeof(double));
  char* b = malloc((size_t)total + 1);
  char* p = b;
  for (int64_t k = 0; k < count; ++k) {
    memcpy(p, &o[k].id, sizeof o[k].id), p += sizeof o[k].id;
    memcpy(p, &o[k].n, sizeof o[k].n), p += sizeof o[k].n;
    memcpy(p, o[k].values, (size_t)o[k].n * sizeof(double)), p += (size_t)o[k].n * sizeof(double);
  }
  *bytes = b;
  *size = total;
  return 0;
}

static void* obj_deserialize(void* state, const void* bytes, int64_t size, int64_t count) {
  (void)state;
  (void)size;
  Obj* o = malloc((size_t)(count + 1) * sizeof *o);
  const char* p = bytes;
  for (int64_t k = 0; k < count; ++k) {
    memcpy(&o[k].id, p, sizeof o[k].id), p += sizeof o[k].id;
    memcpy(&o[k].n, p, sizeof o[k].n), p += sizeof o[k].n;
    o[k].values = malloc((size_t)o[k].n * sizeof(double) + 1);
    memcpy(o[k].values, p, (size_t)o[k].n * sizeof(double)), p += (size_t)o[k].n * sizeof(double);
  }
  return o;
}

static void obj_release(void* state, void* objects, int64_t count) {
  (void)state;
  Obj* o = objects;
  for (int64_t k = 0; k < count; ++k) free(o[k].values);
  free(o);
}

static void obj_body(void* state, int64_t begin, int64_t count, const LB4MPI_View* in, const LB4MPI_View* out) {
  (void)state;
  for (int64_t k = 0; k < count; ++k) {
    const Obj* o = (const Obj*)((const char*)in->first + k * in->x_stride);
    double sum = 0;
    for (int j = 0; j < o->n; ++j) sum += o->values[j];
    if (o->id != begin + k || o->n != (int)((begin + k) % 4 + 1)) ++bad_items;
    *(double*)((char*)out->first + k * out->x_stride) = sum;
    ++ran[begin + k];
    spin(begin + k < N / 2 ? 100e-6 : 5e-6);
  }
}

static void test_objects(void) {
  int64_t first, last;
  my_range(&first, &last);
  const int64_t n = last - first;
  Obj* objs = malloc((size_t)(n + 1) * sizeof *objs);
  double* sums = malloc((size_t)(n + 1) * sizeof *sums);
  for (int64_t k = 0; k < n; ++k) {
    objs[k].id = first + k;
    objs[k].n = (int)((first + k) % 4 + 1);
    objs[k].values = malloc((size_t)objs[k].n * sizeof(double));
    for (int j = 0; j < objs[k].n; ++j) objs[k].values[j] = (double)(first + k) + j;
  }
  memset(ran, 0, sizeof ran);
  bad_items = 0;
  LB4MPI_Serializer s = {NULL, obj_serialize, obj_deserialize, obj_release};
  LB4MPI_Items* in = LB4MPI_Items_serialized(objs, n, sizeof(Obj), s);
  LB4MPI_Items* out = LB4MPI_Items_array(sums, n, MPI_DOUBLE, 1);
  const int rc = LB4MPI_Owned_for(MPI_COMM_WORLD, first, last, in, out, obj_body, NULL, NULL);
  CHECK(rc == 0, "objects: %s", LB4MPI_Owned_error());
  CHECK(count_wrong() == 0, "objects: iterations not run exactly once");
  CHECK(bad_items == 0, "objects: %d wrong objects", bad_items);
  for (int64_t k = 0; k < n; ++k) {
    double want = 0;
    for (int j = 0; j < objs[k].n; ++j) want += objs[k].values[j];
    CHECK(sums[k] == want, "objects: result %lld", (long long)(first + k));
  }
  /* Objects cannot be results: refused on every rank. */
  LB4MPI_Items* bad_out = LB4MPI_Items_serialized(objs, n, sizeof(Obj), s);
  const int rc2 = LB4MPI_Owned_for(MPI_COMM_WORLD, first, last, in, bad_out, obj_body, NULL, NULL);
  CHECK(rc2 != 0 && strstr(LB4MPI_Owned_error(), "cannot be results") != NULL, "objects as results: rc %d '%s'", rc2,
        LB4MPI_Owned_error());
  LB4MPI_Items_free(bad_out);
  LB4MPI_Items_free(in);
  LB4MPI_Items_free(out);
  for (int64_t k = 0; k < n; ++k) free(objs[k].values);
  free(objs);
  free(sums);
}

/* ---- bad input: the same message on every rank */
static void test_bad_input(void) {
  int64_t first, last;
  my_range(&first, &last);
  long items[N];
  LB4MPI_Items* in = LB4MPI_Items_array(items, last - first + (rank_ == 0 ? 1 : 0), MPI_LONG, 1);
  const int rc = LB4MPI_Owned_for(MPI_COMM_WORLD, first, last, in, NULL, array_body, NULL, NULL);
  char mine[256] = {0}, zero[256] = {0};
  strncpy(mine, LB4MPI_Owned_error(), sizeof mine - 1);
  memcpy(zero, mine, sizeof zero);
  MPI_Bcast(zero, sizeof zero, MPI_CHAR, 0, MPI_COMM_WORLD);
  CHECK(rc != 0 && strstr(mine, "but the rank owns") != NULL, "wrong item count: rc %d '%s'", rc, mine);
  CHECK(strcmp(mine, zero) == 0, "not the same message on every rank: '%s' vs '%s'", mine, zero);
  LB4MPI_Items_free(in);
  setenv("LB4MPI_BALANCER", "tokens", 1);
  const int rc2 = LB4MPI_Owned_for(MPI_COMM_WORLD, first, first, NULL, NULL, array_body, NULL, NULL);
  CHECK(rc2 != 0 && strstr(LB4MPI_Owned_error(), "LB4MPI_BALANCER: unknown balancer 'tokens'; valid balancers: none, "
                                                 "steal, a2ws, lw, random-steal, token") != NULL,
        "balancer tokens: '%s'", LB4MPI_Owned_error());
  unsetenv("LB4MPI_BALANCER");
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank_);
  MPI_Comm_size(MPI_COMM_WORLD, &size_);
  test_arrays("LB4MPI_STEAL_RATIO", "50");
  test_arrays("LB4MPI_WS_SCHEDULING", "GSS");
  test_arrays("LB4MPI_WS_SCHEDULING", "1"); /* SS by its `000` Table 4.1 id */
  test_cube();
  test_objects();
  test_bad_input();
  int all = 0;
  MPI_Allreduce(&failures, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  if (rank_ == 0) printf("test_capi_owned: %d ranks, %d failed checks\n", size_, all);
  MPI_Finalize();
  return all == 0 ? 0 : 1;
}
