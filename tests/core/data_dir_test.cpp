// The data directory's lock: one owner at a time, released however the owner ends,
// and a clear refusal that names the holder.
#include "core/store/data_dir.h"
#include "tests/core/temp_dir.h"

#include <gtest/gtest.h>

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fstream>
#include <iterator>
#include <memory>

namespace agentrt::core {
namespace {

std::string file_text(const std::string& path) {
  std::ifstream in(path);
  return {std::istreambuf_iterator<char>(in), {}};
}

TEST(DataDirLock, MakesTheDirectoryPrivateAndNamesItsHolder) {
  test_util::TempDir temp;
  const std::string dir = temp.file("a/b");
  DataDirLock lock(dir);
  struct stat st {};
  ASSERT_EQ(::stat(dir.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0700u);
  ASSERT_EQ(::stat(lock.path().c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0600u);
  EXPECT_EQ(lock.path(), dir + "/agentd.lock");
  EXPECT_EQ(file_text(lock.path()), std::to_string(::getpid()) + "\n");
}

TEST(DataDirLock, ASecondOwnerIsRefusedWithTheHoldersPid) {
  test_util::TempDir temp;
  DataDirLock first(temp.path());
  try {
    DataDirLock second(temp.path() + "/");
    FAIL() << "a second lock on a held directory was granted";
  } catch (const DataDirInUse& e) {
    EXPECT_EQ(e.holder(), ::getpid());
    EXPECT_NE(std::string(e.what()).find("is in use by another agentd (pid " +
                                         std::to_string(::getpid()) + ")"),
              std::string::npos)
        << e.what();
  }
  EXPECT_EQ(file_text(first.path()), std::to_string(::getpid()) + "\n");  // left as it was
}

// Deleting agentd.lock, a reflex with a "stale" lock file, must not let a second agentd
// lock a new file and serve the same stores: the directory is locked too.
TEST(DataDirLock, DeletingTheLockFileFreesNothing) {
  test_util::TempDir temp;
  DataDirLock first(temp.path());
  ASSERT_EQ(std::remove(first.path().c_str()), 0);
  EXPECT_THROW(DataDirLock second(temp.path()), DataDirInUse);
}

TEST(DataDirLock, IsFreeAgainOnceItsOwnerIsGone) {
  test_util::TempDir temp;
  auto first = std::make_unique<DataDirLock>(temp.path());
  first.reset();
  EXPECT_NO_THROW(DataDirLock second(temp.path()));
}

// A holder that did not (yet) write its pid, or a lock taken by something else.
TEST(DataDirLock, AHolderWithoutAPidIsRefusedWithoutOne) {
  test_util::TempDir temp;
  const std::string path = temp.write("agentd.lock", "");
  const int fd = ::open(path.c_str(), O_RDWR | O_CLOEXEC);
  ASSERT_GE(fd, 0);
  ASSERT_EQ(::flock(fd, LOCK_EX | LOCK_NB), 0);
  try {
    DataDirLock lock(temp.path());
    ADD_FAILURE() << "a held directory was granted";
  } catch (const DataDirInUse& e) {
    EXPECT_EQ(e.holder(), 0);
    EXPECT_EQ(std::string(e.what()).find("pid"), std::string::npos) << e.what();
  }
  ::close(fd);
}

// The file outlives its holder; what it names then means nothing to the next owner.
TEST(DataDirLock, AStaleFileFromAnEndedHolderDoesNotBlock) {
  test_util::TempDir temp;
  temp.write("agentd.lock", "999999\n");
  DataDirLock lock(temp.path());
  EXPECT_EQ(file_text(lock.path()), std::to_string(::getpid()) + "\n");
}

TEST(DataDirLock, ADirectoryThatCannotBeMadeIsAStoreErrorNotInUse) {
  test_util::TempDir temp;
  const std::string file = temp.write("not-a-dir", "x");
  try {
    DataDirLock lock(file + "/data");
    FAIL() << "a lock under a file was granted";
  } catch (const DataDirInUse&) {
    FAIL() << "reported as in use";
  } catch (const StoreError& e) {
    EXPECT_NE(std::string(e.what()).find("cannot create data directory"), std::string::npos)
        << e.what();
  }
}

}  // namespace
}  // namespace agentrt::core
