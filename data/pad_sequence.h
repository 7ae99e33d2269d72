#pragma once
// pad_sequence: variable-length sequences in one padded tensor, as
// torch.nn.utils.rnn.pad_sequence makes them (token ids of a batch of texts).
#include <vector>

#include "ember/core/tensor.h"

namespace ember::data {

/// Pads the sequences along dim 0 to the longest and stacks them: [B, T, *] with
/// batch_first, else [T, B, *], where each sequence is [L_i, *] (1-D or more; the trailing
/// dims must agree) and T = max L_i. Padding takes padding_value converted to the dtype (as
/// full converts). The result is on the sequences' device, in their dtype, and records no
/// autograd (it is data preparation). Errors, in this order: ValueError "pad_sequence:
/// received an empty list of sequences" and "pad_sequence: sequences[i] is an undefined
/// tensor"; DeviceMismatchError and DTypeError in the op formats naming sequences[i];
/// ValueError "pad_sequence: padding_value nan cannot be converted to int64 without
/// overflow" for a value the dtype cannot hold (check_value_fits);
/// ShapeError "pad_sequence: sequences[i] must have at least 1 dim, got shape []" and
/// "pad_sequence: sequences[i] has shape [..] but sequences[0] has [..]: the dims after
/// the first must agree".
EMBER_API Tensor pad_sequence(const std::vector<Tensor>& sequences, bool batch_first = true,
                              double padding_value = 0);

}  // namespace ember::data
