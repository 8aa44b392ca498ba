#include "stealing/transfer.hpp"

#include "runtime/mpi.hpp"

namespace lb4mpi::st {

using rt::check_mpi;

Outbox::~Outbox() {
  // Normally drained; after an error, what is left is cancelled (the job is failing).
  for (Pending& p : pending_) {
    for (MPI_Request& r : p.requests) {
      if (r != MPI_REQUEST_NULL) {
        MPI_Cancel(&r);
        MPI_Request_free(&r);
      }
    }
    release(p);
  }
}

void Outbox::release(Pending& p) noexcept {
  if (p.mover != nullptr && p.buffer != nullptr) p.mover->free_buffer(p.buffer);
  p.buffer = nullptr;
}

void Outbox::send(MPI_Comm comm, int dest, Message header, Mover* mover, const Place& from, Index k, int data_tag,
                  bool release_buffer) {
  Pending& p = pending_.emplace_back();
  if (mover != nullptr) {
    mover->outgoing(from, k, p.packet);
    header.bytes = mover->serialized() ? static_cast<std::int64_t>(p.packet.bytes.size()) : -1;
    if (release_buffer) {
      p.mover = mover;
      p.buffer = from.buffer;
    }
  }
  p.header = header;
  check_mpi(MPI_Isend(&p.header, sizeof(Message), MPI_BYTE, dest, kTagControl, comm, &p.requests[0]), "MPI_Isend");
  if (mover != nullptr) {
    check_mpi(MPI_Isend(p.packet.base, p.packet.count, p.packet.type, dest, data_tag, comm, &p.requests[1]),
              "MPI_Isend");
  }
}

void Outbox::send(MPI_Comm comm, int dest, const Message& m) {
  send(comm, dest, m, nullptr, Place{}, 0, 0);
}

bool Outbox::progress() {
  for (auto it = pending_.begin(); it != pending_.end();) {
    int done = 0;
    check_mpi(MPI_Testall(2, it->requests, &done, MPI_STATUSES_IGNORE), "MPI_Testall");
    if (done != 0) {
      release(*it);
      it = pending_.erase(it);
    } else {
      ++it;
    }
  }
  return pending_.empty();
}

void Outbox::drain() {
  for (Pending& p : pending_) {
    for (MPI_Request& r : p.requests) {
      if (r != MPI_REQUEST_NULL) rt::wait(r, MPI_STATUS_IGNORE, "MPI_Wait");
    }
    release(p);
  }
  pending_.clear();
}

void receive_items(MPI_Comm comm, int source, int data_tag, Mover& mover, const Place& to, Index k,
                   const Message& header) {
  Packet p;
  mover.incoming(to, k, header.bytes, p);
  MPI_Request r = MPI_REQUEST_NULL;
  check_mpi(MPI_Irecv(p.base, p.count, p.type, source, data_tag, comm, &r), "MPI_Irecv");
  rt::wait(r, MPI_STATUS_IGNORE, "MPI_Wait");
  mover.arrived(to, k, p);
}

}  // namespace lb4mpi::st
