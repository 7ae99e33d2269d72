// Safetensors checkpoints: bit-exact round trips, a file built byte by byte from the format's
// rules, every kind of malformed input, fuzzed bytes, and atomic saves.
#include <gtest/gtest.h>

#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <csignal>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <random>

#include "support/emulated_cuda.h"
#include "support/expect.h"

using namespace ember;
namespace fs = std::filesystem;

namespace {

// A fresh directory, removed with everything in it at the end of the test.
class TempDir {
 public:
  TempDir() {
    std::string tmpl = (fs::temp_directory_path() / "ember-st-XXXXXX").string();
    if (!::mkdtemp(tmpl.data())) throw std::runtime_error("mkdtemp failed");
    path_ = tmpl;
  }
  ~TempDir() {
    std::error_code ec;
    fs::remove_all(path_, ec);
  }
  std::string file(const std::string& name) const { return (path_ / name).string(); }
  std::vector<std::string> entries() const {
    std::vector<std::string> out;
    for (const auto& e : fs::directory_iterator(path_)) out.push_back(e.path().filename().string());
    std::sort(out.begin(), out.end());
    return out;
  }

 private:
  fs::path path_;
};

std::string read_bytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}
void write_bytes(const std::string& path, const std::string& bytes) {
  std::ofstream(path, std::ios::binary) << bytes;
}

// The raw bytes of a tensor's values (for bit-exact comparisons, NaN and -0.0 included).
std::string raw(const Tensor& t) {
  const Tensor host = t.cpu().contiguous();
  return std::string(static_cast<const char*>(host.raw_data()),
                     static_cast<size_t>(host.numel()) * itemsize(host.dtype()));
}

void put_le(std::string& out, uint64_t v, int bytes) {
  for (int i = 0; i < bytes; ++i) out += static_cast<char>((v >> (8 * i)) & 0xFF);
}
void put_f32(std::string& out, float f) {
  uint32_t u;
  std::memcpy(&u, &f, 4);
  put_le(out, u, 4);
}

// A file: the header's length, the header, the data.
std::string file_bytes(const std::string& header, const std::string& data) {
  std::string out;
  put_le(out, header.size(), 8);
  return out + header + data;
}

nn::StateDict mixed_dict() {
  const float special[] = {
      1.5f,   -0.0f, std::numeric_limits<float>::quiet_NaN(), std::numeric_limits<float>::infinity(),
      1e-45f, -3.25f};
  return nn::StateDict{
      {"conv1.weight", from_vector(std::vector<float>(special, special + 6), {2, 3})},
      {"wide", tensor({0.1, -1e300, 5e-324}, kFloat64)},
      {"counter", scalar_tensor(42, kInt64)},
      {"bytes", from_vector(std::vector<uint8_t>{0, 7, 255})},
      {"token_ids", from_vector(std::vector<int32_t>{INT32_MIN, -1, 0, 7, INT32_MAX})},  // "I32"
      {"mask", from_vector(std::vector<uint8_t>{1, 0, 1, 1}, {2, 2}, TensorOptions(kBool))},
      {"empty", zeros({0, 3})},
      {"strided", arange(6, kFloat32).reshape({2, 3}).t()},
  };
}

}  // namespace

TEST(Safetensors, FileRoundTripIsBitExact) {
  TempDir dir;
  const nn::StateDict sd = mixed_dict();
  const nn::Metadata md{{"format", "pt"}, {"note", "quote \" and \\ and \n"}};
  nn::save_file(sd, dir.file("a.safetensors"), md);
  const nn::SafetensorsContents back = nn::load_file_with_metadata(dir.file("a.safetensors"));
  EXPECT_EQ(back.metadata, md);
  ASSERT_EQ(back.tensors.size(), sd.size());
  for (const auto& [k, v] : sd) {
    const Tensor& t = back.tensors.at(k);
    EXPECT_EQ(t.dtype(), v.dtype()) << k;
    EXPECT_EQ(t.shape(), v.shape()) << k;
    EXPECT_EQ(t.device(), Device::cpu());
    EXPECT_EQ(raw(t), raw(v)) << k;
  }
  EXPECT_EQ(dir.entries(), std::vector<std::string>{"a.safetensors"});  // no temporary left
}

// The temporary file behind the atomic save is private (0600); the checkpoint is not.
TEST(Safetensors, SavedFileGetsTheUsualModeUnderTheUmask) {
  TempDir dir;
  const mode_t old_mask = ::umask(022);
  nn::save_file(mixed_dict(), dir.file("m.safetensors"));
  ::umask(old_mask);
  struct stat st {};
  ASSERT_EQ(::stat(dir.file("m.safetensors").c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0644u);
}

TEST(Safetensors, LayoutFollowsTheFormat) {
  const std::string bytes = nn::encode_safetensors(
      nn::StateDict{{"b", from_vector(std::vector<uint8_t>{9})}, {"a", tensor({1.0}, kFloat64)}});
  uint64_t n = 0;
  for (int i = 7; i >= 0; --i) n = (n << 8) | static_cast<unsigned char>(bytes[static_cast<size_t>(i)]);
  EXPECT_EQ(n % 8, 0u);  // padded with spaces, so the data starts aligned
  EXPECT_EQ(bytes.size(), 8 + n + 9);
  // Larger elements first (alignment), then insertion order; spaces pad to 8 bytes.
  std::string header = R"({"a":{"dtype":"F64","shape":[1],"data_offsets":[0,8]},)"
                       R"("b":{"dtype":"U8","shape":[1],"data_offsets":[8,9]}})";
  header.append((8 - header.size() % 8) % 8, ' ');
  EXPECT_EQ(bytes.substr(8, static_cast<size_t>(n)), header);
  EXPECT_EQ(static_cast<unsigned char>(bytes.back()), 9);
}

TEST(Safetensors, DecodesAFileBuiltByteByByte) {
  // What the reference writer produces for {"x": float32 [2, 2], "n": int64 []} with metadata
  // (key order in the header is free; readers must not depend on it).
  const std::string header =
      R"({"__metadata__":{"format":"pt"},"x":{"dtype":"F32","shape":[2,2],"data_offsets":[8,24]},)"
      R"("n":{"dtype":"I64","shape":[],"data_offsets":[0,8]}}  )";
  std::string data;
  put_le(data, static_cast<uint64_t>(-5), 8);
  for (float f : {1.0f, -2.5f, 0.125f, 3e38f}) put_f32(data, f);
  const nn::SafetensorsContents c = nn::decode_safetensors(file_bytes(header, data));
  EXPECT_EQ(c.metadata.at("format"), "pt");
  EXPECT_EQ(c.tensors.keys(), (std::vector<std::string>{"x", "n"}));
  EXPECT_TRUE(ember::test::values_near(c.tensors.at("x"), {1.0, -2.5, 0.125, 3e38}, {2, 2}, 1e-7));
  EXPECT_EQ(c.tensors.at("x").dtype(), kFloat32);
  EXPECT_EQ(c.tensors.at("n").item<int64_t>(), -5);
  EXPECT_EQ(c.tensors.at("n").dim(), 0);
  // Escaped names decode to UTF-8.
  const std::string escaped = R"({"caf\u00e9 \ud83d\ude00":{"dtype":"U8","shape":[1],"data_offsets":[0,1]}})";
  EXPECT_EQ(nn::decode_safetensors(file_bytes(escaped, "\x01")).tensors.keys(),
            std::vector<std::string>{"caf\xc3\xa9 \xf0\x9f\x98\x80"});
}

TEST(Safetensors, ReadsTheReferenceImplementationsBytes) {
  // Written by safetensors 0.8.0's safetensors.torch.save_file({"fc.weight": [[1, -2.5],
  // [0.125, 3e38]] float32, "steps": [-3, 4] int64, "mask": [True, False, True]},
  // metadata={"format": "pt"}), as hex.
  const std::string hex =
      "d8000000000000007b225f5f6d657461646174615f5f223a7b22666f726d6174223a227074227d2c227374657073223a"
      "7b226474797065223a22493634222c227368617065223a5b325d2c22646174615f6f666673657473223a5b302c31365d"
      "7d2c2266632e776569676874223a7b226474797065223a22463332222c227368617065223a5b322c325d2c2264617461"
      "5f6f666673657473223a5b31362c33325d7d2c226d61736b223a7b226474797065223a22424f4f4c222c227368617065"
      "223a5b335d2c22646174615f6f666673657473223a5b33322c33355d7d7d2020fdffffffffffffff0400000000000000"
      "0000803f000020c00000003ee6b1617f010001";
  std::string bytes;
  for (size_t i = 0; i < hex.size(); i += 2)
    bytes += static_cast<char>(std::stoi(hex.substr(i, 2), nullptr, 16));
  const nn::SafetensorsContents c = nn::decode_safetensors(bytes);
  EXPECT_EQ(c.metadata, (nn::Metadata{{"format", "pt"}}));
  EXPECT_EQ(c.tensors.keys(), (std::vector<std::string>{"steps", "fc.weight", "mask"}));
  EXPECT_EQ(c.tensors.at("fc.weight").to_vector<float>(), (std::vector<float>{1, -2.5f, 0.125f, 3e38f}));
  EXPECT_EQ(c.tensors.at("fc.weight").shape(), (Shape{2, 2}));
  EXPECT_EQ(c.tensors.at("steps").to_vector<int64_t>(), (std::vector<int64_t>{-3, 4}));
  EXPECT_EQ(c.tensors.at("mask").to_vector<bool>(), (std::vector<bool>{true, false, true}));
  EXPECT_EQ(c.tensors.at("mask").dtype(), kBool);
  // Ember follows the same layout rules: rewriting what it read gives the same bytes.
  EXPECT_EQ(nn::encode_safetensors(c.tensors, c.metadata), bytes);
}

TEST(Safetensors, LoadsOntoAChosenDevice) {
  ember::test::EmulatedCuda emu(2);
  TempDir dir;
  nn::StateDict sd{{"w", tensor({1, 2, 3}, Device::cuda(0))}};
  nn::save_file(sd, dir.file("w.safetensors"));
  const nn::StateDict back = nn::load_file(dir.file("w.safetensors"), Device::cuda(1));
  EXPECT_EQ(back.at("w").device(), Device::cuda(1));
  EXPECT_EQ(raw(back.at("w")), raw(sd.at("w")));
}

TEST(Safetensors, ModuleSaveAndLoad) {
  TempDir dir;
  manual_seed(1);
  nn::Sequential a{std::make_shared<nn::Linear>(3, 2), std::make_shared<nn::BatchNorm2d>(2)};
  manual_seed(2);
  nn::Sequential b{std::make_shared<nn::Linear>(3, 2), std::make_shared<nn::BatchNorm2d>(2)};
  nn::save(a, dir.file("m.safetensors"));
  nn::load(b, dir.file("m.safetensors"));
  const nn::StateDict sa = a.state_dict(), sb = b.state_dict();
  for (const auto& [k, v] : sa) EXPECT_EQ(raw(sb.at(k)), raw(v)) << k;
  EXPECT_EQ(sb.at("1.num_batches_tracked").dtype(), kInt64);
}

TEST(Safetensors, MalformedFilesNameTheProblem) {
  const std::string ok_entry = R"("a":{"dtype":"F32","shape":[2],"data_offsets":[0,8]})";
  const std::string eight(8, '\0');
  struct Case {
    std::string bytes, message;
  };
  std::string huge;
  put_le(huge, 1000, 8);
  huge += "{}";
  const std::vector<Case> cases = {
      {"", "safetensors: truncated: 0 bytes"},
      {std::string("\x05\x00\x00", 3), "safetensors: truncated: 3 bytes"},
      {huge, "safetensors: header length 1000 is larger than the file (10 bytes)"},
      {file_bytes("{\"a\":", ""), "safetensors: bad JSON header: invalid JSON at byte 5"},
      {file_bytes("[1, 2]", ""), "safetensors: the header does not start with '{'"},
      {file_bytes(" {}", ""), "safetensors: the header does not start with '{'"},
      {file_bytes("{" + ok_entry + "}", "1234"),
       "safetensors: tensor \"a\" has data_offsets [0, 8] out of range for a data section of 4 bytes"},
      {file_bytes(R"({"a":{"dtype":"F32","shape":[3],"data_offsets":[0,8]}})", eight),
       "safetensors: tensor \"a\" of shape [3] and dtype F32 does not match its data_offsets [0, 8]"},
      {file_bytes(
           R"({"a":{"dtype":"F32","shape":[2],"data_offsets":[0,8]},"b":{"dtype":"F32","shape":[1],"data_offsets":[4,8]}})",
           eight),
       "safetensors: the data of tensors \"a\" and \"b\" overlap"},
      {file_bytes(R"({"a":{"dtype":"Q7","shape":[1],"data_offsets":[0,1]}})", "x"),
       "safetensors: tensor \"a\" has unknown dtype \"Q7\""},
      {file_bytes(R"({"a":{"dtype":"F32","shape":[-1],"data_offsets":[0,0]}})", ""),
       "safetensors: tensor \"a\" has an invalid shape"},
      {file_bytes(R"({"a":{"dtype":"F32","shape":[2.5],"data_offsets":[0,0]}})", ""),
       "safetensors: tensor \"a\" has an invalid shape"},
      {file_bytes(R"({"a":{"dtype":"U8","shape":[4294967296,4294967296,4294967296],"data_offsets":[0,0]}})",
                  ""),
       "safetensors: tensor \"a\" has a shape too large"},
      {file_bytes(R"({"a":{"dtype":"F32","shape":[1]}})", ""),
       "safetensors: tensor \"a\" needs a string dtype"},
      {file_bytes(R"({"a":{"dtype":"F32","shape":[0],"data_offsets":[0]}})", ""),
       "safetensors: tensor \"a\" needs data_offsets [begin, end]"},
      {file_bytes(R"({"a":{"dtype":"F32","shape":[0],"data_offsets":[4,0]}})", "1234"),
       "safetensors: tensor \"a\" has data_offsets [4, 0] out of range"},
      {file_bytes(R"({"a":3})", ""), "safetensors: header entry \"a\" is not an object"},
      {file_bytes(R"({"__metadata__":{"k":1}})", ""), "safetensors: metadata \"k\" is not a string"},
      {file_bytes(R"({"__metadata__":[]})", ""), "safetensors: \"__metadata__\" must be an object"},
      {file_bytes("{" + ok_entry + "," + ok_entry + "}", eight), "safetensors: the header names \"a\" twice"},
      {file_bytes(R"({"m":{"dtype":"BOOL","shape":[2],"data_offsets":[0,2]}})", "\x01\x02"),
       "safetensors: tensor \"m\" holds a BOOL byte other than 0 or 1"},
      {file_bytes("{}x", ""),
       "safetensors: bad JSON header: invalid JSON at byte 2: unexpected text after the value"},
      {file_bytes("{\"a\":" + std::string(100, '[') + std::string(100, ']') + "}", ""),
       "safetensors: bad JSON header: invalid JSON at byte 69: nesting is too deep"},
      {file_bytes("{\"a\x01\":1}", ""),
       "safetensors: bad JSON header: invalid JSON at byte 3: control character"},
      {file_bytes(R"({"\ud800":1})", ""),
       "safetensors: bad JSON header: invalid JSON at byte 8: unpaired surrogate"},
  };
  for (const Case& c : cases) EXPECT_THROW_MSG(nn::decode_safetensors(c.bytes), IOError, c.message);
}

// F16 and BF16 entries decode to float32 exactly (every such value is a float32): normal
// and subnormal values, the extremes, infinities, NaN payloads and -0, checked bit by bit.
TEST(Safetensors, HalfPrecisionEntriesDecodeToFloat32Exactly) {
  auto decode = [](const char* dt, const std::vector<uint16_t>& halves) {
    std::string data;
    for (uint16_t h : halves) data += static_cast<char>(h & 0xFF), data += static_cast<char>(h >> 8);
    const std::string header = std::string(R"({"h":{"dtype":")") + dt + R"(","shape":[)" +
                               std::to_string(halves.size()) + R"(],"data_offsets":[0,)" +
                               std::to_string(data.size()) + "]}}";
    const Tensor t = nn::decode_safetensors(file_bytes(header, data)).tensors.at("h");
    EXPECT_EQ(t.dtype(), kFloat32);
    std::vector<uint32_t> bits(static_cast<size_t>(t.numel()));
    std::memcpy(bits.data(), t.data_ptr<float>(), bits.size() * 4);
    return bits;
  };
  // 1, -2, 65504 (the largest half), 2^-24 (the smallest subnormal), 1023 * 2^-24 (the largest
  // subnormal), 2^-14 (the smallest normal), 1/3 rounded, +inf, -inf, -0, a quiet NaN, a
  // signalling NaN with payload 1.
  EXPECT_EQ(decode("F16", {0x3C00, 0xC000, 0x7BFF, 0x0001, 0x03FF, 0x0400, 0x3555, 0x7C00, 0xFC00, 0x8000,
                           0x7E00, 0x7C01}),
            (std::vector<uint32_t>{0x3F800000, 0xC0000000, 0x477FE000, 0x33800000, 0x387FC000, 0x38800000,
                                   0x3EAAA000, 0x7F800000, 0xFF800000, 0x80000000, 0x7FC00000, 0x7F802000}));
  // The same values as numbers, against ldexp.
  const Tensor f16 =
      nn::decode_safetensors(file_bytes(R"({"h":{"dtype":"F16","shape":[3],"data_offsets":[0,6]}})",
                                        std::string("\x01\x00\xff\x03\x00\x80", 6)))
          .tensors.at("h");
  EXPECT_EQ(f16.to_vector<double>(),
            (std::vector<double>{std::ldexp(1.0, -24), std::ldexp(1023.0, -24), -0.0}));
  EXPECT_TRUE(std::signbit(f16.to_vector<double>()[2]));
  // bfloat16 is float32's upper half: 1, -3, the largest, the smallest subnormal (2^-133),
  // +inf, -inf, -0, NaN.
  EXPECT_EQ(decode("BF16", {0x3F80, 0xC040, 0x7F7F, 0x0001, 0x7F80, 0xFF80, 0x8000, 0x7FC1}),
            (std::vector<uint32_t>{0x3F800000, 0xC0400000, 0x7F7F0000, 0x00010000, 0x7F800000, 0xFF800000,
                                   0x80000000, 0x7FC10000}));
  // A half entry's data_offsets count 2 bytes an element.
  EXPECT_THROW_MSG(
      nn::decode_safetensors(
          file_bytes(R"({"h":{"dtype":"BF16","shape":[2],"data_offsets":[0,8]}})", "abcdefgh")),
      IOError,
      "safetensors: tensor \"h\" of shape [2] and dtype BF16 does not match its data_offsets [0, 8]");
  // Onto another device, converted first.
  {
    test::EmulatedCuda cuda(1);
    const Tensor t =
        nn::decode_safetensors(file_bytes(R"({"h":{"dtype":"BF16","shape":[1],"data_offsets":[0,2]}})",
                                          std::string("\x80\x3f", 2)),
                               Device::cuda(0))
            .tensors.at("h");
    EXPECT_EQ(t.device(), Device::cuda(0));
    EXPECT_EQ(t.cpu().to_vector<float>(), std::vector<float>{1.0f});
  }
}

TEST(Safetensors, OtherUnsupportedDTypesAreDTypeErrors) {
  EXPECT_THROW_MSG(
      nn::decode_safetensors(file_bytes(R"({"i":{"dtype":"I16","shape":[2],"data_offsets":[0,4]}})", "abcd")),
      DTypeError, "safetensors: tensor \"i\" has dtype I16, which Ember does not support");
  // I32 is read, little-endian as the format says.
  const Tensor i32 =
      nn::decode_safetensors(file_bytes(R"({"i":{"dtype":"I32","shape":[1],"data_offsets":[0,4]}})",
                                        std::string("\x01\x02\x00\x80", 4)))
          .tensors.at("i");
  EXPECT_EQ(i32.dtype(), kInt32);
  EXPECT_EQ(i32.to_vector<int64_t>(), std::vector<int64_t>{-2147483135} /* 0x80000201 */);
}

TEST(Safetensors, FileErrorsNameThePath) {
  TempDir dir;
  EXPECT_THROW_MSG(nn::load_file(dir.file("missing.safetensors")), IOError,
                   "load_file: cannot open \"" + dir.file("missing.safetensors") + "\": No such file");
  EXPECT_THROW_LINE(nn::load_file(dir.file("")), IOError,
                    "load_file: cannot open \"" + dir.file("") + "\": is a directory");
  write_bytes(dir.file("short"), "abc");
  EXPECT_THROW_MSG(nn::load_file(dir.file("short")), IOError,
                   "load_file \"" + dir.file("short") + "\": safetensors: truncated: 3 bytes");
  EXPECT_THROW_MSG(nn::save_file(nn::StateDict{{"x", Tensor()}}, dir.file("u")), ValueError,
                   "encode_safetensors: \"x\" is an undefined tensor");
  EXPECT_THROW_MSG(nn::save_file(nn::StateDict{{"__metadata__", zeros({1})}}, dir.file("u")), ValueError,
                   "encode_safetensors: \"__metadata__\" is reserved");
  EXPECT_THROW_MSG(nn::save_file(mixed_dict(), dir.file("no/such/dir/x.safetensors")), IOError,
                   "save_file: cannot create a temporary file next to");
}

TEST(Safetensors, FailedSaveKeepsThePreviousFile) {
  TempDir dir;
  const std::string path = dir.file("ckpt.safetensors");
  nn::save_file(nn::StateDict{{"old", tensor({1, 2}, kFloat32)}}, path);
  const std::string old_bytes = read_bytes(path);

  // The target is a directory: refused before anything is written.
  fs::create_directory(dir.file("taken"));
  EXPECT_THROW_LINE(
      nn::save_file(mixed_dict(), dir.file("taken")), IOError,
      "save_file: \"" + dir.file("taken") + "\" exists and is not a regular file; refusing to replace it");

  // The disk "fills up" mid-write: the file size limit makes write() fail with EFBIG.
  rlimit previous{};
  ASSERT_EQ(::getrlimit(RLIMIT_FSIZE, &previous), 0);
  auto old_handler = std::signal(SIGXFSZ, SIG_IGN);
  rlimit small = previous;
  small.rlim_cur = 4096;
  ASSERT_EQ(::setrlimit(RLIMIT_FSIZE, &small), 0);
  bool threw = false;
  try {
    nn::save_file(nn::StateDict{{"big", zeros({10000})}}, path);
  } catch (const IOError& e) {
    threw = true;
    EXPECT_EQ(
        std::string(e.what()).rfind("save_file: writing failed for \"" + path + "\": File too large", 0), 0u)
        << e.what();
  }
  ::setrlimit(RLIMIT_FSIZE, &previous);
  std::signal(SIGXFSZ, old_handler);
  EXPECT_TRUE(threw);
  EXPECT_EQ(read_bytes(path), old_bytes);
  EXPECT_EQ(nn::load_file(path).at("old").to_vector<float>(), (std::vector<float>{1, 2}));
  EXPECT_EQ(dir.entries(), (std::vector<std::string>{"ckpt.safetensors", "taken"}));  // no temporaries

  // A successful save replaces it.
  nn::save_file(nn::StateDict{{"new", tensor({3}, kFloat32)}}, path);
  EXPECT_EQ(nn::load_file(path).keys(), std::vector<std::string>{"new"});
}

TEST(Safetensors, FuzzedBytesNeverCrash) {
  const std::string valid = nn::encode_safetensors(mixed_dict(), {{"format", "pt"}});
  std::mt19937 rng(1234);
  int decoded = 0, rejected = 0;
  for (int i = 0; i < 3000; ++i) {
    std::string b = valid;
    const int kind = static_cast<int>(rng() % 4);
    if (kind == 0) {  // flip a few bytes anywhere
      for (int k = 0; k < 1 + static_cast<int>(rng() % 4); ++k)
        b[rng() % b.size()] = static_cast<char>(rng());
    } else if (kind == 1) {  // truncate
      b.resize(rng() % b.size());
    } else if (kind == 2) {  // corrupt the header text only
      b[8 + rng() % (b.size() - 8) % 200] = "{}[]\":,0123456789e-.\\ u"[rng() % 24];
    } else {  // a random header length
      for (int k = 0; k < 8; ++k) b[static_cast<size_t>(k)] = static_cast<char>(k < 2 ? rng() : 0);
    }
    try {
      nn::decode_safetensors(b);
      ++decoded;
    } catch (const IOError&) {
      ++rejected;
    } catch (const DTypeError&) {
      ++rejected;
    }
  }
  EXPECT_GT(rejected, 1000);
  EXPECT_GT(decoded, 0);  // flips inside tensor data leave a valid file
}

// Files the reference implementation rejects are rejected here too.
TEST(Safetensors, AsStrictAsTheReferenceImplementation) {
  const std::string eight(8, '\0');
  struct Case {
    std::string bytes, message;
  };
  const std::vector<Case> cases = {
      // A gap between two tensors, before the first, and bytes after the last.
      {file_bytes(
           R"({"a":{"dtype":"F32","shape":[1],"data_offsets":[0,4]},"b":{"dtype":"U8","shape":[2],"data_offsets":[6,8]}})",
           eight),
       "safetensors: 2 bytes of the data section before tensor \"b\" belong to no tensor"},
      {file_bytes(R"({"a":{"dtype":"F32","shape":[1],"data_offsets":[4,8]}})", eight),
       "safetensors: 4 bytes of the data section before tensor \"a\" belong to no tensor"},
      {file_bytes(R"({"a":{"dtype":"F32","shape":[1],"data_offsets":[0,4]}})", eight),
       "safetensors: 4 trailing bytes after the last tensor's data"},
      {file_bytes("{}", "x"), "safetensors: 1 trailing bytes after the last tensor's data"},
      // Names and metadata must be UTF-8 (the header is JSON text).
      {file_bytes("{\"\xff\":{\"dtype\":\"U8\",\"shape\":[0],\"data_offsets\":[0,0]}}", ""),
       "safetensors: bad JSON header: invalid JSON at byte 2: invalid UTF-8"},
      {file_bytes("{\"__metadata__\":{\"k\":\"\xc0\xaf\"}}", ""),
       "safetensors: bad JSON header: invalid JSON at byte 22: invalid UTF-8"},
      {file_bytes("{\"\xed\xa0\x80\":1}", ""),
       "safetensors: bad JSON header: invalid JSON at byte 2: invalid UTF-8"},
      // [0, 2^62] of F32: empty, but its strides do not fit in int64 bytes.
      {file_bytes(R"({"a":{"dtype":"F32","shape":[0,4611686018427387904],"data_offsets":[0,0]}})", ""),
       "safetensors: tensor \"a\" has a shape too large to address: [0, 4611686018427387904] of F32"},
      {file_bytes(R"({"a":{"dtype":"U8","shape":[9223372036854775808],"data_offsets":[0,0]}})", ""),
       "safetensors: tensor \"a\" has an invalid shape"},
  };
  for (const Case& c : cases) EXPECT_THROW_MSG(nn::decode_safetensors(c.bytes), IOError, c.message);
  // A zero-size tensor inside another's data is an overlap, as in the reference.
  EXPECT_THROW_MSG(
      nn::decode_safetensors(file_bytes(
          R"({"z":{"dtype":"F32","shape":[0],"data_offsets":[4,4]},"a":{"dtype":"F32","shape":[2],"data_offsets":[0,8]}})",
          eight)),
      IOError, "safetensors: the data of tensors \"a\" and \"z\" overlap");
  // At a boundary it is fine; valid UTF-8 names load.
  const auto ok = nn::decode_safetensors(file_bytes(
      "{\"z\":{\"dtype\":\"F32\",\"shape\":[0],\"data_offsets\":[8,8]},\"\xc3\xa9\":{\"dtype\":\"F32\","
      "\"shape\":[2],\"data_offsets\":[0,8]}}",
      std::string("\0\0\x80\x3f\0\0\0\x40", 8)));
  EXPECT_EQ(ok.tensors.at("\xc3\xa9").to_vector<float>(), (std::vector<float>{1, 2}));
  EXPECT_EQ(ok.tensors.at("z").numel(), 0);
  // What Ember cannot read back, it does not write.
  EXPECT_THROW_MSG(nn::encode_safetensors(nn::StateDict{{"bad\xff", zeros({1})}}), ValueError,
                   "encode_safetensors: the name \"bad\xff\" is not valid UTF-8");
  EXPECT_THROW_MSG(nn::encode_safetensors(nn::StateDict{}, {{"k", "\xe2\x82"}}), ValueError,
                   "encode_safetensors: metadata \"k\" is not valid UTF-8");
}

TEST(Safetensors, FifosAreRefusedNotWaitedOn) {
  TempDir dir;
  const std::string fifo = dir.file("fifo");
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  EXPECT_THROW_LINE(
      nn::load_file(fifo), IOError,
      "load_file: cannot open \"" + fifo + "\": is not a regular file (a FIFO, socket or device)");
  EXPECT_THROW_LINE(nn::save_file(mixed_dict(), fifo), IOError,
                    "save_file: \"" + fifo + "\" exists and is not a regular file; refusing to replace it");
  EXPECT_THROW_MSG(nn::check_writable(fifo), IOError, "save_file: \"" + fifo + "\" exists and is not");
  struct stat st {};
  ASSERT_EQ(::lstat(fifo.c_str(), &st), 0);
  EXPECT_TRUE(S_ISFIFO(st.st_mode));  // still a FIFO
  EXPECT_EQ(dir.entries(), std::vector<std::string>{"fifo"});
}

TEST(Safetensors, SavingThroughASymlinkReplacesItsTarget) {
  TempDir dir;
  fs::create_directory(dir.file("real"));
  const std::string target = dir.file("real/ckpt.safetensors"), link = dir.file("link.safetensors");
  nn::save_file(nn::StateDict{{"old", tensor({1}, kFloat32)}}, target);
  fs::create_symlink("real/ckpt.safetensors", link);  // relative, as users make them
  nn::save_file(nn::StateDict{{"new", tensor({2}, kFloat32)}}, link);
  EXPECT_TRUE(fs::is_symlink(link));
  EXPECT_EQ(nn::load_file(target).keys(), std::vector<std::string>{"new"});
  EXPECT_EQ(nn::load_file(link).at("new").to_vector<float>(), std::vector<float>{2});
  EXPECT_EQ(dir.entries(), (std::vector<std::string>{"link.safetensors", "real"}));
  // A dangling symlink and a symlink to a directory are refused.
  fs::create_symlink("nowhere", dir.file("dangling"));
  EXPECT_THROW_LINE(nn::save_file(mixed_dict(), dir.file("dangling")), IOError,
                    "save_file: \"" + dir.file("dangling") + "\" is a dangling symlink");
  fs::create_symlink("real", dir.file("to-dir"));
  EXPECT_THROW_MSG(nn::save_file(mixed_dict(), dir.file("to-dir")), IOError,
                   "save_file: \"" + dir.file("to-dir") + "\" exists and is not a regular file");
}

TEST(Safetensors, ReadOnlyCheckpointsAreRefusedEvenForRoot) {
  TempDir dir;
  const std::string path = dir.file("frozen.safetensors");
  nn::save_file(nn::StateDict{{"keep", tensor({5}, kFloat32)}}, path);
  ASSERT_EQ(::chmod(path.c_str(), 0444), 0);
  EXPECT_THROW_LINE(
      nn::save_file(nn::StateDict{{"new", tensor({1}, kFloat32)}}, path), IOError,
      "save_file: \"" + path + "\" is read-only (its mode has no write bit); refusing to replace it");
  EXPECT_THROW_MSG(nn::check_writable(path), IOError, "save_file: \"" + path + "\" is read-only");
  EXPECT_EQ(nn::load_file(path).keys(), std::vector<std::string>{"keep"});
  ASSERT_EQ(::chmod(path.c_str(), 0644), 0);
  nn::check_writable(path);
  nn::save_file(nn::StateDict{{"new", tensor({1}, kFloat32)}}, path);
  EXPECT_EQ(nn::load_file(path).keys(), std::vector<std::string>{"new"});
  EXPECT_THROW_MSG(nn::check_writable(dir.file("missing/x")), IOError,
                   "save_file: cannot create a file next to \"" + dir.file("missing/x") + "\"");
  EXPECT_EQ(dir.entries(), std::vector<std::string>{"frozen.safetensors"});  // no probe left
}

TEST(Safetensors, StaleTemporariesOfKilledSavesAreRemoved) {
  TempDir dir;
  const std::string path = dir.file("ckpt.safetensors");
  // A pid that is not alive: a child that has exited and been reaped.
  const pid_t child = ::fork();
  if (child == 0) ::_exit(0);
  ASSERT_GT(child, 0);
  ::waitpid(child, nullptr, 0);
  const std::string dead = std::to_string(child), alive = std::to_string(::getpid());
  auto make = [&](const std::string& name, bool old) {
    write_bytes(dir.file(name), "partial");
    if (old) {
      const auto t = fs::last_write_time(dir.file(name)) - std::chrono::hours(2);
      fs::last_write_time(dir.file(name), t);
    }
  };
  make("ckpt.safetensors.tmp-" + dead + "-AbC123", true);    // stale: removed
  make("ckpt.safetensors.tmp-" + dead + "-XyZ789", false);   // recent: kept
  make("ckpt.safetensors.tmp-" + alive + "-QwE456", true);   // alive: kept
  make("ckpt.safetensors.tmp-" + dead + "-toolong1", true);  // not our pattern: kept
  make("other.safetensors.tmp-" + dead + "-AbC123", true);   // another file's: kept
  make("ckpt.safetensors.tmp-AbC123", true);                 // no pid: kept
  nn::save_file(nn::StateDict{{"w", tensor({1}, kFloat32)}}, path);
  // entries() is sorted; so is the expectation (the pids' digits decide their order).
  std::vector<std::string> kept{"ckpt.safetensors",
                                "ckpt.safetensors.tmp-" + alive + "-QwE456",
                                "ckpt.safetensors.tmp-" + dead + "-XyZ789",
                                "ckpt.safetensors.tmp-" + dead + "-toolong1",
                                "ckpt.safetensors.tmp-AbC123",
                                "other.safetensors.tmp-" + dead + "-AbC123"};
  std::sort(kept.begin(), kept.end());
  EXPECT_EQ(dir.entries(), kept);
}
