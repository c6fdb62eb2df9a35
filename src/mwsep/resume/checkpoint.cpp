#include "mwsep/resume/checkpoint.hpp"

#include <csignal>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <sstream>

#include "harness/atomic_file.hpp"

namespace mwsep::resume {
namespace {

constexpr char magic[8] = {'M', 'W', 'S', 'E', 'P', 'C', 'K', 'P'};
constexpr std::uint32_t format_version = 1;

volatile std::sig_atomic_t requested_signal = 0;

extern "C" void on_stop_signal(int sig) { requested_signal = sig; }

std::int64_t now_ns() {
    return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch())
        .count();
}

/// Appends the bytes of trivially copyable values to a buffer, in the machine's own byte order: a
/// checkpoint is read back by the same program on the same machine (a foreign one fails its checks).
class Writer {
public:
    template <class T>
    void put(const T& v) {
        bytes.append(reinterpret_cast<const char*>(&v), sizeof v);
    }
    void put_bytes(const void* data, std::size_t n) {
        if (n > 0) bytes.append(static_cast<const char*>(data), n);  // an empty vector's data() may be null
    }
    std::string bytes;
};

/// Reads values back, refusing to read past the end.
class Reader {
public:
    Reader(const std::vector<char>& b, std::string path) : bytes_(b), path_(std::move(path)) {}
    template <class T>
    T get(const char* what) {
        T v;
        take(&v, sizeof v, what);
        return v;
    }
    void take(void* out, std::size_t n, const char* what) {
        if (n > bytes_.size() - at_) throw std::runtime_error(path_ + ": checkpoint ends inside its " + what);
        if (n == 0) return;  // an empty vector's data() may be null, which memcpy must not be given
        std::memcpy(out, bytes_.data() + at_, n);
        at_ += n;
    }
    std::size_t position() const { return at_; }

private:
    const std::vector<char>& bytes_;
    std::string path_;
    std::size_t at_ = 0;
};

}  // namespace

Progress Progress::empty(std::size_t n_items, std::size_t n_width) {
    Progress p;
    p.items = n_items;
    p.width = n_width;
    p.done.assign(n_items, 0);
    p.values.assign(n_items * n_width, 0.0);
    return p;
}

std::size_t Progress::done_count() const {
    std::size_t n = 0;
    for (std::size_t i = 0; i < items; ++i) n += is_done(*this, i);
    return n;
}

void install_stop_handlers() {
    struct sigaction action {};
    action.sa_handler = on_stop_signal;
    sigemptyset(&action.sa_mask);
    sigaction(SIGINT, &action, nullptr);
    sigaction(SIGTERM, &action, nullptr);
}

int stop_requested() { return requested_signal; }

void clear_stop_request() { requested_signal = 0; }

std::uint64_t fnv1a(const void* bytes, std::size_t n, std::uint64_t h) {
    const auto* b = static_cast<const unsigned char*>(bytes);
    for (std::size_t i = 0; i < n; ++i) {
        h ^= b[i];
        h *= 1099511628211ull;
    }
    return h;
}

std::uint64_t hash_file(const std::string& path, std::uint64_t h) {
    std::ifstream in(path, std::ios::binary);
    if (!in) throw std::runtime_error("cannot read " + path + " to identify the checkpoint's inputs");
    char buffer[1 << 16];
    while (in) {
        in.read(buffer, sizeof buffer);
        h = fnv1a(buffer, static_cast<std::size_t>(in.gcount()), h);
    }
    return h;
}

Checkpoint::Checkpoint(std::string path, double interval_seconds, std::uint64_t identity, std::string engine)
    : path_(std::move(path)), interval_(interval_seconds), identity_(identity), engine_(std::move(engine)),
      last_save_ns_(now_ns()) {}

bool Checkpoint::load(Progress& p) const {
    namespace fs = std::filesystem;
    std::error_code ec;
    if (!fs::exists(path_, ec)) return false;
    if (!fs::is_regular_file(path_, ec)) throw std::runtime_error(path_ + ": the checkpoint path is not a regular file");
    // Bounded before reading: no checkpoint of this shape is larger than its flags, numbers, carry and header.
    const std::uintmax_t largest = p.items * (1 + sizeof(double) * p.width) + 4096 * sizeof(double) + 4096;
    if (fs::file_size(path_, ec) > largest)
        throw std::runtime_error(path_ + ": is larger than a checkpoint of this run can be (" + std::to_string(largest) +
                                 " bytes); remove it to start afresh, or name another file with --checkpoint");
    std::ifstream in(path_, std::ios::binary);
    const std::vector<char> bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    if (!in.eof() && in.fail()) throw std::runtime_error(path_ + ": cannot read the checkpoint");
    const std::string refuse = path_ + ": ";
    const std::string advice = "; remove it to start afresh, or name another file with --checkpoint";
    if (bytes.size() < sizeof magic + sizeof(std::uint64_t) || std::memcmp(bytes.data(), magic, sizeof magic) != 0)
        throw std::runtime_error(refuse + "not a checkpoint of mwsep" + advice);
    // The checksum covers every byte before it.
    std::uint64_t stored_sum;
    std::memcpy(&stored_sum, bytes.data() + bytes.size() - sizeof stored_sum, sizeof stored_sum);
    if (fnv1a(bytes.data(), bytes.size() - sizeof stored_sum) != stored_sum)
        throw std::runtime_error(refuse + "the checkpoint is damaged (its checksum does not match)" + advice);
    Reader r(bytes, path_);
    char m[sizeof magic];
    r.take(m, sizeof m, "header");
    const auto version = r.get<std::uint32_t>("version");
    if (version != format_version)
        throw std::runtime_error(refuse + "checkpoint format " + std::to_string(version) + ", this program reads " +
                                 std::to_string(format_version) + advice);
    const auto identity = r.get<std::uint64_t>("identity");
    const auto engine_size = r.get<std::uint32_t>("engine");
    if (engine_size > 256) throw std::runtime_error(refuse + "the checkpoint is damaged (engine name)" + advice);
    std::string engine(engine_size, ' ');
    r.take(engine.data(), engine_size, "engine");
    if (engine != engine_)
        throw std::runtime_error(refuse + "the checkpoint was made by '" + engine + "', this run uses '" + engine_ +
                                 "'" + advice);
    if (identity != identity_)
        throw std::runtime_error(refuse + "the checkpoint belongs to other inputs or settings (the work unit, the stars, "
                                          "the parameter vector or the r binning differ)" + advice);
    const auto items = r.get<std::uint64_t>("item count");
    const auto width = r.get<std::uint64_t>("item width");
    const auto carry = r.get<std::uint64_t>("carry size");
    if (items != p.items || width != p.width || carry > 4096)
        throw std::runtime_error(refuse + "the checkpoint has " + std::to_string(items) + " items of " +
                                 std::to_string(width) + " numbers, this run " + std::to_string(p.items) + " of " +
                                 std::to_string(p.width) + advice);
    r.take(p.done.data(), p.items, "done flags");
    r.take(p.values.data(), p.values.size() * sizeof(double), "values");
    p.carry.resize(carry);
    r.take(p.carry.data(), carry * sizeof(double), "carry");
    if (r.position() + sizeof stored_sum != bytes.size())
        throw std::runtime_error(refuse + "the checkpoint is damaged (trailing bytes)" + advice);
    for (std::uint8_t d : p.done)
        if (d > 1) throw std::runtime_error(refuse + "the checkpoint is damaged (a done flag)" + advice);
    // A done item's partial sums and the carry are finite numbers: a file that says otherwise would make the
    // integral NaN only after all the remaining work.
    for (std::size_t i = 0; i < p.items; ++i)
        for (std::size_t k = 0; k < p.width; ++k)
            if (!std::isfinite(p.values[i * p.width + k]) || (!p.done[i] && p.values[i * p.width + k] != 0))
                throw std::runtime_error(refuse + "the checkpoint holds a partial sum that is not a finite number (item " +
                                         std::to_string(i) + ")" + advice);
    for (std::size_t k = 0; k < p.carry.size(); ++k)
        if (!std::isfinite(p.carry[k]))
            throw std::runtime_error(refuse + "the checkpoint holds a running sum that is not a finite number" + advice);
    if (on_resume) on_resume(p.done_count(), p.items);
    return true;
}

bool Checkpoint::due() const {
    if (now_ns() - last_save_ns_.load() >= static_cast<std::int64_t>(interval_ * 1e9)) return true;
    return also_due && also_due();
}

void Checkpoint::save(const Progress& p) {
    const std::lock_guard lock(mutex_);
    save_locked(p);
}

void Checkpoint::save_if_due(const Progress& p) {
    if (!due()) return;
    const std::lock_guard lock(mutex_);
    if (due()) save_locked(p);  // another thread may have saved while this one waited
}

void Checkpoint::save_locked(const Progress& p) {
    Writer w;
    w.put_bytes(magic, sizeof magic);
    w.put(format_version);
    w.put(identity_);
    w.put(static_cast<std::uint32_t>(engine_.size()));
    w.put_bytes(engine_.data(), engine_.size());
    w.put(static_cast<std::uint64_t>(p.items));
    w.put(static_cast<std::uint64_t>(p.width));
    w.put(static_cast<std::uint64_t>(p.carry.size()));
    // Each item's numbers are copied only if its flag says they are final; an item still running is saved
    // as not done (flag 0, numbers 0), whatever its slot holds at this moment.
    std::vector<std::uint8_t> done(p.items);
    std::vector<double> values(p.items * p.width, 0.0);
    for (std::size_t i = 0; i < p.items; ++i) {
        done[i] = is_done(p, i);
        if (done[i])
            for (std::size_t k = 0; k < p.width; ++k) values[i * p.width + k] = p.values[i * p.width + k];
    }
    w.put_bytes(done.data(), done.size());
    w.put_bytes(values.data(), values.size() * sizeof(double));
    w.put_bytes(p.carry.data(), p.carry.size() * sizeof(double));
    w.put(fnv1a(w.bytes.data(), w.bytes.size()));
    harness::write_file_atomically(path_, [&](std::ostream& out) {
        out.write(w.bytes.data(), static_cast<std::streamsize>(w.bytes.size()));
    });
    last_save_ns_.store(now_ns());
    if (on_saved) on_saved();
}

void Checkpoint::stop_if_requested(const Progress& p) {
    const int sig = stop_requested();
    if (sig == 0) return;
    save(p);
    std::ostringstream msg;
    msg << "interrupted by " << (sig == SIGINT ? "SIGINT" : sig == SIGTERM ? "SIGTERM" : "a signal") << ": "
        << p.done_count() << " of " << p.items << " work items done, saved to " << path_
        << "; run the same command again to resume";
    throw Interrupted(sig, msg.str());
}

void Checkpoint::finish() const {
    std::error_code ec;
    std::filesystem::remove(path_, ec);
}

}  // namespace mwsep::resume
