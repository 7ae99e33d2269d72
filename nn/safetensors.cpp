// The safetensors format (see nn/serialization.h): encoding, strict decoding and atomic
// files.
#include <algorithm>
#include <cstring>
#include <unordered_set>

#include "ember/core/checked_math.h"
#include "ember/core/error.h"
#include "ember/core/io/file_io.h"
#include "ember/core/io/json.h"
#include "ember/core/io/utf8.h"
#include "ember/core/ops/blob.h"
#include "ember/core/ops/transfer.h"
#include "ember/nn/serialization.h"

namespace ember::nn {
namespace {

static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__,
              "safetensors data is little-endian; this host is not");

// The reference implementation's limit: a larger header is treated as corrupt.
constexpr uint64_t kMaxHeader = 100'000'000;

const char* st_name(DType t) {
  switch (t) {
    case DType::Float32:
      return "F32";
    case DType::Float64:
      return "F64";
    case DType::Int64:
      return "I64";
    case DType::UInt8:
      return "U8";
    case DType::Bool:
      return "BOOL";
    case DType::Int32:
      return "I32";
  }
  return "?";
}

// How an entry's values are stored in the file: Ember's dtype, or half precision that decodes
// to float32.
enum class Stored { Native, F16, BF16 };

struct StoredType {
  DType dtype;      // the decoded tensor's dtype
  Stored stored;    // the file's encoding
  size_t itemsize;  // bytes per element in the file
};

// The dtype of a header entry: supported, known but unsupported (DTypeError), or unknown
// (IOError: the file is not valid safetensors).
StoredType st_dtype(const std::string& s, const std::string& key) {
  for (DType t : {kFloat32, kFloat64, kInt64, kInt32, kUInt8, kBool})
    if (s == st_name(t)) return {t, Stored::Native, itemsize(t)};
  if (s == "F16") return {kFloat32, Stored::F16, 2};
  if (s == "BF16") return {kFloat32, Stored::BF16, 2};
  static const char* const other[] = {"I8", "I16", "U16", "U32", "U64", "F8_E4M3", "F8_E5M2", "C64"};
  for (const char* o : other)
    if (s == o)
      raise<DTypeError>("safetensors: tensor \"", key, "\" has dtype ", s, ", which Ember does not support");
  raise<IOError>("safetensors: tensor \"", key, "\" has unknown dtype \"", s, "\"");
}

float float_of_bits(uint32_t bits) {
  float f;
  std::memcpy(&f, &bits, sizeof f);
  return f;
}

// bfloat16 is float32's upper half.
float bf16_to_float(uint16_t h) { return float_of_bits(static_cast<uint32_t>(h) << 16); }

// IEEE binary16 to binary32, exactly: float32 has more exponent and mantissa bits, so
// subnormal halves become normal floats; infinities, NaN payloads and -0 are kept.
float f16_to_float(uint16_t h) {
  const uint32_t sign = static_cast<uint32_t>(h & 0x8000u) << 16;
  int exponent = (h >> 10) & 0x1F;
  uint32_t mantissa = h & 0x3FFu;
  if (exponent == 0x1F) return float_of_bits(sign | 0x7F800000u | (mantissa << 13));
  if (exponent == 0) {
    if (mantissa == 0) return float_of_bits(sign);
    // Subnormal: shift the leading 1 into the implicit bit, lowering the exponent as we go.
    exponent = 1;
    while (!(mantissa & 0x400u)) mantissa <<= 1, --exponent;
    mantissa &= 0x3FFu;
  }
  return float_of_bits(sign | (static_cast<uint32_t>(exponent + 127 - 15) << 23) | (mantissa << 13));
}

void decode_half(const char* src, size_t n, Stored stored, float* dst) {
  for (size_t i = 0; i < n; ++i) {
    const uint16_t h = static_cast<uint16_t>(static_cast<unsigned char>(src[2 * i]) |
                                             (static_cast<unsigned char>(src[2 * i + 1]) << 8));
    dst[i] = stored == Stored::F16 ? f16_to_float(h) : bf16_to_float(h);
  }
}

std::string shape_json(const Shape& shape) {
  std::string s = "[";
  for (size_t i = 0; i < shape.size(); ++i) s += (i ? "," : "") + std::to_string(shape[i]);
  return s + "]";
}

struct Entry {
  std::string name;
  StoredType type;
  Shape shape;
  uint64_t begin, end;
};

Entry parse_entry(const std::string& key, const io::json::Value& v, uint64_t data_size) {
  if (v.type != io::json::Value::Type::Object)
    raise<IOError>("safetensors: header entry \"", key, "\" is not an object");
  const io::json::Value* dtype = v.find("dtype");
  const io::json::Value* shape = v.find("shape");
  const io::json::Value* offsets = v.find("data_offsets");
  if (!dtype || dtype->type != io::json::Value::Type::String || !shape ||
      shape->type != io::json::Value::Type::Array || !offsets ||
      offsets->type != io::json::Value::Type::Array)
    raise<IOError>("safetensors: tensor \"", key,
                   "\" needs a string dtype and arrays shape and data_offsets");
  Entry e{key, st_dtype(dtype->text, key), {}, 0, 0};
  if (shape->items.size() > 64) raise<IOError>("safetensors: tensor \"", key, "\" has too many dims");
  for (const io::json::Value& d : shape->items) {
    uint64_t n = 0;
    if (!d.as_uint64(n) || n > static_cast<uint64_t>(INT64_MAX))
      raise<IOError>("safetensors: tensor \"", key, "\" has an invalid shape");
    e.shape.push_back(static_cast<int64_t>(n));
  }
  // The reference implementation refuses a shape whose byte count overflows; Ember also
  // refuses one whose strides would (a zero size does not make [0, 2^62] addressable).
  uint64_t nbytes = 0;
  try {
    nbytes = static_cast<uint64_t>(checked_nbytes(e.shape, e.type.itemsize, "safetensors"));
    checked_nbytes(e.shape, itemsize(e.type.dtype), "safetensors");  // the decoded tensor's
  } catch (const ValueError&) {
    raise<IOError>("safetensors: tensor \"", key, "\" has a shape too large to address: ", shape_str(e.shape),
                   " of ", dtype->text);
  }
  if (offsets->items.size() != 2 || !offsets->items[0].as_uint64(e.begin) ||
      !offsets->items[1].as_uint64(e.end))
    raise<IOError>("safetensors: tensor \"", key, "\" needs data_offsets [begin, end]");
  if (e.begin > e.end || e.end > data_size)
    raise<IOError>("safetensors: tensor \"", key, "\" has data_offsets [", e.begin, ", ", e.end,
                   "] out of range for a data section of ", data_size, " bytes");
  if (nbytes != e.end - e.begin)
    raise<IOError>("safetensors: tensor \"", key, "\" of shape ", shape_str(e.shape), " and dtype ",
                   dtype->text, " does not match its data_offsets [", e.begin, ", ", e.end, "] (",
                   e.end - e.begin, " bytes)");
  return e;
}

// As strict as the reference implementation: sorted by offsets, the tensors' data tile the
// data section exactly, from 0 to its end: no overlap, no gap, no trailing bytes (a gap or
// a tail could hide anything, and other readers refuse such files).
void check_layout(const std::vector<Entry>& entries, uint64_t data_size) {
  std::vector<const Entry*> by_offset;
  for (const Entry& e : entries) by_offset.push_back(&e);
  std::sort(by_offset.begin(), by_offset.end(), [](const Entry* a, const Entry* b) {
    return a->begin != b->begin ? a->begin < b->begin : a->end < b->end;
  });
  uint64_t at = 0;
  const Entry* previous = nullptr;
  for (const Entry* e : by_offset) {
    if (e->begin < at)
      raise<IOError>("safetensors: the data of tensors \"", previous->name, "\" and \"", e->name,
                     "\" overlap");
    if (e->begin > at)
      raise<IOError>("safetensors: ", e->begin - at, " bytes of the data section before tensor \"", e->name,
                     "\" belong to no tensor");
    at = e->end;
    previous = e;
  }
  if (at != data_size)
    raise<IOError>("safetensors: ", data_size - at, " trailing bytes after the last tensor's data");
}

Metadata parse_metadata(const io::json::Value& v) {
  if (v.type != io::json::Value::Type::Object)
    raise<IOError>("safetensors: \"__metadata__\" must be an object of strings");
  Metadata out;
  for (const auto& m : v.members) {
    if (m.second.type != io::json::Value::Type::String)
      raise<IOError>("safetensors: metadata \"", m.first, "\" is not a string");
    out[m.first] = m.second.text;
  }
  return out;
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
    if (!io::valid_utf8(it.first))
      raise<ValueError>("encode_safetensors: the name ", io::json::quote(it.first), " is not valid UTF-8");
    items.push_back(&it);
  }
  std::stable_sort(items.begin(), items.end(), [](const auto* a, const auto* b) {
    return itemsize(a->second.dtype()) > itemsize(b->second.dtype());
  });
  for (const auto& m : metadata)
    if (!io::valid_utf8(m.first) || !io::valid_utf8(m.second))
      raise<ValueError>("encode_safetensors: metadata ", io::json::quote(m.first), " is not valid UTF-8");
  std::string header = "{";
  if (!metadata.empty()) {
    header += "\"__metadata__\":{";
    bool first = true;
    for (const auto& m : metadata) {
      header += (first ? "" : ",") + io::json::quote(m.first) + ":" + io::json::quote(m.second);
      first = false;
    }
    header += "}";
  }
  std::vector<Tensor> host;
  uint64_t offset = 0;
  for (const auto* it : items) {
    const Tensor t = ember::detail::transfer(it->second, Device::cpu());  // contiguous host copy
    const uint64_t n = static_cast<uint64_t>(t.numel()) * itemsize(t.dtype());
    header += (header.size() > 1 ? "," : "") + io::json::quote(it->first) + ":{\"dtype\":\"" +
              st_name(t.dtype()) + "\",\"shape\":" + shape_json(t.shape()) + ",\"data_offsets\":[" +
              std::to_string(offset) + "," + std::to_string(offset + n) + "]}";
    offset += n;
    host.push_back(t);
  }
  header += "}";
  header.append((8 - header.size() % 8) % 8, ' ');
  std::string out;
  out.reserve(8 + header.size() + offset);
  for (int i = 0; i < 8; ++i)
    out += static_cast<char>((static_cast<uint64_t>(header.size()) >> (8 * i)) & 0xFF);
  out += header;
  for (const Tensor& t : host)
    out.append(static_cast<const char*>(t.raw_data()), static_cast<size_t>(t.numel()) * itemsize(t.dtype()));
  return out;
}

namespace {

// Decodes the size bytes at bytes. With a mapping (which holds those bytes), each CPU entry
// whose values can be read as they lie (Ember's own dtype, aligned to its element size; BOOL
// is checked byte by byte, so it is copied) is a tensor on the mapping's pages, sharing it.
SafetensorsContents decode(const char* bytes, size_t size, Device device,
                           const std::shared_ptr<io::MappedFile>& mapping) {
  if (size < 8)
    raise<IOError>("safetensors: truncated: ", size, " bytes, too short for the 8-byte header length");
  uint64_t n = 0;
  for (int i = 7; i >= 0; --i) n = (n << 8) | static_cast<unsigned char>(bytes[i]);
  if (n > size - 8)
    raise<IOError>("safetensors: header length ", n, " is larger than the file (", size,
                   " bytes): truncated or not a safetensors file");
  if (n > kMaxHeader) raise<IOError>("safetensors: header length ", n, " exceeds the limit of ", kMaxHeader);
  // As the reference implementation: the header is a JSON object, so it starts with '{'.
  if (n == 0 || bytes[8] != '{') raise<IOError>("safetensors: the header does not start with '{'");
  io::json::Value header;
  try {
    header = io::json::parse(std::string(bytes + 8, static_cast<size_t>(n)));
  } catch (const IOError& e) {
    raise<IOError>("safetensors: bad JSON header: ", e.what());
  }
  if (header.type != io::json::Value::Type::Object)
    raise<IOError>("safetensors: the JSON header is not an object");

  const uint64_t data_size = size - 8 - n;
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
  check_layout(entries, data_size);

  const char* data = bytes + 8 + n;
  for (const Entry& e : entries) {
    const size_t nbytes = static_cast<size_t>(e.end - e.begin);
    const char* at = data + e.begin;
    if (mapping && device.is_cpu() && e.type.stored == Stored::Native && e.type.dtype != kBool &&
        nbytes > 0 && reinterpret_cast<uintptr_t>(at) % e.type.itemsize == 0) {
      // The deleter holds the mapping: it lives while any tensor or view of it does.
      out.tensors.insert(e.name, from_blob(const_cast<char*>(at), e.shape,
                                           TensorOptions().dtype(e.type.dtype), [mapping](void*) {}));
      continue;
    }
    Tensor t = ember::detail::make_empty(e.shape, e.type.dtype, Device::cpu());
    if (e.type.stored != Stored::Native) {
      decode_half(at, nbytes / 2, e.type.stored, t.data_ptr<float>());
    } else {
      if (e.type.dtype == kBool)
        for (size_t i = 0; i < nbytes; ++i)
          if (static_cast<unsigned char>(at[i]) > 1)
            raise<IOError>("safetensors: tensor \"", e.name, "\" holds a BOOL byte other than 0 or 1");
      if (nbytes) std::memcpy(t.raw_data(), at, nbytes);
    }
    out.tensors.insert(e.name, device.is_cpu() ? t : t.to(device));
  }
  return out;
}

}  // namespace

SafetensorsContents decode_safetensors(const std::string& bytes, Device device) {
  return decode(bytes.data(), bytes.size(), device, nullptr);
}

void save_file(const StateDict& state, const std::string& path, const Metadata& metadata) {
  const std::string bytes = encode_safetensors(state, metadata);  // fails before any file I/O
  io::atomic_write(path, bytes, "save_file");
}

void check_writable(const std::string& path) { io::check_writable(path, "save_file"); }

SafetensorsContents load_file_with_metadata(const std::string& path, Device device) {
  const std::string bytes = io::read_file(path, "load_file");
  try {
    return decode_safetensors(bytes, device);
  } catch (const IOError& e) {
    raise<IOError>("load_file \"", path, "\": ", e.what());
  }
}

StateDict load_file(const std::string& path, Device device) {
  return load_file_with_metadata(path, device).tensors;
}

SafetensorsContents map_file_with_metadata(const std::string& path) {
  const std::shared_ptr<io::MappedFile> mapping = io::MappedFile::open(path, "map_file");
  try {
    return decode(mapping->data(), mapping->size(), Device::cpu(), mapping);
  } catch (const IOError& e) {
    raise<IOError>("map_file \"", path, "\": ", e.what());
  }
}

StateDict map_file(const std::string& path) { return map_file_with_metadata(path).tensors; }

bool release_file_pages(const Tensor& t) {
  if (!t.defined() || !t.device().is_cpu() || !t.is_contiguous() || t.numel() == 0) return false;
  return io::MappedFile::release_pages(t.raw_data(), static_cast<size_t>(t.numel()) * itemsize(t.dtype()));
}

void save(const Module& module, const std::string& path) { save_file(module.state_dict(), path); }

void load(Module& module, const std::string& path, bool strict) {
  module.load_state_dict(load_file(path), strict);
}

}  // namespace ember::nn
