#pragma once
// Ember's extension set, opt-in beside <ember/ember.h>: what a backend or a fused op is written
// against. A backend implements Backend over an Allocator and installs itself with
// register_backend; a fused op checks its arguments as the front-ends do, calls a Backend
// primitive (named by the op kinds) and records an autograd Node. Users need none of it.
#include "ember/ember.h"
#include "ember/extend/allocator.h"
#include "ember/extend/autograd_node.h"
#include "ember/extend/backend.h"
#include "ember/extend/backend_registry.h"
#include "ember/extend/check.h"
#include "ember/extend/elementwise_ops.h"
#include "ember/extend/op_kinds.h"
#include "ember/extend/optim_steps.h"
#include "ember/extend/tensor_impl.h"
