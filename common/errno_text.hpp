#pragma once
// The text of the last system error (errno), for messages that say why a file operation failed.
#include <cerrno>
#include <cstring>
#include <string>

namespace bvi {

inline std::string errno_text() { return std::strerror(errno); }

}  // namespace bvi
