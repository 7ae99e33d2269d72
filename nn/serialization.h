#pragma once
// Checkpoints in the safetensors format, readable by PyTorch's safetensors.torch.load_file
// and the other way round: an 8-byte little-endian header length, a JSON header
// {"name": {"dtype": "F32", "shape": [2, 3], "data_offsets": [begin, end]}, ...,
// "__metadata__": {"key": "value"}} padded with spaces to 8 bytes, then the raw
// little-endian data. Supported dtypes: F32 F64 I64 I32 U8 BOOL; F16 and BF16 entries
// decode to float32 (exactly: every such value is a float32, subnormals, infinities, NaN and
// -0 included), so half-precision checkpoints load; other dtypes throw DTypeError. Malformed
// files throw IOError naming the problem; decoding is as strict as the reference
// implementation (UTF-8 header starting with '{', tensors' data tiling the data section with
// no gap, overlap or trailing bytes, shapes whose byte count fits).
#include <map>
#include <string>

#include "ember/core/device.h"
#include "ember/nn/module.h"
#include "ember/nn/state_dict.h"

namespace ember::nn {

using Metadata = std::map<std::string, std::string>;

/// A decoded safetensors file.
struct SafetensorsContents {
  StateDict tensors;  // in header order
  Metadata metadata;
};

/// The bytes of a safetensors file holding state (values copied to the host; entries
/// ordered by element size so every tensor's data is aligned). ValueError for an undefined
/// tensor or the reserved name "__metadata__".
EMBER_API std::string encode_safetensors(const StateDict& state, const Metadata& metadata = {});
/// Decodes the bytes of a safetensors file onto device.
EMBER_API SafetensorsContents decode_safetensors(const std::string& bytes, Device device = Device::cpu());

/// Writes state to path atomically: a temporary file in the same directory, fsync, rename.
/// A failure (IOError) leaves any previous file at path untouched. A symlink to a regular
/// file is followed (the file is replaced, the link kept); a target that exists and is not
/// a regular file, or has no write bit in its mode, is refused (IOError). Temporaries that
/// a killed save left (dead process, over an hour old) are removed.
EMBER_API void save_file(const StateDict& state, const std::string& path, const Metadata& metadata = {});
/// Checks that save_file(.., path) can write there, before long work: IOError as save_file
/// would give for the target, or when no file can be created beside it.
EMBER_API void check_writable(const std::string& path);
/// Reads a safetensors file onto device (the map_location case).
EMBER_API StateDict load_file(const std::string& path, Device device = Device::cpu());
/// Reads tensors and metadata.
EMBER_API SafetensorsContents load_file_with_metadata(const std::string& path, Device device = Device::cpu());

/// How a pretrained model's weights are loaded (Bert::from_pretrained,
/// SentenceEncoder::from_pretrained): read into the process's memory (load_file), or mapped
/// from the file (map_file: nothing read up front, and the pages of packed linear weights given
/// back, for serving in the least memory; the file must then not change in place).
enum class LoadMode { Read, Map };

/// load_file's tensors without reading them: CPU tensors on the file's own pages, mapped
/// copy-on-write (io::MappedFile), which the system reads in when a value is first touched.
/// Loading costs no memory up front, and pages read once can be given back
/// (release_file_pages): for serving a large checkpoint. The tensors are ordinary tensors: a
/// write (an optimizer step) copies the pages it touches and never changes the file. The same
/// checks and errors as load_file ("map_file ..."); entries that cannot be read in place (F16
/// and BF16, which decode to float32; BOOL, whose bytes are checked; data not aligned to its
/// element size) are decoded copies. The file must not be changed in place while its tensors
/// live (a read would see the change, or get SIGBUS past a new end); replacing it by rename,
/// as save_file and save_pretrained do, is safe.
EMBER_API StateDict map_file(const std::string& path);
/// map_file's tensors and the metadata.
EMBER_API SafetensorsContents map_file_with_metadata(const std::string& path);
/// Gives back to the system the memory of t's values where map_file mapped them and no write
/// has copied them (whole pages inside t's contiguous bytes): touched again, they are read from
/// the file again. Written pages keep their values. For a weight whose values live elsewhere too
/// (nn::Linear's pack). Whether any was given back: false for a tensor not on a mapping, on another device,
/// or not contiguous.
EMBER_API bool release_file_pages(const Tensor& t);

/// save_file(module.state_dict(), path).
EMBER_API void save(const Module& module, const std::string& path);
/// Loads a checkpoint into module's existing tensors, wherever they live.
EMBER_API void load(Module& module, const std::string& path, bool strict = true);

}  // namespace ember::nn
