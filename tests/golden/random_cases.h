#pragma once
// The random draws whose exact values are committed in random_golden.inc. One list serves the
// generator (make_random_golden.cpp, built at -O0) and the test (random_golden_test.cpp), so
// the two can never draw different things. Every case starts from manual_seed(kGoldenSeed).
// Bounds other than [0, 1) and arange's start + step * i are there because they are what an
// FMA contraction would round differently.
#include <functional>
#include <string>
#include <vector>

#include "ember/ember.h"

namespace ember::golden {

constexpr uint64_t kGoldenSeed = 20261201;

enum class Match { Exact, WithinOneFloatUlp };

struct RandomCase {
  std::string name;
  Match match;
  std::function<Tensor(Device)> draw;
};

inline std::vector<RandomCase> random_cases() {
  auto on = [](Device d, DType t = kFloat32) { return TensorOptions(t).device(d); };
  auto filled = [on](Device d, DType dtype, int64_t n, auto fill) {
    Tensor t = empty({n}, on(d, dtype));
    fill(t);
    return t;
  };
  return {
      {"rand_f32", Match::Exact, [=](Device d) { return rand({13}, on(d)); }},
      {"rand_f64", Match::Exact, [=](Device d) { return rand({7}, on(d, kFloat64)); }},
      {"uniform_f32", Match::Exact,
       [=](Device d) { return filled(d, kFloat32, 11, [](Tensor& t) { uniform_(t, -0.3, 0.7); }); }},
      {"uniform_f64", Match::Exact,
       [=](Device d) { return filled(d, kFloat64, 9, [](Tensor& t) { uniform_(t, -1.7, 2.9); }); }},
      {"randint_i64", Match::Exact, [=](Device d) { return randint(-5, 1000, {13}, on(d, kInt64)); }},
      {"arange_f32", Match::Exact, [=](Device d) { return arange(-1.5, 2.0, 0.35, on(d)); }},
      {"arange_f64", Match::Exact, [=](Device d) { return arange(0.1, 3.0, 0.3, on(d, kFloat64)); }},
      {"dropout_mask_f32", Match::Exact, [=](Device d) { return dropout(ones({40}, on(d)), 0.3, true); }},
      {"randn_f32", Match::WithinOneFloatUlp, [=](Device d) { return randn({13}, on(d)); }},
      {"normal_f32", Match::WithinOneFloatUlp,
       [=](Device d) { return filled(d, kFloat32, 9, [](Tensor& t) { normal_(t, 0.5, 2.0); }); }},
  };
}

}  // namespace ember::golden
