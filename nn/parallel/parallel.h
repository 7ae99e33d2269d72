#pragma once
// ember::nn::parallel, the Ember::distributed library: data-parallel training across
// processes and machines (link Ember::distributed; libember alone never needs MPI).
#include "ember/nn/parallel/distributed_data_parallel.h"
#include "ember/nn/parallel/metrics.h"
#include "ember/nn/parallel/process_group.h"
