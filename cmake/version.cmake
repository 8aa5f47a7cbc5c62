# bayes-vi --version: the project version, plus the git revision when built from a checkout.
# The header is regenerated at every build (cheap) and only rewritten when it changes, so a new
# commit shows in --version without re-running cmake and without needless rebuilds.
set(BVI_VERSION_HEADER ${PROJECT_BINARY_DIR}/generated/bvi_version.hpp)
add_custom_target(bvi_version
  COMMAND ${CMAKE_COMMAND} -DOUT=${BVI_VERSION_HEADER} -DVERSION=${PROJECT_VERSION}
          -DSRC=${PROJECT_SOURCE_DIR} -P ${PROJECT_SOURCE_DIR}/cmake/write_version.cmake
  BYPRODUCTS ${BVI_VERSION_HEADER}
  COMMENT "bayes-vi version header")
