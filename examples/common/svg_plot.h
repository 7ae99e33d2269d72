#pragma once
// Training curves as a self-contained SVG, written by Ember itself (no plotting library).
#include <string>
#include <utility>
#include <vector>

namespace ember::examples {

/// (x, y) points of one curve.
using Points = std::vector<std::pair<double, double>>;

/// Writes two panels to path: the training loss (one point per log interval, x in epochs)
/// and the test accuracy in % (one point per epoch), both axes labelled. IOError when the
/// file cannot be written.
void write_training_svg(const std::string& path, const Points& loss, const Points& accuracy);

}  // namespace ember::examples
