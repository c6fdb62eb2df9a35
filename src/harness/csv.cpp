#include "harness/csv.hpp"

#include "harness/atomic_file.hpp"
#include "harness/excerpt.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <cerrno>
#include <charconv>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>

namespace harness {

std::string csv_field(const std::string& value) {
    if (value.find_first_of(",\"\n\r") == std::string::npos) return value;
    std::string out = "\"";
    for (char c : value) {
        if (c == '"') out += '"';
        out += c;
    }
    return out + "\"";
}

std::string csv_number(double v) {
    char buf[64];
    const auto res = std::to_chars(buf, buf + sizeof buf, v);
    return std::string(buf, res.ptr);
}

namespace {
std::string join(const std::vector<std::string>& fields) {
    std::string line;
    for (std::size_t i = 0; i < fields.size(); ++i) line += (i ? "," : "") + csv_field(fields[i]);
    return line;
}
}  // namespace

namespace {

/// An exclusive flock on the folder that holds @p path, for as long as it lives: every writer of a CSV in
/// that folder takes it around its read-append-replace, so two processes appending to one file keep each
/// other's rows (the file itself is replaced by rename on every write, so it cannot carry the lock).
class FolderLock {
public:
    explicit FolderLock(const std::string& path) {
        const std::filesystem::path parent = std::filesystem::path(path).parent_path();
        fd_ = ::open(parent.empty() ? "." : parent.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (fd_ < 0) return;  // an unreadable folder: no lock to take, the write itself still is atomic
        while (::flock(fd_, LOCK_EX) != 0)
            if (errno != EINTR) {
                ::close(fd_);
                fd_ = -1;
                return;
            }
    }
    ~FolderLock() {
        if (fd_ >= 0) ::close(fd_);  // closing releases the lock
    }
    FolderLock(const FolderLock&) = delete;
    FolderLock& operator=(const FolderLock&) = delete;

private:
    int fd_ = -1;
};

std::string read_all(const std::string& path) {
    std::ifstream existing(path, std::ios::binary);
    if (!existing) return {};
    std::ostringstream all;
    all << existing.rdbuf();
    return all.str();
}

}  // namespace

namespace {

/// The process's original standard output, taken over for a CSV once (`--csv -`): from then on descriptor 1
/// is standard error, so that the rest of what the command prints keeps out of the CSV.
int csv_standard_output() {
    static const int fd = [] {
        std::fflush(stdout);
        const int saved = ::dup(STDOUT_FILENO);
        if (saved < 0 || ::dup2(STDERR_FILENO, STDOUT_FILENO) < 0)
            throw std::runtime_error("cannot write the CSV to standard output: " + std::string(std::strerror(errno)));
        return saved;
    }();
    return fd;
}

void write_all(int fd, const std::string& text) {
    std::size_t done = 0;
    while (done < text.size()) {
        const ssize_t n = ::write(fd, text.data() + done, text.size() - done);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) throw std::runtime_error("cannot write the CSV to standard output: " + std::string(std::strerror(errno)));
        done += static_cast<std::size_t>(n);
    }
}

}  // namespace

CsvAppender::CsvAppender(const std::string& path, std::vector<std::string> header)
    : path_(path), header_(std::move(header)) {
    if (path_ == standard_output) {
        stdout_fd_ = csv_standard_output();
        return;
    }
    // Refuses a directory, a device or a missing directory before reading: /dev/full, for one, reads as
    // an endless line of NULs.
    check_output_path(path_);
    const FolderLock lock(path_);
    check_header(read_all(path_));
    // Nothing is written yet: a command refused after this point leaves no header-only file behind.
}

void CsvAppender::check_header(const std::string& content) const {
    const std::string first = content.substr(0, content.find('\n'));
    if (!first.empty() && first != join(header_))
        throw std::runtime_error(path_ + ": existing header " + harness::quoted(first) + " differs from the expected '" +
                                 join(header_) + "'; write to a new file");
}

void CsvAppender::row(const std::vector<std::string>& values) {
    if (values.size() != header_.size())
        throw std::invalid_argument(path_ + ": a row has " + std::to_string(values.size()) + " values for " +
                                    std::to_string(header_.size()) + " columns");
    if (stdout_fd_ >= 0) {
        std::fflush(stdout);  // what the command printed before the row (now on standard error) comes first
        write_all(stdout_fd_, (header_written_ ? "" : join(header_) + '\n') + join(values) + '\n');
        header_written_ = true;
        return;
    }
    // Under the folder's lock: the file as it is now (another process may have added rows since), plus this
    // row, replaces the file as a whole; on failure the previous file stays.
    const FolderLock lock(path_);
    std::string content = read_all(path_);
    check_header(content);
    if (content.substr(0, content.find('\n')).empty()) content = join(header_) + '\n';
    else if (content.back() != '\n') content += '\n';
    content += join(values) + '\n';
    write_file_atomically(path_, [&](std::ostream& out) { out << content; });
}

}  // namespace harness
