// Named tensors in an Example: field access, default_collate stacking them by name, and the
// DataLoader's device option moving them.
#include <gtest/gtest.h>

#include "ember/ember.h"
#include "support/emulated_cuda.h"
#include "support/expect.h"

using namespace ember;
using namespace ember::data;

namespace {

// Example i: input_ids [i, i+1, i+2], mask [1, 1, 0], labels i % 2, no data or target.
Example token_example(int64_t i) {
  Example e;
  e.set_field("input_ids", from_vector(std::vector<int64_t>{i, i + 1, i + 2}));
  e.set_field("attention_mask", from_vector(std::vector<int64_t>{1, 1, 0}));
  e.set_field("labels", scalar_tensor(i % 2, TensorOptions(kInt64)));
  e.text = "text " + std::to_string(i);
  return e;
}

class TokenRows : public Dataset {
 public:
  explicit TokenRows(size_t n) : n_(n) {}
  size_t size() const override { return n_; }
  Example get(size_t i) const override { return token_example(static_cast<int64_t>(i)); }

 private:
  size_t n_;
};

}  // namespace

TEST(ExampleFields, FieldSetFieldAndErrors) {
  Example e;
  EXPECT_FALSE(e.has_field("a"));
  EXPECT_THROW_LINE(e.field("a"), ValueError, "Example::field: no field 'a' (no fields)");
  e.set_field("a", scalar_tensor(1.0));
  e.set_field("b", scalar_tensor(2.0));
  e.set_field("a", scalar_tensor(3.0));  // replaces, keeps the position
  EXPECT_EQ(e.field_names(), (std::vector<std::string>{"a", "b"}));
  EXPECT_EQ(e.field("a").item<float>(), 3.0f);
  const Example& c = e;
  EXPECT_EQ(c.field("b").item<float>(), 2.0f);
  e.field("b") = scalar_tensor(5.0);
  EXPECT_EQ(c.field("b").item<float>(), 5.0f);
  EXPECT_THROW_LINE(c.field("x"), ValueError, "Example::field: no field 'x' (fields: a, b)");
  // data and target are not fields.
  e.data = zeros({1});
  EXPECT_FALSE(e.has_field("data"));
}

TEST(ExampleFields, DefaultCollateStacksFieldsByName) {
  Example a = token_example(0), b = token_example(5);
  // b lists the same names in another order: the batch follows example 0's order.
  b.fields = {b.fields[2], b.fields[0], b.fields[1]};
  const Batch batch = default_collate({a, b});
  EXPECT_FALSE(batch.data.defined());
  EXPECT_FALSE(batch.target.defined());
  EXPECT_TRUE(batch.text.empty());
  EXPECT_EQ(batch.field_names(), (std::vector<std::string>{"input_ids", "attention_mask", "labels"}));
  EXPECT_EQ(batch.field("input_ids").shape(), (Shape{2, 3}));
  EXPECT_EQ(batch.field("input_ids").to_vector<int64_t>(), (std::vector<int64_t>{0, 1, 2, 5, 6, 7}));
  EXPECT_EQ(batch.field("attention_mask").to_vector<int64_t>(), (std::vector<int64_t>{1, 1, 0, 1, 1, 0}));
  EXPECT_EQ(batch.field("labels").shape(), (Shape{2}));
  EXPECT_EQ(batch.field("labels").to_vector<int64_t>(), (std::vector<int64_t>{0, 1}));
  // Fields alongside data and target.
  a.data = zeros({2});
  b.data = ones({2});
  a.target = scalar_tensor(3, TensorOptions(kInt64));
  b.target = scalar_tensor(4, TensorOptions(kInt64));
  const Batch both = default_collate({a, b});
  EXPECT_EQ(both.data.to_vector<float>(), (std::vector<float>{0, 0, 1, 1}));
  EXPECT_EQ(both.target.to_vector<int64_t>(), (std::vector<int64_t>{3, 4}));
  EXPECT_EQ(both.field("labels").to_vector<int64_t>(), (std::vector<int64_t>{0, 1}));
}

TEST(ExampleFields, DefaultCollateRefusesMismatchedFields) {
  const Example a = token_example(0);
  Example missing = token_example(1);
  missing.fields.pop_back();
  EXPECT_THROW_LINE(default_collate({a, missing}), ValueError,
                    "default_collate: example 1 has fields (input_ids, attention_mask) but example 0 has "
                    "(input_ids, attention_mask, labels)");
  Example longer = token_example(1);
  longer.set_field("input_ids", from_vector(std::vector<int64_t>{1, 2, 3, 4}));
  EXPECT_THROW_LINE(default_collate({a, longer}), ShapeError,
                    "default_collate: example 1 has field 'input_ids' of shape [4] but example 0 has [3]");
  Example floaty = token_example(1);
  floaty.set_field("attention_mask", ones({3}));
  EXPECT_THROW_LINE(
      default_collate({a, floaty}), DTypeError,
      "default_collate: example 1 has field 'attention_mask' of dtype float32 but example 0 has int64");
  Example undefined = token_example(1);
  undefined.field("labels") = Tensor();
  EXPECT_THROW_LINE(default_collate({a, undefined}), ValueError,
                    "default_collate: example 1 has no field 'labels' but example 0 has");
  Example with_data = token_example(1);
  with_data.data = zeros({1});
  EXPECT_THROW_LINE(default_collate({a, with_data}), ValueError,
                    "default_collate: example 1 has data but example 0 has none");
  Example twice = token_example(0);
  twice.fields.push_back(twice.fields[0]);
  EXPECT_THROW_LINE(default_collate({twice}), ValueError,
                    "default_collate: example 0 has the field 'input_ids' twice");
  EXPECT_THROW_LINE(default_collate({Example{}}), ValueError,
                    "default_collate: example 0 has no data, target or field");
}

TEST(ExampleFields, DataLoaderBatchesFields) {
  DataLoaderOptions opts;
  opts.batch_size = 4;
  DataLoader loader(std::make_shared<TokenRows>(6), opts);
  std::vector<int64_t> labels;
  for (Batch& b : loader) {
    EXPECT_TRUE(b.field("input_ids").device().is_cpu());
    for (int64_t l : b.field("labels").to_vector<int64_t>()) labels.push_back(l);
  }
  EXPECT_EQ(labels, (std::vector<int64_t>{0, 1, 0, 1, 0, 1}));
}

TEST(ExampleFields, DeviceOptionMovesEveryField) {
  test::EmulatedCuda emu(2);
  for (bool prefetch : {true, false}) {
    for (bool custom_collate : {false, true}) {
      DataLoaderOptions opts;
      opts.batch_size = 4;
      opts.device = Device::cuda(1);
      opts.prefetch = prefetch;
      if (custom_collate) {  // as a tokenizing collate does: fields plus a target
        opts.collate = [](const std::vector<Example>& examples) {
          Batch b = default_collate(examples);
          b.target = b.field("labels");
          return b;
        };
      }
      DataLoader loader(std::make_shared<TokenRows>(6), opts);
      int64_t next = 0;
      for (Batch& b : loader) {
        ASSERT_EQ(b.fields.size(), 3u);
        for (const auto& [name, t] : b.fields) EXPECT_EQ(t.device(), Device::cuda(1)) << name;
        EXPECT_FALSE(b.data.defined());
        EXPECT_EQ(b.target.defined(), custom_collate);
        if (custom_collate) {
          EXPECT_EQ(b.target.device(), Device::cuda(1));
        }
        const std::vector<int64_t> ids = b.field("input_ids").cpu().to_vector<int64_t>();
        for (size_t r = 0; r < ids.size() / 3; ++r, ++next) EXPECT_EQ(ids[3 * r], next);
      }
      EXPECT_EQ(next, 6);
    }
  }
}

TEST(ExampleFields, ToMovesFieldsAndKeepsText) {
  test::EmulatedCuda emu(2);
  const Example e = token_example(3);
  const Example moved = e.to(Device::cuda(0));
  EXPECT_EQ(moved.text, "text 3");
  EXPECT_EQ(moved.field("input_ids").device(), Device::cuda(0));
  EXPECT_EQ(moved.field("input_ids").cpu().to_vector<int64_t>(), (std::vector<int64_t>{3, 4, 5}));
  EXPECT_FALSE(moved.data.defined());
}
