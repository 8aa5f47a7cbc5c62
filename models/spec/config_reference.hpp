#pragma once
// The config reference (docs/config.md) generated from the schema tables the validator uses, so
// the documentation cannot disagree with what is accepted. A test compares the checked-in file
// with this output.
#include <string>

namespace bvi::spec {

std::string config_reference_markdown();

}  // namespace bvi::spec
