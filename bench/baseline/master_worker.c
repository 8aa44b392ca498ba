/* The loop a C programmer writes by hand (issue 32): no library, blocking
 * MPI_Send / MPI_Recv, the chunk sizes by the papers' formulas (`001` Eqs.
 * 2-7), written again here: the baseline owes nothing to lb4mpi. */
#include "baseline.h"

enum { TAG_ASK = 11, TAG_CHUNK = 12 };

/* The master's state of the loop: what is left, the step, the technique's
 * memory (TSS's last size and decrement, FAC's batch size). */
struct sched {
  enum hand_technique t;
  long long n, next, step;
  int p;
  long long tss_k,
      tss_d;       /* TSS: the current size K_i, the decrement floor((K_0 - K_{S-1}) / (S - 1)) */
  long long fac_k; /* FAC: the size of the current batch */
};

static long long ceil_div(long long a, long long b) { return (a + b - 1) / b; }

static void sched_init(struct sched* s, enum hand_technique t, long long n, int p) {
  s->t = t;
  s->n = n;
  s->next = 0;
  s->step = 0;
  s->p = p;
  /* TSS (Eq. 6): K_0 = ceil(N / 2P), K_{S-1} = 1, S = ceil(2N / (K_0 + 1)). */
  s->tss_k = ceil_div(n, 2LL * p);
  if (s->tss_k < 1) s->tss_k = 1;
  {
    const long long chunks = ceil_div(2 * n, s->tss_k + 1);
    s->tss_d = chunks > 1 ? (s->tss_k - 1) / (chunks - 1) : 0;
  }
  s->fac_k = 0;
}

/* The next chunk: its start in *begin, its size returned (0: the loop is over). */
static long long sched_next(struct sched* s, long long* begin) {
  const long long r = s->n - s->next; /* R_i */
  long long k = 0;
  if (r <= 0) return 0;
  switch (s->t) {
    case HAND_SS:
      k = 1;
      break; /* Eq. 2 */
    case HAND_GSS:
      k = ceil_div(r, s->p);
      break;       /* Eq. 4: ceil(R_i / P) */
    case HAND_TSS: /* Eq. 6: K_i = K_{i-1} - D */
      k = s->tss_k;
      s->tss_k = s->tss_k - s->tss_d > 1 ? s->tss_k - s->tss_d : 1;
      break;
    case HAND_FAC: /* Eq. 7: a batch of P chunks of ceil(R / 2P) */
      if (s->step % s->p == 0) s->fac_k = ceil_div(r, 2LL * s->p);
      k = s->fac_k;
      break;
    default:
      k = ceil_div(r, s->p);
      break;
  }
  if (k < 1) k = 1;
  if (k > r) k = r;
  *begin = s->next;
  s->next += k;
  ++s->step;
  return k;
}

/* Answers one request that is known to have come (or waits for one). */
static void answer(MPI_Comm comm, struct sched* s, int* working) {
  int ask = 0;
  long long chunk[2] = {0, 0};
  MPI_Status st;
  MPI_Recv(&ask, 1, MPI_INT, MPI_ANY_SOURCE, TAG_ASK, comm, &st);
  chunk[1] = sched_next(s, &chunk[0]);
  if (chunk[1] == 0) --*working;
  MPI_Send(chunk, 2, MPI_LONG_LONG, st.MPI_SOURCE, TAG_CHUNK, comm);
}

/* Every request that has arrived. */
static void serve_pending(MPI_Comm comm, struct sched* s, int* working) {
  for (;;) {
    int flag = 0;
    MPI_Iprobe(MPI_ANY_SOURCE, TAG_ASK, comm, &flag, MPI_STATUS_IGNORE);
    if (!flag) return;
    answer(comm, s, working);
  }
}

static void master(MPI_Comm comm, enum hand_technique t, long long n, int p, long long probe_every,
                   hand_body body, void* user) {
  struct sched s;
  int working = p - 1; /* workers not yet told the loop is over */
  sched_init(&s, t, n, p);
  for (;;) {
    long long begin = 0, size = 0, done = 0;
    serve_pending(comm, &s, &working);
    size = sched_next(&s, &begin);
    if (size == 0) break;
    while (done < size) { /* its own chunk, in pieces, answering requests in between */
      const long long piece = size - done < probe_every ? size - done : probe_every;
      body(begin + done, piece, user);
      done += piece;
      if (done < size) serve_pending(comm, &s, &working);
    }
  }
  while (working > 0) answer(comm, &s, &working);
}

static void worker(MPI_Comm comm, hand_body body, void* user) {
  for (;;) {
    int ask = 0;
    long long chunk[2];
    MPI_Send(&ask, 1, MPI_INT, 0, TAG_ASK, comm);
    MPI_Recv(chunk, 2, MPI_LONG_LONG, 0, TAG_CHUNK, comm, MPI_STATUS_IGNORE);
    if (chunk[1] == 0) return;
    body(chunk[0], chunk[1], user);
  }
}

void hand_loop(MPI_Comm comm, enum hand_technique t, long long n, long long probe_every,
               hand_body body, void* user) {
  int rank = 0, p = 1;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &p);
  if (probe_every < 1) probe_every = 1;
  if (t == HAND_STATIC) { /* Eq. 1: ceil(N / P) each, the last ranks fewer */
    const long long k = ceil_div(n, p);
    const long long begin = k * rank < n ? k * rank : n;
    const long long end = begin + k < n ? begin + k : n;
    if (end > begin) body(begin, end - begin, user);
    return;
  }
  if (p == 1) {
    if (n > 0) body(0, n, user);
    return;
  }
  if (rank == 0) {
    master(comm, t, n, p, probe_every, body, user);
  } else {
    worker(comm, body, user);
  }
}
