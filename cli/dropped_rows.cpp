#include "cli/dropped_rows.hpp"

#include "cli/logging.hpp"

namespace bvi::cli {

template <class T>
void warn_dropped_rows(const data::Dataset<T>& d, bool root) {
  if (root && d.dropped_rows > 0) cli_logger().warn(dropped_rows_note(d));
}

template void warn_dropped_rows<double>(const data::Dataset<double>&, bool);
template void warn_dropped_rows<float>(const data::Dataset<float>&, bool);

}  // namespace bvi::cli
