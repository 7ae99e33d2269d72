#pragma once
// A directory of files replaced as a whole (a pretrained model's config.json and weights):
// readers, and other writers on any thread or process, see the old complete directory or the
// new complete one, never a mix of the two. POSIX; the swap is one step where the file system
// has renameat2's RENAME_EXCHANGE (Linux: ext4, xfs, btrfs, tmpfs, overlayfs), else two
// renames, between which the directory is briefly absent (never mixed).
#include <functional>
#include <string>

#include "ember/core/export.h"

namespace ember::io {

/// Makes dir anew: write(tmp) fills a fresh sibling "<dir>.tmp-<pid>-XXXXXX"; the files of the
/// old dir that write did not make are then hard-linked (else copied) into it, so that a
/// vocab.txt beside the weights stays; then the sibling takes dir's place in one step and the
/// old one is removed. dir may be missing (it is created; its parent must exist or is made).
/// A failure of write (its exception is rethrown) or of the swap (IOError "<what>: ...") leaves
/// dir as it was and no temporary behind; a process killed meanwhile leaves dir complete (old
/// or new) and at most a temporary sibling. A dir that is a symlink is replaced where it points.
EMBER_API void atomic_write_dir(const std::string& dir,
                                const std::function<void(const std::string& tmp)>& write, const char* what);

}  // namespace ember::io
