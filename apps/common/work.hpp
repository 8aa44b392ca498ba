// The time the iterations of one piece of a chunk take, spent the way the
// platform (src/platform) wants it. Two kinds of time:
//
//   spend(s)   time the app only models: the synthetic app's drawn
//              iteration times. Natively it is spent at once, iteration by
//              iteration (a busy wait, or a sleep); in the simulation build
//              it is added up and spent at the end of the piece as one
//              simulated computation (one step of the simulation per piece,
//              not per iteration: host time stays independent of N).
//   charge(s)  the modelled cost of work the app computed for real (the
//              Mandelbrot, PSIA and Pi-solver/STREAM kernels). Natively
//              nothing: the computation took its time. In the simulation
//              build, where the host's computing time is not simulated time
//              (smpi/simulate-computation:no, tools/sim), it is added up and
//              spent at the end of the piece: the iteration costs what the
//              model says it costs on the machine it was calibrated on
//              (docs/EXPERIMENTS.md, "Work models").
//
// Use one PieceWork per piece, in the body of the loop:
//   apps::PieceWork work;
//   for (i ...) { ...; work.spend(t_i); }
// The destructor spends what was added up.
#pragma once
#include "platform/platform.hpp"

namespace lb4mpi::apps {

class PieceWork {
 public:
  /// How modelled time passes natively: working (busy wait) or sleeping.
  enum class Native { Spin, Sleep };
  explicit PieceWork(Native how = Native::Spin) : how_(how) {}
  PieceWork(const PieceWork&) = delete;
  PieceWork& operator=(const PieceWork&) = delete;
  ~PieceWork() { flush(); }

  /// Time the app models (see the header).
  void spend(double seconds) {
    if constexpr (platform::kSimulated) {
      pending_ += seconds;
    } else if (how_ == Native::Spin) {
      platform::spend(seconds);
    } else {
      platform::sleep(seconds);
    }
  }

  /// The modelled cost of work computed for real (see the header).
  void charge(double seconds) {
    if constexpr (platform::kSimulated) pending_ += seconds;
  }

  /// Spends what was added up (the simulation build; nothing natively).
  void flush() {
    if (pending_ <= 0.0) return;
    if (how_ == Native::Spin)
      platform::spend(pending_);
    else
      platform::sleep(pending_);
    pending_ = 0.0;
  }

 private:
  Native how_;
  double pending_ = 0.0;
};

}  // namespace lb4mpi::apps
