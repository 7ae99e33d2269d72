// The safetensors format (see nn/serialization.h): encoding, strict decoding and atomic
// files.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <unordered_set>

#include "ember/core/error.h"
#include "ember/core/ops/transfer.h"
#include "ember/nn/json.h"
#include "ember/nn/serialization.h"

namespace ember::nn {
namespace {

static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__,
              "safetensors data is little-endian; this host is not");

// The reference implementation's limit: a larger header is treated as corrupt.
constexpr uint64_t kMaxHeader = 100'000'000;

const char* st_name(DType t) {
  switch (t) {
    case DType::Float32: return "F32";
    case DType::Float64: return "F64";
    case DType::Int64: return "I64";
    case DType::UInt8: return "U8";
    case DType::Bool: return "BOOL";
  }
  return "?";
}

// The dtype of a header entry: supported, known but unsupported (DTypeError), or unknown
// (IOError: the file is not valid safetensors).
DType st_dtype(const std::string& s, const std::string& key) {
  if (s == "F32") return kFloat32;
  if (s == "F64") return kFloat64;
  if (s == "I64") return kInt64;
  if (s == "U8") return kUInt8;
  if (s == "BOOL") return kBool;
  if (s == "F16" || s == "BF16")
    raise<DTypeError>("safetensors: tensor \"", key, "\" has dtype ", s,
                      "; float16 and bfloat16 are not supported by Ember");
  static const char* const other[] = {"I8", "I16", "I32", "U16", "U32", "U64",
                                      "F8_E4M3", "F8_E5M2", "C64"};
  for (const char* o : other)
    if (s == o) raise<DTypeError>("safetensors: tensor \"", key, "\" has dtype ", s, ", which Ember does not support");
  raise<IOError>("safetensors: tensor \"", key, "\" has unknown dtype \"", s, "\"");
}

std::string shape_json(const Shape& shape) {
  std::string s = "[";
  for (size_t i = 0; i < shape.size(); ++i) s += (i ? "," : "") + std::to_string(shape[i]);
  return s + "]";
}

struct Entry {
  std::string name;
  DType dtype;
  Shape shape;
  uint64_t begin, end;
};

Entry parse_entry(const std::string& key, const json::Value& v, uint64_t data_size) {
  if (v.type != json::Value::Type::Object)
    raise<IOError>("safetensors: header entry \"", key, "\" is not an object");
  const json::Value* dtype = v.find("dtype");
  const json::Value* shape = v.find("shape");
  const json::Value* offsets = v.find("data_offsets");
  if (!dtype || dtype->type != json::Value::Type::String || !shape ||
      shape->type != json::Value::Type::Array || !offsets ||
      offsets->type != json::Value::Type::Array)
    raise<IOError>("safetensors: tensor \"", key,
                   "\" needs a string dtype and arrays shape and data_offsets");
  Entry e{key, st_dtype(dtype->text, key), {}, 0, 0};
  uint64_t numel = 1;
  for (const json::Value& d : shape->items) {
    uint64_t n = 0;
    if (!d.as_uint64(n) || n > (1ull << 62))
      raise<IOError>("safetensors: tensor \"", key, "\" has an invalid shape");
    if (n != 0 && numel > (1ull << 62) / n)
      raise<IOError>("safetensors: tensor \"", key, "\" has a shape too large to address");
    numel *= n;
    e.shape.push_back(static_cast<int64_t>(n));
  }
  if (e.shape.size() > 64) raise<IOError>("safetensors: tensor \"", key, "\" has too many dims");
  if (offsets->items.size() != 2 || !offsets->items[0].as_uint64(e.begin) ||
      !offsets->items[1].as_uint64(e.end))
    raise<IOError>("safetensors: tensor \"", key, "\" needs data_offsets [begin, end]");
  if (e.begin > e.end || e.end > data_size)
    raise<IOError>("safetensors: tensor \"", key, "\" has data_offsets [", e.begin, ", ", e.end,
                   "] out of range for a data section of ", data_size, " bytes");
  // numel <= data_size keeps the byte count below 8 * data_size: no overflow.
  if (numel > data_size || numel * itemsize(e.dtype) != e.end - e.begin)
    raise<IOError>("safetensors: tensor \"", key, "\" of shape ", shape_str(e.shape), " and dtype ",
                   dtype->text, " does not match its data_offsets [", e.begin, ", ", e.end,
                   "] (", e.end - e.begin, " bytes)");
  return e;
}

Metadata parse_metadata(const json::Value& v) {
  if (v.type != json::Value::Type::Object)
    raise<IOError>("safetensors: \"__metadata__\" must be an object of strings");
  Metadata out;
  for (const auto& m : v.members) {
    if (m.second.type != json::Value::Type::String)
      raise<IOError>("safetensors: metadata \"", m.first, "\" is not a string");
    out[m.first] = m.second.text;
  }
  return out;
}

uint64_t read_le64(const std::string& bytes) {
  uint64_t n = 0;
  for (int i = 7; i >= 0; --i) n = (n << 8) | static_cast<unsigned char>(bytes[static_cast<size_t>(i)]);
  return n;
}

[[noreturn]] void io_fail(const char* what, const std::string& path) {
  raise<IOError>(what, " \"", path, "\": ", std::strerror(errno));
}

// Writes all of bytes to fd (partial writes and interruptions retried).
bool write_all(int fd, const std::string& bytes) {
  size_t done = 0;
  while (done < bytes.size()) {
    const ssize_t n = ::write(fd, bytes.data() + done, bytes.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    done += static_cast<size_t>(n);
  }
  return true;
}

}  // namespace

std::string encode_safetensors(const StateDict& state, const Metadata& metadata) {
  // Larger elements first, so every tensor's data is aligned to its element size (the
  // header is padded to 8 bytes).
  std::vector<const StateDict::Item*> items;
  for (const auto& it : state) {
    if (!it.second.defined())
      raise<ValueError>("encode_safetensors: \"", it.first, "\" is an undefined tensor");
    if (it.first == "__metadata__")
      raise<ValueError>("encode_safetensors: \"__metadata__\" is reserved and cannot name a tensor");
    items.push_back(&it);
  }
  std::stable_sort(items.begin(), items.end(), [](const auto* a, const auto* b) {
    return itemsize(a->second.dtype()) > itemsize(b->second.dtype());
  });
  std::string header = "{";
  if (!metadata.empty()) {
    header += "\"__metadata__\":{";
    bool first = true;
    for (const auto& m : metadata) {
      header += (first ? "" : ",") + json::quote(m.first) + ":" + json::quote(m.second);
      first = false;
    }
    header += "}";
  }
  std::vector<Tensor> host;
  uint64_t offset = 0;
  for (const auto* it : items) {
    const Tensor t = ember::detail::transfer(it->second, Device::cpu());  // contiguous host copy
    const uint64_t n = static_cast<uint64_t>(t.numel()) * itemsize(t.dtype());
    header += (header.size() > 1 ? "," : "") + json::quote(it->first) + ":{\"dtype\":\"" +
              st_name(t.dtype()) + "\",\"shape\":" + shape_json(t.shape()) +
              ",\"data_offsets\":[" + std::to_string(offset) + "," + std::to_string(offset + n) + "]}";
    offset += n;
    host.push_back(t);
  }
  header += "}";
  header.append((8 - header.size() % 8) % 8, ' ');
  std::string out;
  out.reserve(8 + header.size() + offset);
  for (int i = 0; i < 8; ++i) out += static_cast<char>((static_cast<uint64_t>(header.size()) >> (8 * i)) & 0xFF);
  out += header;
  for (const Tensor& t : host)
    out.append(static_cast<const char*>(t.raw_data()), static_cast<size_t>(t.numel()) * itemsize(t.dtype()));
  return out;
}

SafetensorsContents decode_safetensors(const std::string& bytes, Device device) {
  if (bytes.size() < 8)
    raise<IOError>("safetensors: truncated: ", bytes.size(),
                   " bytes, too short for the 8-byte header length");
  const uint64_t n = read_le64(bytes);
  if (n > bytes.size() - 8)
    raise<IOError>("safetensors: header length ", n, " is larger than the file (", bytes.size(),
                   " bytes): truncated or not a safetensors file");
  if (n > kMaxHeader) raise<IOError>("safetensors: header length ", n, " exceeds the limit of ", kMaxHeader);
  json::Value header;
  try {
    header = json::parse(bytes.substr(8, static_cast<size_t>(n)));
  } catch (const IOError& e) {
    raise<IOError>("safetensors: bad JSON header: ", e.what());
  }
  if (header.type != json::Value::Type::Object)
    raise<IOError>("safetensors: the JSON header is not an object");

  const uint64_t data_size = bytes.size() - 8 - n;
  SafetensorsContents out;
  std::vector<Entry> entries;
  std::unordered_set<std::string> names;
  for (const auto& m : header.members) {
    if (!names.insert(m.first).second)
      raise<IOError>("safetensors: the header names \"", m.first, "\" twice");
    if (m.first == "__metadata__") {
      out.metadata = parse_metadata(m.second);
    } else {
      entries.push_back(parse_entry(m.first, m.second, data_size));
    }
  }
  std::vector<const Entry*> by_offset;
  for (const Entry& e : entries)
    if (e.end > e.begin) by_offset.push_back(&e);
  std::sort(by_offset.begin(), by_offset.end(),
            [](const Entry* a, const Entry* b) { return a->begin < b->begin; });
  for (size_t i = 1; i < by_offset.size(); ++i)
    if (by_offset[i]->begin < by_offset[i - 1]->end)
      raise<IOError>("safetensors: the data of tensors \"", by_offset[i - 1]->name, "\" and \"",
                     by_offset[i]->name, "\" overlap");

  const char* data = bytes.data() + 8 + n;
  for (const Entry& e : entries) {
    Tensor t = ember::detail::make_empty(e.shape, e.dtype, Device::cpu());
    const size_t size = static_cast<size_t>(e.end - e.begin);
    if (e.dtype == kBool)
      for (size_t i = 0; i < size; ++i)
        if (static_cast<unsigned char>(data[e.begin + i]) > 1)
          raise<IOError>("safetensors: tensor \"", e.name, "\" holds a BOOL byte other than 0 or 1");
    if (size) std::memcpy(t.raw_data(), data + e.begin, size);
    out.tensors.insert(e.name, device.is_cpu() ? t : t.to(device));
  }
  return out;
}

void save_file(const StateDict& state, const std::string& path, const Metadata& metadata) {
  const std::string bytes = encode_safetensors(state, metadata);  // fails before any file I/O
  std::string tmp = path + ".tmp-XXXXXX";
  const int fd = ::mkstemp(tmp.data());
  if (fd < 0) io_fail("save_file: cannot create a temporary file next to", path);
  // mkstemp creates the file 0600; a checkpoint gets the mode any new file would (0666 less
  // the umask), as it would without the temporary file.
  const mode_t mask = ::umask(0);
  ::umask(mask);
  (void)::fchmod(fd, static_cast<mode_t>(0666) & ~mask);
  auto abandon = [&](const char* what) {
    const int saved = errno;
    ::close(fd);
    ::unlink(tmp.c_str());
    errno = saved;
    io_fail(what, path);
  };
  if (!write_all(fd, bytes)) abandon("save_file: writing failed for");
  if (::fsync(fd) != 0) abandon("save_file: fsync failed for");
  if (::close(fd) != 0) {
    const int saved = errno;
    ::unlink(tmp.c_str());
    errno = saved;
    io_fail("save_file: closing failed for", path);
  }
  if (::rename(tmp.c_str(), path.c_str()) != 0) {
    const int saved = errno;
    ::unlink(tmp.c_str());
    errno = saved;
    io_fail("save_file: cannot replace", path);
  }
  // Make the rename itself durable; a directory that cannot be synced is not an error.
  const size_t slash = path.find_last_of('/');
  const std::string dir = slash == std::string::npos ? "." : (slash == 0 ? "/" : path.substr(0, slash));
  const int dfd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY);
  if (dfd >= 0) {
    (void)::fsync(dfd);
    ::close(dfd);
  }
}

SafetensorsContents load_file_with_metadata(const std::string& path, Device device) {
  const int fd = ::open(path.c_str(), O_RDONLY);
  if (fd < 0) io_fail("load_file: cannot open", path);
  std::string bytes;
  struct stat st {};
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    ::close(fd);
    raise<IOError>("load_file: \"", path, "\" is not a regular file");
  }
  char chunk[1 << 16];
  for (;;) {
    const ssize_t n = ::read(fd, chunk, sizeof chunk);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      const int saved = errno;
      ::close(fd);
      errno = saved;
      io_fail("load_file: reading failed for", path);
    }
    if (n == 0) break;
    bytes.append(chunk, static_cast<size_t>(n));
  }
  ::close(fd);
  try {
    return decode_safetensors(bytes, device);
  } catch (const IOError& e) {
    raise<IOError>("load_file \"", path, "\": ", e.what());
  }
}

StateDict load_file(const std::string& path, Device device) {
  return load_file_with_metadata(path, device).tensors;
}

void save(const Module& module, const std::string& path) { save_file(module.state_dict(), path); }

void load(Module& module, const std::string& path, bool strict) {
  module.load_state_dict(load_file(path), strict);
}

}  // namespace ember::nn
