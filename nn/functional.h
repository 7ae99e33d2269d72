#pragma once
// Functional forms of the layers and losses, as torch.nn.functional: the core ops under
// their PyTorch names, for models written without layer objects.
#include "ember/core/ops/conv.h"
#include "ember/core/ops/dropout.h"
#include "ember/core/ops/elementwise.h"
#include "ember/core/ops/embedding.h"
#include "ember/core/ops/linalg.h"
#include "ember/core/ops/loss.h"
#include "ember/core/ops/norm.h"
#include "ember/core/ops/pool.h"
#include "ember/core/ops/softmax.h"
#include "ember/core/ops/views.h"

namespace ember::nn::functional {

using ember::avg_pool2d;
using ember::batch_norm;
using ember::conv2d;
using ember::cross_entropy;
using ember::dropout;
using ember::dropout2d;
using ember::embedding;
using ember::flatten;
using ember::linear;
using ember::log_softmax;
using ember::max_pool2d;
using ember::mse_loss;
using ember::nll_loss;
using ember::relu;
using ember::sigmoid;
using ember::softmax;
using ember::tanh;

}  // namespace ember::nn::functional
