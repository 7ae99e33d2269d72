// Bert::save_pretrained replaces its directory as a whole (io::atomic_write_dir): two threads
// saving different models into one directory never leave a mix (before, 7-10 rounds in 20 did,
// which then failed to load); a save that fails leaves the old directory and no temporary; the
// directory's other files (vocab.txt) stay.
#include <gtest/gtest.h>

#include <signal.h>
#include <sys/inotify.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <thread>

#include "ember/core/io/file_io.h"
#include "ember/ember.h"
#include "support/expect.h"
#include "support/temp_dir.h"

using namespace ember;
using nn::models::Bert;
using nn::models::BertConfig;
using test::TempDir;

namespace {

std::shared_ptr<Bert> tiny(int64_t hidden, uint64_t seed) {
  manual_seed(seed);
  BertConfig c;
  c.vocab_size = 30, c.hidden_size = hidden, c.num_hidden_layers = 1, c.num_attention_heads = 2;
  c.intermediate_size = 2 * hidden, c.max_position_embeddings = 8;
  return std::make_shared<Bert>(c);
}

bool same_weights(const Bert& a, const Bert& b) {
  if (a.config.hidden_size != b.config.hidden_size) return false;
  for (const auto& [name, p] : a.named_parameters())
    if (p.to_vector<float>() != b.parameter(name).to_vector<float>()) return false;
  return true;
}

std::string read_text(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

// Names in dir that a save left behind: temporaries "<name>.tmp-...".
int temporaries(const std::string& dir) {
  int n = 0;
  for (const auto& e : std::filesystem::directory_iterator(dir))
    n += e.path().filename().string().find(".tmp-") != std::string::npos;
  return n;
}

}  // namespace

TEST(BertSavePretrained, ReplacesTheModelAndKeepsTheDirectorysOtherFiles) {
  TempDir root;
  const std::string dir = root.path("model");
  const auto a = tiny(16, 1), b = tiny(16, 2);
  a->save_pretrained(dir);
  root.write("model/vocab.txt", "[PAD]\n[UNK]\n");
  b->save_pretrained(dir + "/");  // a trailing slash names the same directory
  EXPECT_TRUE(same_weights(*Bert::from_pretrained(dir), *b));
  EXPECT_EQ(read_text(dir + "/vocab.txt"), "[PAD]\n[UNK]\n");
  EXPECT_EQ(temporaries(root.path()), 0);
}

TEST(BertSavePretrained, AFailedSaveLeavesTheOldDirectoryAndNoTemporary) {
  TempDir root;
  const std::string dir = root.path("model");
  const auto a = tiny(16, 1);
  a->save_pretrained(dir);
  EXPECT_THROW(io::atomic_write_dir(
                   dir,
                   [](const std::string& tmp) {
                     std::ofstream(tmp + "/config.json") << "{}";
                     throw std::runtime_error("half way");
                   },
                   "test"),
               std::runtime_error);
  EXPECT_TRUE(same_weights(*Bert::from_pretrained(dir), *a));
  EXPECT_EQ(temporaries(root.path()), 0);
  // A weights file made read-only is refused before anything changes, as save_file refuses it.
  std::filesystem::permissions(dir + "/config.json", std::filesystem::perms::owner_write,
                               std::filesystem::perm_options::remove);
  EXPECT_THROW_MSG(tiny(32, 3)->save_pretrained(dir), IOError, "Bert.save_pretrained: ");
  EXPECT_TRUE(same_weights(*Bert::from_pretrained(dir), *a));
  EXPECT_EQ(temporaries(root.path()), 0);
}

TEST(BertSavePretrained, TwoThreadsSavingIntoOneDirectoryLeaveOneWholeModel) {
  TempDir root;
  const std::string dir = root.path("model");
  // Different sizes: the weights of one beside the config of the other fail to load.
  const auto a = tiny(16, 1), b = tiny(32, 2);
  for (int round = 0; round < 5; ++round) {
    std::vector<std::thread> savers;
    for (const auto& model : {a, b})
      savers.emplace_back([&, model] {
        for (int i = 0; i < 4; ++i) model->save_pretrained(dir);
      });
    for (std::thread& t : savers) t.join();
    const auto last = Bert::from_pretrained(dir);
    EXPECT_TRUE(same_weights(*last, *a) || same_weights(*last, *b)) << "round " << round;
    EXPECT_EQ(temporaries(root.path()), 0);
  }
}

// The save makes nothing inside the directory it replaces: a probe file made there (as the
// read-only check once made) lands in whichever directory holds the name at that moment, and in
// one that another thread's save was swapping out it kept that save's removal from finishing
// (a ".tmp-" directory left behind, once in CI). inotify sees every file made in the old one.
TEST(BertSavePretrained, ASaveCreatesNothingInsideTheDirectoryItReplaces) {
  TempDir root;
  const std::string dir = root.path("model");
  const auto a = tiny(16, 1);
  a->save_pretrained(dir);
  const int fd = ::inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
  ASSERT_GE(fd, 0);
  ASSERT_GE(::inotify_add_watch(fd, dir.c_str(), IN_CREATE | IN_MOVED_TO), 0);
  a->save_pretrained(dir);
  alignas(inotify_event) char events[4096];
  const ssize_t got = ::read(fd, events, sizeof events);
  std::string made;
  for (ssize_t at = 0; at < got;) {
    const auto* e = reinterpret_cast<const inotify_event*>(events + at);
    if (e->mask & (IN_CREATE | IN_MOVED_TO)) made += std::string(e->len ? e->name : "?") + " ";
    at += static_cast<ssize_t>(sizeof(inotify_event) + e->len);
  }
  ::close(fd);
  EXPECT_EQ(made, "");
}

// The new directory has the old one's mode, and a first save the mode mkdir gives (the
// temporary it starts as is private, 0700, as mkdtemp makes it).
TEST(BertSavePretrained, TheDirectoryKeepsItsModeOrGetsTheUsualOne) {
  TempDir root;
  const std::string dir = root.path("model");
  const auto a = tiny(16, 1);
  const mode_t old_mask = ::umask(022);
  a->save_pretrained(dir);
  ::umask(old_mask);
  struct stat st {};
  ASSERT_EQ(::stat(dir.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 07777, 0755u);
  ASSERT_EQ(::chmod(dir.c_str(), 0750), 0);
  a->save_pretrained(dir);
  ASSERT_EQ(::stat(dir.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 07777, 0750u);
}

// A process killed (SIGKILL) while it saves, at 12 moments: the directory loads every time, as
// one of the two models (before, 14 kills in 30 left a directory that did not load).
TEST(BertSavePretrained, AProcessKilledWhileSavingLeavesAWholeModel) {
  TempDir root;
  const std::string dir = root.path("model");
  const auto a = tiny(16, 1), b = tiny(32, 2);
  a->save_pretrained(dir);
  for (int round = 0; round < 12; ++round) {
    const pid_t child = ::fork();
    ASSERT_GE(child, 0);
    if (child == 0) {
      for (int i = 0;; ++i) (i % 2 ? a : b)->save_pretrained(dir);  // until killed
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(2 + 3 * round));
    ::kill(child, SIGKILL);
    int status = 0;
    ASSERT_EQ(::waitpid(child, &status, 0), child);
    ASSERT_TRUE(WIFSIGNALED(status));
    const auto saved = Bert::from_pretrained(dir);
    EXPECT_TRUE(same_weights(*saved, *a) || same_weights(*saved, *b)) << "kill " << round;
  }
}
