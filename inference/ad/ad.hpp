#pragma once
// The array-level reverse-mode AD: the tape and every op.
#include "inference/ad/ops/add.hpp"
#include "inference/ad/ops/exp.hpp"
#include "inference/ad/ops/log.hpp"
#include "inference/ad/ops/matmul.hpp"
#include "inference/ad/ops/multiply.hpp"
#include "inference/ad/ops/normal_lpdf.hpp"
#include "inference/ad/ops/softplus.hpp"
#include "inference/ad/ops/sum.hpp"
#include "inference/ad/tape.hpp"
#include "inference/ad/var.hpp"
#include "inference/ad/ops/bernoulli_logit_glm.hpp"
#include "inference/ad/ops/constrain.hpp"
