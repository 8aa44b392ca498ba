// Moving a chunk's items between ranks, for every engine: a small header
// message, then the items as their mover describes them (a datatype over
// the owner's storage, a contiguous buffer, serialized bytes). Sends are
// nonblocking and kept until they complete; receives wait politely (the
// sender posted the items right after the header).
#pragma once
#include <mpi.h>

#include <cstdint>
#include <list>

#include "lb4mpi/stealing/mover.hpp"

namespace lb4mpi::st {

/// Tags of the stealing layer on lb4mpi's private communicator (the
/// runtime's are 41xx).
enum Tag : int {
  kTagControl = 4201,  ///< Message: requests, relays, rejects, headers of items, the end
  kTagItems = 4202,    ///< a stolen chunk's input items, after its header
  kTagResults = 4203,  ///< a stolen chunk's results, after their header
};

/// Every control message of the stealing layer (sent as MPI_BYTE). An
/// engine gives `kind` and a..c its own meaning; the item transfers below
/// use a = the chunk's first global index, b = its iterations, c = its owner.
struct Message {
  std::int32_t epoch = 0;
  std::int32_t kind = 0;
  std::int64_t a = 0;
  std::int64_t b = 0;
  std::int64_t c = 0;
  std::int64_t d = 0;
  std::int64_t bytes = -1;  ///< the items' packet size when their mover is serialized, else -1
};

/// Sends in flight: a header and the items behind it, kept (with their
/// packets) until MPI is done with them.
class Outbox {
 public:
  Outbox() = default;
  Outbox(const Outbox&) = delete;
  Outbox& operator=(const Outbox&) = delete;
  ~Outbox();

  /// Sends `header` (kTagControl) to `dest`, then items [from.at, from.at +
  /// k) of `from` through `mover` (on `data_tag`), when `mover` is not null.
  /// Sets header.bytes. When the sends completed, `from`'s buffer (if any)
  /// is released with mover->free_buffer when `release` is set.
  void send(MPI_Comm comm, int dest, Message header, Mover* mover, const Place& from, Index k, int data_tag,
            bool release = false);
  /// Sends a control message alone.
  void send(MPI_Comm comm, int dest, const Message& m);
  /// Frees what completed; true when nothing is pending.
  bool progress();
  /// Waits (politely) for everything pending.
  void drain();
  [[nodiscard]] bool empty() const { return pending_.empty(); }

 private:
  struct Pending {
    Message header;
    Packet packet;
    MPI_Request requests[2] = {MPI_REQUEST_NULL, MPI_REQUEST_NULL};
    Mover* mover = nullptr;    // with `buffer`: released when done
    void* buffer = nullptr;
  };
  static void release(Pending& p) noexcept;
  std::list<Pending> pending_;
};

/// Receives the `k` items announced by `header` from `source` (on
/// `data_tag`) into `to` through `mover`; waits politely until they are in.
void receive_items(MPI_Comm comm, int source, int data_tag, Mover& mover, const Place& to, Index k,
                   const Message& header);

}  // namespace lb4mpi::st
