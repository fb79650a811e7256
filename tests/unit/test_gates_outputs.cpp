// SPDX-License-Identifier: Apache-2.0
// Issue 41 (gates, round two), the writing side: one output writer (io/atomic_file.h) that
// checks every write, replaces only regular files, writes through links, FIFOs and devices;
// results.jsonl on a full disk keeps whole lines and says why it stopped.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <csignal>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>

#include "compare_fixtures.h"
#include "io/atomic_file.h"
#include "io/jsonl_writer.h"
#include "runner/resume.h"

namespace fa2b {
namespace {

namespace fs = std::filesystem;

fs::path fresh_dir(const std::string& name) {
  const auto p =
      fs::temp_directory_path() / ("fa2bench_gates_out_" + name + "_" + std::to_string(::getpid()));
  fs::remove_all(p);
  fs::create_directories(p);
  return p;
}

std::string slurp(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::string output_error(const std::string& path, const std::string& text) {
  try {
    write_output_file(path, text);
  } catch (const OutputError& e) {
    return e.what();
  }
  ADD_FAILURE() << "no OutputError for " << path;
  return "";
}

TEST(GatesOutputs, RegularAndNewFilesAreReplacedWhole) {
  const auto dir = fresh_dir("regular");
  write_output_file((dir / "new.json").string(), "one\n");
  EXPECT_EQ(slurp(dir / "new.json"), "one\n");
  write_output_file((dir / "new.json").string(), "two\n");
  EXPECT_EQ(slurp(dir / "new.json"), "two\n");
  EXPECT_FALSE(fs::exists(dir / "new.json.tmp"));
}

TEST(GatesOutputs, ASymlinkStaysALinkAndItsTargetGetsTheText) {
  const auto dir = fresh_dir("link");
  std::ofstream(dir / "target.json") << "old";
  fs::create_symlink(dir / "target.json", dir / "link.json");
  write_output_file((dir / "link.json").string(), "new\n");
  // Was: the link replaced by a regular file, its target left with the old text.
  EXPECT_TRUE(fs::is_symlink(dir / "link.json"));
  EXPECT_EQ(slurp(dir / "target.json"), "new\n");
  // A dangling link: its target is created through it.
  fs::create_symlink(dir / "later.json", dir / "dangling.json");
  write_output_file((dir / "dangling.json").string(), "x\n");
  EXPECT_TRUE(fs::is_symlink(dir / "dangling.json"));
  EXPECT_EQ(slurp(dir / "later.json"), "x\n");
}

TEST(GatesOutputs, AFifoIsWrittenThroughNotReplaced) {
  const auto dir = fresh_dir("fifo");
  const std::string fifo = (dir / "out.fifo").string();
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  std::string got;
  std::thread reader([&] { got = slurp(fifo); });
  write_output_file(fifo, "through the pipe\n");
  reader.join();
  EXPECT_EQ(got, "through the pipe\n");
  struct stat st {};
  ASSERT_EQ(::lstat(fifo.c_str(), &st), 0);
  EXPECT_TRUE(S_ISFIFO(st.st_mode)) << "the FIFO was replaced by a regular file";
}

TEST(GatesOutputs, ADeviceIsWrittenThroughAndAFailedWriteThrows) {
  // /dev/null: written, not replaced (as root the old rename replaced the device node).
  EXPECT_NO_THROW(write_output_file("/dev/null", "x"));
  struct stat st {};
  ASSERT_EQ(::stat("/dev/null", &st), 0);
  EXPECT_TRUE(S_ISCHR(st.st_mode));
  // /dev/full: every write fails with ENOSPC, named.
  EXPECT_NE(output_error("/dev/full", "x").find("/dev/full: cannot write: No space left on device"),
            std::string::npos);
  const auto dir = fresh_dir("dir");
  EXPECT_NE(output_error(dir.string(), "x").find("Is a directory"), std::string::npos);
}

// Runs `body` in a child whose files may not grow beyond `limit` bytes (a full disk without
// one: writes past the limit fail with EFBIG); returns the child's exit status.
template <class F>
int with_file_size_limit(rlim_t limit, F body) {
  const pid_t pid = ::fork();
  if (pid == 0) {
    std::signal(SIGXFSZ, SIG_IGN);  // the write fails with EFBIG instead of killing
    const rlimit lim{limit, limit};
    ::setrlimit(RLIMIT_FSIZE, &lim);
    ::_exit(body());
  }
  int status = 0;
  ::waitpid(pid, &status, 0);
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

TEST(GatesOutputs, AFullDiskLeavesNoHalfFileAndNamesTheError) {
  const auto dir = fresh_dir("full");
  const std::string path = (dir / "results.json").string();
  std::ofstream(path) << "earlier\n";
  const int rc = with_file_size_limit(16, [&] {
    try {
      write_output_file(path, std::string(4096, 'x'));
    } catch (const OutputError& e) {
      return std::string(e.what()).find("File too large") != std::string::npos ? 0 : 2;
    }
    return 1;
  });
  EXPECT_EQ(rc, 0) << "1: no error; 2: the error does not name the OS's reason";
  EXPECT_EQ(slurp(path), "earlier\n");  // the earlier file stays whole
  EXPECT_FALSE(fs::exists(path + ".tmp"));
}

TEST(GatesOutputs, JsonlOnAFullDiskKeepsWholeLinesAndSaysWhy) {
  const auto dir = fresh_dir("jsonl");
  const std::string path = (dir / "results.jsonl").string();
  const CaseResult r = crafted_case("cpu-flash", 64, 32, 1.0, 0.01, Status::ok, 100);
  const int rc = with_file_size_limit(1500, [&] {
    JsonlWriter w(path);
    try {
      for (int i = 0; i < 100; ++i) w.append(r);
    } catch (const std::runtime_error& e) {
      return std::string(e.what()).find("results.jsonl: cannot append: File too large") !=
                     std::string::npos
                 ? 0
                 : 2;
    }
    return 1;
  });
  ASSERT_EQ(rc, 0) << "1: no error; 2: the error does not name the OS's reason";
  const std::string text = slurp(path);
  ASSERT_FALSE(text.empty());
  EXPECT_EQ(text.back(), '\n') << "a half line was left";
  // --resume then reads every line, with no "killed while writing" guess.
  const JsonlContents back = read_results_jsonl(path);
  EXPECT_TRUE(back.warnings.empty()) << back.warnings.front();
  EXPECT_GE(back.results.size(), 1u);
}

}  // namespace
}  // namespace fa2b
