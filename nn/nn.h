#pragma once
// ember::nn: modules, layers, losses, functional forms, initialisation, optimizers,
// learning-rate schedules and safetensors checkpoints.
#include "ember/nn/activation.h"
#include "ember/nn/batchnorm.h"
#include "ember/nn/container.h"
#include "ember/nn/conv.h"
#include "ember/nn/dropout.h"
#include "ember/nn/embedding.h"
#include "ember/nn/functional.h"
#include "ember/nn/init.h"
#include "ember/nn/linear.h"
#include "ember/nn/loss.h"
#include "ember/nn/lr_scheduler.h"
#include "ember/nn/module.h"
#include "ember/nn/optim.h"
#include "ember/nn/pooling.h"
#include "ember/nn/serialization.h"
#include "ember/nn/state_dict.h"
