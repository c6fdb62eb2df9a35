#include "harness/atomic_file.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <vector>

namespace harness {
namespace {

namespace fs = std::filesystem;

/// The directory that holds @p path ("." for a bare file name).
fs::path directory_of(const std::string& path) {
    const fs::path parent = fs::path(path).parent_path();
    return parent.empty() ? fs::path(".") : parent;
}

std::runtime_error failure(const std::string& path, const std::string& what) {
    return std::runtime_error("cannot write " + path + ": " + what);
}

/// fsync of a file or directory by name; false on failure.
bool sync_path(const fs::path& p, int flags) {
    const int fd = ::open(p.c_str(), flags | O_CLOEXEC);
    if (fd < 0) return false;
    const bool ok = ::fsync(fd) == 0;
    return ::close(fd) == 0 && ok;
}

/// Permission bits a new file would get from the process's umask (mkstemp makes 0600 files, which
/// would silently hide results from the group that reads them).
mode_t default_file_mode() {
    const mode_t mask = ::umask(0);
    ::umask(mask);
    return 0666 & ~mask;
}

}  // namespace

void check_output_path(const std::string& path) {
    if (path.empty()) throw failure(path, "the file name is empty");
    std::error_code ec;
    const auto status = fs::status(path, ec);
    if (!ec && fs::exists(status)) {
        if (fs::is_directory(status)) throw failure(path, "it is a directory");
        // Devices, pipes and sockets cannot be replaced by rename without destroying them, and reading
        // them back (as the CSV writer does) may never end.
        if (!fs::is_regular_file(status)) throw failure(path, "it is not a regular file");
    }
    const fs::path dir = directory_of(path);
    const auto dir_status = fs::status(dir, ec);
    if (ec || !fs::is_directory(dir_status)) throw failure(path, "the directory " + dir.string() + " does not exist");
    // The temporary is created in this directory, so it must be writable and searchable.
    if (::access(dir.c_str(), W_OK | X_OK) != 0)
        throw failure(path, "the directory " + dir.string() + " is not writable (" + std::strerror(errno) + ")");
}

void write_file_atomically(const std::string& requested, const std::function<void(std::ostream&)>& write) {
    check_output_path(requested);
    // rename() would replace a symbolic link by a file; the file it points to is what gets replaced.
    std::error_code ec;
    const std::string path = fs::is_symlink(requested, ec) ? fs::canonical(requested).string() : requested;
    const fs::path target(path);
    const fs::path dir = directory_of(path);
    // A hidden name in the target's directory: rename is atomic only within one file system.
    std::string pattern = (dir / ("." + target.filename().string() + ".tmp.XXXXXX")).string();
    std::vector<char> name(pattern.begin(), pattern.end());
    name.push_back('\0');
    const int fd = ::mkstemp(name.data());
    if (fd < 0) throw failure(path, std::string("cannot create a temporary file: ") + std::strerror(errno));
    const std::string temporary(name.data());
    // An existing file keeps its permissions; a new one gets those of an ordinary new file.
    struct stat old{};
    const mode_t mode = ::stat(path.c_str(), &old) == 0 ? (old.st_mode & 07777) : default_file_mode();
    const bool mode_ok = ::fchmod(fd, mode) == 0;
    ::close(fd);
    const auto discard = [&](const std::string& what) {
        std::remove(temporary.c_str());
        return failure(path, what);
    };
    if (!mode_ok) throw discard("cannot set the permissions of the temporary file");
    try {
        std::ofstream out(temporary, std::ios::binary | std::ios::trunc);
        if (!out) throw discard("cannot open the temporary file " + temporary);
        write(out);
        out.close();
        if (!out) throw discard("error while writing (disk full?)");
    } catch (...) {
        std::remove(temporary.c_str());
        throw;
    }
    // The data must be on disk before the name points at it, or a crash could leave an empty file.
    if (!sync_path(temporary, O_RDONLY)) throw discard("cannot flush the temporary file to disk");
    if (::rename(temporary.c_str(), path.c_str()) != 0) throw discard(std::string("rename failed: ") + std::strerror(errno));
    // The rename itself is durable only once the directory is synced; the file is complete either way.
    (void)sync_path(dir, O_RDONLY | O_DIRECTORY);
}

}  // namespace harness
