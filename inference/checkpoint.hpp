#pragma once
// The run state as a checkpoint file: JSON, with every double written as a C99 hex float so the
// state is restored bit for bit. A fingerprint of the resolved config and the data's shape ties a
// checkpoint to the run that wrote it; resuming anything else is refused. A checksum of the rest
// finds damage that still parses (a changed digit).
#include <Eigen/Core>
#include <string>

#include "inference/advi.hpp"
#include "models/spec/config.hpp"

namespace bvi::vi {

std::string checkpoint_text(const AdviState& state, const std::string& fingerprint);

// Throws Error(ExitCode::config) at `where` (the checkpoint's path) when the text is not a
// checkpoint of this version, is damaged, or was written for another config or dataset. Never
// throws anything else.
AdviState parse_checkpoint(const std::string& text, const std::string& fingerprint, const std::string& where);

// Whether `state` can continue a run of `inference` over `dim` parameters: the family's and the
// optimizer's numbers have the sizes that run keeps, the iteration is within max_iterations, the
// numbers are finite. The fingerprint ties a file to its run, but an edited file may keep one, and
// a state of the wrong size would be used out of bounds. Throws Error(ExitCode::config) at `where`.
// `pattern_size`: the sparse family's values on its precision pattern.
void check_resumable(const AdviState& state, const spec::InferenceConfig& inference, Eigen::Index dim,
                     const std::string& where, Eigen::Index pattern_size = 0);

// A short, stable digest of `text` (FNV-1a, 64 bits, in hex).
std::string fingerprint_of(const std::string& text);

}  // namespace bvi::vi
