// nn::map_file: safetensors tensors on the file's own pages, copy-on-write. The same tensors and
// errors as load_file; writes copy pages and never reach the file; a file replaced by rename
// leaves the mapped tensors as they were; release_file_pages gives back only mapped pages.
// Bert and SentenceEncoder load in LoadMode::Map with the same results as in LoadMode::Read.
#include <gtest/gtest.h>

#include <cstring>
#include <string>

#include "ember/ember.h"
#include "support/expect.h"
#include "support/temp_dir.h"

using namespace ember;
using nn::models::Bert;
using nn::models::BertConfig;

namespace {

// One entry of each kind map_file treats differently: float32 read in place (large enough to
// hold whole pages), int64 in place, bool and float64 copies (bool's bytes are checked).
nn::StateDict mixed() {
  nn::StateDict d;
  d.insert("w", arange(0, 5000, 1, kFloat32).reshape({50, 100}));
  d.insert("ids", arange(0, 7, 1, kInt64));
  d.insert("mask", from_vector<bool>({true, false, true}, {3}));
  d.insert("d", from_vector<double>({0.5, -1.25}, {2}));
  return d;
}

bool same(const Tensor& a, const Tensor& b) {
  return a.dtype() == b.dtype() && a.shape() == b.shape() &&
         std::memcmp(a.contiguous().raw_data(), b.contiguous().raw_data(),
                     static_cast<size_t>(a.numel()) * itemsize(a.dtype())) == 0;
}

BertConfig tiny_config() {
  BertConfig c;
  c.vocab_size = 40, c.hidden_size = 16, c.num_hidden_layers = 2, c.num_attention_heads = 2;
  c.intermediate_size = 32, c.max_position_embeddings = 16;
  return c;
}

}  // namespace

TEST(MapFile, GivesLoadFilesTensorsAndMetadata) {
  test::TempDir dir;
  const std::string path = dir.path("m.safetensors");
  nn::save_file(mixed(), path, {{"format", "pt"}});
  const nn::SafetensorsContents loaded = nn::load_file_with_metadata(path);
  const nn::SafetensorsContents mapped = nn::map_file_with_metadata(path);
  EXPECT_EQ(mapped.metadata, loaded.metadata);
  ASSERT_EQ(mapped.tensors.size(), loaded.tensors.size());
  for (const auto& [name, t] : loaded.tensors) EXPECT_TRUE(same(mapped.tensors.at(name), t)) << name;
}

TEST(MapFile, WritesCopyPagesAndNeverReachTheFile) {
  test::TempDir dir;
  const std::string path = dir.path("m.safetensors");
  nn::save_file(mixed(), path);
  {
    nn::StateDict mapped = nn::map_file(path);
    Tensor w = mapped.at("w");
    fill_(w, 7.0f);
    w.data_ptr<float>()[3] = -1.0f;  // a raw write as well
    EXPECT_EQ(w.data_ptr<float>()[0], 7.0f);
    EXPECT_EQ(w.data_ptr<float>()[3], -1.0f);
    nn::StateDict again = nn::map_file(path);  // a second mapping sees the file, unchanged
    EXPECT_TRUE(same(again.at("w"), mixed().at("w")));
  }
  EXPECT_TRUE(same(nn::load_file(path).at("w"), mixed().at("w")));
}

TEST(MapFile, TensorsKeepTheirValuesWhenTheFileIsReplacedByRename) {
  test::TempDir dir;
  const std::string path = dir.path("m.safetensors");
  nn::save_file(mixed(), path);
  const Tensor w = nn::map_file(path).at("w");  // the mapping lives as long as the tensor
  nn::StateDict other;
  other.insert("w", full({50, 100}, 3.0f));
  nn::save_file(other, path);  // atomic: a new file renamed over the old one
  EXPECT_TRUE(same(w, mixed().at("w")));
  EXPECT_TRUE(same(nn::map_file(path).at("w"), other.at("w")));
}

TEST(MapFile, ErrorsAreLoadFilesNamingMapFile) {
  test::TempDir dir;
  EXPECT_THROW_MSG(nn::map_file(dir.path("missing.safetensors")), IOError,
                   "map_file: cannot open \"" + dir.path("missing.safetensors") + "\": No such file");
  EXPECT_THROW_MSG(nn::map_file(dir.path()), IOError,
                   "map_file: cannot open \"" + dir.path() + "\": is a directory");
  const std::string empty = dir.write("empty", "");
  EXPECT_THROW_MSG(nn::map_file(empty), IOError,
                   "map_file \"" + empty + "\": safetensors: truncated: 0 bytes");
  const std::string bad =
      dir.write("bad", std::string("\x10\0\0\0\0\0\0\0", 8) + "{\"a\":1}" + std::string(9, ' '));
  EXPECT_THROW_MSG(nn::map_file(bad), IOError,
                   "map_file \"" + bad + "\": safetensors: header entry \"a\" is not an object");
  // A BOOL byte other than 0 or 1 is refused as load_file refuses it (bool entries are copies).
  std::string bytes = nn::encode_safetensors(mixed());
  const size_t at = bytes.size() - 3;  // the bool entry's data: the last bytes (smallest items)
  ASSERT_EQ(bytes[at], 1);
  bytes[at] = 2;
  const std::string bool_file = dir.write("bool", bytes);
  EXPECT_THROW_MSG(nn::map_file(bool_file), IOError,
                   "map_file \"" + bool_file + "\": safetensors: tensor \"mask\" holds a BOOL byte");
}

TEST(MapFile, ReleasingPagesKeepsTheValuesAndTouchesNothingElse) {
  test::TempDir dir;
  const std::string path = dir.path("m.safetensors");
  nn::StateDict d;
  d.insert("big", arange(0, 65536, 1, kFloat32));  // 256 KiB: whole pages
  nn::save_file(d, path);
  const Tensor big = nn::map_file(path).at("big");
  EXPECT_EQ(big.data_ptr<float>()[65535], 65535.0f);  // read in
  EXPECT_TRUE(nn::release_file_pages(big));
  EXPECT_TRUE(same(big, d.at("big")));  // read from the file again
  // Written pages are the process's own copies: they keep the write.
  Tensor written = big;
  written.data_ptr<float>()[1] = -5.0f;
  EXPECT_TRUE(nn::release_file_pages(big));
  EXPECT_EQ(big.data_ptr<float>()[1], -5.0f);
  EXPECT_EQ(big.data_ptr<float>()[2], 2.0f);
  // Not on a mapping, not contiguous, too small for a whole page, undefined: nothing to give back.
  Tensor own = arange(0, 65536, 1, kFloat32);
  EXPECT_FALSE(nn::release_file_pages(own));
  EXPECT_EQ(own.data_ptr<float>()[65535], 65535.0f);
  EXPECT_FALSE(nn::release_file_pages(big.reshape({256, 256}).transpose(0, 1)));
  EXPECT_FALSE(nn::release_file_pages(big.narrow(0, 0, 16)));
  EXPECT_FALSE(nn::release_file_pages(Tensor()));
}

TEST(MapFile, BertMappedGivesReadsOutputsAndTrainsWithoutTouchingTheFile) {
  test::TempDir dir;
  manual_seed(3);
  Bert(tiny_config()).save_pretrained(dir.path("model"));
  const auto read = Bert::from_pretrained(dir.path("model"));
  const auto mapped = Bert::from_pretrained(dir.path("model"), std::nullopt, nn::LoadMode::Map);
  read->eval(), mapped->eval();
  const Tensor ids = from_vector<int64_t>({2, 5, 9, 11, 3, 0}, {2, 3});
  const Tensor mask = from_vector<int64_t>({1, 1, 1, 1, 1, 0}, {2, 3});
  EXPECT_TRUE(same(mapped->forward(ids, mask).last_hidden_state, read->forward(ids, mask).last_hidden_state));
  nn::pack_linear_weights(*mapped);  // gives the linear weights' pages back; same bits
  EXPECT_TRUE(same(mapped->forward(ids, mask).last_hidden_state, read->forward(ids, mask).last_hidden_state));
  // An optimizer step writes the mapped parameters (copied pages), never the file.
  const nn::StateDict before = nn::load_file(dir.path("model/model.safetensors"));
  mapped->train();
  nn::SGD sgd(mapped->parameters(), {0.1});
  const Tensor out = mapped->forward(ids, mask).last_hidden_state;
  sum(out * out).backward();
  sgd.step();
  const std::string key = "encoder.layer.0.intermediate.dense.weight";
  EXPECT_FALSE(same(mapped->state_dict().at(key), read->state_dict().at(key)));
  const nn::StateDict after = nn::load_file(dir.path("model/model.safetensors"));
  for (const auto& [name, t] : before) EXPECT_TRUE(same(after.at(name), t)) << name;
}
