// Output files are written whole or not at all, and a path that cannot be written is named before work.
#include <gtest/gtest.h>

#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <stdexcept>
#include <string>

#include "harness/atomic_file.hpp"
#include "harness/csv.hpp"
#include "test_support.hpp"

namespace {

namespace fs = std::filesystem;

fs::path fresh_dir(const std::string& name) {
    const auto dir = fs::temp_directory_path() / ("mwsep-" + name + "-" + std::to_string(::getpid()));
    fs::remove_all(dir);
    fs::create_directories(dir);
    return dir;
}

std::size_t entries(const fs::path& dir) {
    std::size_t n = 0;
    for ([[maybe_unused]] const auto& e : fs::directory_iterator(dir)) ++n;
    return n;
}

TEST(AtomicFile, ReplacesTheFileOrLeavesThePreviousOne) {
    const auto dir = fresh_dir("atomic-file");
    const auto path = (dir / "out.txt").string();
    harness::write_file_atomically(path, [](std::ostream& out) { out << "first\n"; });
    EXPECT_EQ(testsupport::read_text(path), "first\n");
    ::chmod(path.c_str(), 0640);
    // A writer that fails half-way: the previous content stays, and no temporary is left behind.
    EXPECT_THROW(harness::write_file_atomically(path,
                                                [](std::ostream& out) {
                                                    out << "half";
                                                    throw std::runtime_error("interrupted");
                                                }),
                 std::runtime_error);
    EXPECT_EQ(testsupport::read_text(path), "first\n");
    EXPECT_EQ(entries(dir), 1u);
    harness::write_file_atomically(path, [](std::ostream& out) { out << "second\n"; });
    EXPECT_EQ(testsupport::read_text(path), "second\n");
    struct stat st{};
    ASSERT_EQ(::stat(path.c_str(), &st), 0);
    EXPECT_EQ(st.st_mode & 0777, 0640u);  // the replaced file keeps its permissions
    EXPECT_EQ(entries(dir), 1u);
    // Through a symbolic link, the file it points to is replaced and the link stays a link.
    fs::create_symlink(path, dir / "link.txt");
    harness::write_file_atomically((dir / "link.txt").string(), [](std::ostream& out) { out << "third\n"; });
    EXPECT_TRUE(fs::is_symlink(dir / "link.txt"));
    EXPECT_EQ(testsupport::read_text(path), "third\n");
    EXPECT_EQ(entries(dir), 2u);
    fs::remove_all(dir);
}

TEST(AtomicFile, RefusesPathsThatCannotBeWritten) {
    const auto expect_message = [](const std::string& path, const std::string& message) {
        try {
            harness::check_output_path(path);
            ADD_FAILURE() << path << " was accepted";
        } catch (const std::runtime_error& e) {
            EXPECT_NE(std::string(e.what()).find(message), std::string::npos) << e.what();
        }
    };
    expect_message("/nonexistent-dir/x.txt", "the directory /nonexistent-dir does not exist");
    expect_message(fs::temp_directory_path().string(), "it is a directory");
    expect_message("/dev/full", "it is not a regular file");
    expect_message("", "the file name is empty");
    EXPECT_NO_THROW(harness::check_output_path((fs::temp_directory_path() / "mwsep-not-yet-there.txt").string()));
}

// The CSV writer refuses a device before reading it: /dev/full reads as an endless line of NULs.
TEST(BenchCsv, RefusesANonRegularFile) {
    EXPECT_THROW(harness::CsvAppender("/dev/full", {"a", "b"}), std::runtime_error);
    EXPECT_THROW(harness::CsvAppender(fs::temp_directory_path().string(), {"a", "b"}), std::runtime_error);
}

// Every row rewrites the file whole, so the file always holds the header and complete rows, and rows
// appended to an existing file follow its old rows byte for byte.
TEST(BenchCsv, AppendsToAnExistingFileThroughWholeRewrites) {
    const auto dir = fresh_dir("csv-append");
    const auto path = (dir / "r.csv").string();
    {
        std::ofstream out(path);
        out << "a,b\n1,x\n";
    }
    harness::CsvAppender csv(path, {"a", "b"});
    csv.row({"2", "y,z"});
    EXPECT_EQ(testsupport::read_text(path), "a,b\n1,x\n2,\"y,z\"\n");
    EXPECT_THROW(csv.row({"3"}), std::invalid_argument);
    csv.row({"3", "w"});
    EXPECT_EQ(testsupport::read_text(path), "a,b\n1,x\n2,\"y,z\"\n3,w\n");
    EXPECT_EQ(entries(dir), 1u);
    fs::remove_all(dir);
}

}  // namespace
