#pragma once
// The tables that define the config: one Section per JSON object. See schema.hpp.
#include <vector>

#include "models/spec/schema.hpp"

namespace bvi::spec {

const Section& root_section();
const Section& data_section();
const Section& model_section();
const Section& inference_section();
// One entry of /model/parameters ("size" also takes the string "features").
const Section& parameter_section();
// One entry of /model/groups ("by" also takes a single string).
const Section& group_section();
// The prior of a group term's correlations, /model/priors/cor_F/lkj.
const Section& lkj_section();
// The optimizer object's keys depend on its `name`.
const std::vector<std::string>& optimizer_names();
const Section& optimizer_section(const std::string& name);

}  // namespace bvi::spec
