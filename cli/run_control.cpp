#include "cli/run_control.hpp"

#include "cli/signals.hpp"
#include "common/atomic_file.hpp"
#include "inference/checkpoint.hpp"
#include "inference/reduce/collective_error.hpp"

namespace bvi::cli {

bool RunControl::stop_requested() {
  long sig = stop_signal();
  if (comm_.size() > 1) comm_.allreduce_max(&sig, 1);
  signal_ = static_cast<int>(sig);
  return sig != 0;
}

void RunControl::on_checkpoint(const vi::AdviState& state) {
  if (checkpoint_path_.empty()) return;
  reduce::collectively(comm_, [&] {
    if (comm_.is_root()) write_file_atomically(checkpoint_path_, vi::checkpoint_text(state, fingerprint_));
  });
  ++written_;
}

}  // namespace bvi::cli
