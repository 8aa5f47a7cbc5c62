#pragma once
// The run state as a checkpoint file: JSON, with every double written as a C99 hex float so the
// state is restored bit for bit. A fingerprint of the resolved config and the data's shape ties a
// checkpoint to the run that wrote it; resuming anything else is refused.
#include <string>

#include "inference/advi.hpp"

namespace bvi::vi {

std::string checkpoint_text(const AdviState& state, const std::string& fingerprint);

// Throws Error(ExitCode::config) at `where` (the checkpoint's path) when the text is not a
// checkpoint of this version or was written for another config or dataset.
AdviState parse_checkpoint(const std::string& text, const std::string& fingerprint, const std::string& where);

// A short, stable digest of `text` (FNV-1a, 64 bits, in hex).
std::string fingerprint_of(const std::string& text);

}  // namespace bvi::vi
