#pragma once
#include <string>

namespace bvi {

// The whole content of a small text file (a config, a checkpoint). Throws
// Error(ExitCode::no_input) naming the path when it cannot be read.
std::string read_text_file(const std::string& path);

}  // namespace bvi
