#pragma once
// What fit does around the run loop besides progress: stop on SIGTERM/SIGINT at the same
// iteration on every rank, and write checkpoints (rank 0, atomically).
#include <string>

#include "cli/progress.hpp"
#include "inference/reduce/communicator.hpp"

namespace bvi::cli {

class RunControl final : public ProgressReporter {
 public:
  RunControl(bool progress, bool terminal, reduce::Communicator& comm, std::string checkpoint_path,
             std::string fingerprint)
      : ProgressReporter(progress, terminal),
        comm_(comm),
        checkpoint_path_(std::move(checkpoint_path)),
        fingerprint_(std::move(fingerprint)) {}

  // Agreed over ranks every iteration (one tiny allreduce), so all ranks stop at the same step.
  bool stop_requested() override;
  void on_checkpoint(const vi::AdviState& state) override;

  int signal() const { return signal_; }
  long checkpoints_written() const { return written_; }

 private:
  reduce::Communicator& comm_;
  std::string checkpoint_path_;
  std::string fingerprint_;
  int signal_ = 0;
  long written_ = 0;
};

}  // namespace bvi::cli
