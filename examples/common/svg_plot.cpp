#include "svg_plot.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <sstream>

#include "ember/core/error.h"

namespace ember::examples {
namespace {

constexpr double kPanelW = 420, kPanelH = 300, kLeft = 84, kRight = 16, kTop = 36, kBottom = 48;

std::string num(double v, const char* format = "%.6g") {
  char buf[32];
  std::snprintf(buf, sizeof buf, format, v);
  return buf;
}
// Tick labels: three significant digits are enough to read a curve.
std::string tick(double v) { return num(v, "%.3g"); }

// A range that holds every finite value, padded so a flat curve still has height.
std::pair<double, double> extent(const Points& pts, bool x_axis, double lo_floor) {
  double lo = INFINITY, hi = -INFINITY;
  for (const auto& p : pts) {
    const double v = x_axis ? p.first : p.second;
    if (std::isfinite(v)) lo = std::min(lo, v), hi = std::max(hi, v);
  }
  if (!std::isfinite(lo)) return {0, 1};
  lo = std::min(lo, lo_floor);
  if (hi - lo < 1e-12) hi = lo + 1;
  return {lo, hi};
}

// One panel at (ox, oy): frame, 5 ticks per axis, labels, the curve and its markers.
void panel(std::ostream& svg, double ox, double oy, const std::string& id, const std::string& title,
           const std::string& xlabel, const std::string& ylabel, const Points& pts, double y_floor,
           const char* colour) {
  const auto [x0, x1] = extent(pts, true, 0);
  const auto [y0, y1] = extent(pts, false, y_floor);
  const double pw = kPanelW - kLeft - kRight, ph = kPanelH - kTop - kBottom;
  auto sx = [&, x0 = x0, x1 = x1](double x) { return ox + kLeft + (x - x0) / (x1 - x0) * pw; };
  auto sy = [&, y0 = y0, y1 = y1](double y) { return oy + kTop + ph - (y - y0) / (y1 - y0) * ph; };
  svg << "<g id=\"" << id << "-panel\">\n";
  svg << "<text x=\"" << num(ox + kPanelW / 2) << "\" y=\"" << num(oy + 20)
      << "\" text-anchor=\"middle\" font-size=\"14\">" << title << "</text>\n";
  svg << "<rect x=\"" << num(ox + kLeft) << "\" y=\"" << num(oy + kTop) << "\" width=\"" << num(pw)
      << "\" height=\"" << num(ph) << "\" fill=\"none\" stroke=\"#444\"/>\n";
  for (int i = 0; i <= 4; ++i) {
    const double xv = x0 + (x1 - x0) * i / 4, yv = y0 + (y1 - y0) * i / 4;
    svg << "<text x=\"" << num(sx(xv)) << "\" y=\"" << num(oy + kTop + ph + 16)
        << "\" text-anchor=\"middle\" font-size=\"11\">" << tick(xv) << "</text>\n";
    svg << "<text x=\"" << num(ox + kLeft - 6) << "\" y=\"" << num(sy(yv) + 4)
        << "\" text-anchor=\"end\" font-size=\"11\">" << tick(yv) << "</text>\n";
  }
  svg << "<text class=\"xlabel\" x=\"" << num(ox + kLeft + pw / 2) << "\" y=\"" << num(oy + kPanelH - 8)
      << "\" text-anchor=\"middle\" font-size=\"12\">" << xlabel << "</text>\n";
  svg << "<text class=\"ylabel\" transform=\"translate(" << num(ox + 20) << "," << num(oy + kTop + ph / 2)
      << ") rotate(-90)\" text-anchor=\"middle\" font-size=\"12\">" << ylabel << "</text>\n";
  svg << "<polyline id=\"" << id << "\" fill=\"none\" stroke=\"" << colour
      << "\" stroke-width=\"1.5\" points=\"";
  bool first = true;
  for (const auto& p : pts) {
    if (!std::isfinite(p.first) || !std::isfinite(p.second)) continue;
    svg << (first ? "" : " ") << num(sx(p.first)) << ',' << num(sy(p.second));
    first = false;
  }
  svg << "\"/>\n";
  for (const auto& p : pts)
    if (std::isfinite(p.first) && std::isfinite(p.second))
      svg << "<circle cx=\"" << num(sx(p.first)) << "\" cy=\"" << num(sy(p.second)) << "\" r=\"2\" fill=\""
          << colour << "\"/>\n";
  svg << "</g>\n";
}

}  // namespace

void write_training_svg(const std::string& path, const Points& loss, const Points& accuracy) {
  std::ostringstream svg;
  svg << "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
      << "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" << num(2 * kPanelW) << "\" height=\""
      << num(kPanelH) << "\" viewBox=\"0 0 " << num(2 * kPanelW) << ' ' << num(kPanelH) << "\">\n"
      << "<title>Tutorial CNN on MNIST: training loss and test accuracy</title>\n"
      << "<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n";
  panel(svg, 0, 0, "loss", "Training loss", "epoch", "loss (mean per log interval)", loss, INFINITY,
        "#1f77b4");
  panel(svg, kPanelW, 0, "accuracy", "Test accuracy", "epoch", "accuracy (%)", accuracy, INFINITY, "#d62728");
  svg << "</svg>\n";
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << svg.str();
  out.close();
  if (!out) raise<IOError>("cannot write the plot to ", path);
}

}  // namespace ember::examples
