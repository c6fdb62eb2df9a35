#include "kirk_hwu/recon/npy.hpp"

#include <bit>
#include <complex>
#include <stdexcept>

#include "harness/atomic_file.hpp"

namespace kirk_hwu::recon {

namespace {

/// Writes @p count items of @p item_bytes at @p data with NumPy type @p descr and shape @p shape.
void write_npy_items(const std::string& path, const char* descr, const void* data, std::size_t count, std::size_t item_bytes,
                     const std::vector<std::size_t>& shape) {
    static_assert(std::endian::native == std::endian::little, "the .npy writer assumes a little-endian host");
    std::size_t total = 1;
    std::string dims;
    for (std::size_t d : shape) {
        total *= d;
        dims += std::to_string(d) + ",";
    }
    if (total != count) throw std::invalid_argument("write_npy: the shape does not match the number of values");
    if (shape.size() > 1) dims.pop_back();  // (n,) keeps its comma; (a, b) does not need one
    std::string header = std::string("{'descr': '") + descr + "', 'fortran_order': False, 'shape': (" + dims + "), }";
    // Magic (6) + version (2) + length (2) + header, padded with spaces to a multiple of 64, ending in '\n'.
    const std::size_t unpadded = 10 + header.size() + 1;
    header += std::string((64 - unpadded % 64) % 64, ' ') + "\n";
    harness::write_file_atomically(path, [&](std::ostream& os) {
        os.write("\x93NUMPY\x01\x00", 8);
        const char length[2] = {static_cast<char>(header.size() & 0xff), static_cast<char>(header.size() >> 8)};
        os.write(length, 2);
        os << header;
        os.write(static_cast<const char*>(data), static_cast<std::streamsize>(item_bytes * count));
    });
}

}  // namespace

void write_npy(const std::string& path, const std::vector<float>& values, const std::vector<std::size_t>& shape) {
    write_npy_items(path, "<f4", values.data(), values.size(), sizeof(float), shape);
}

void write_npy(const std::string& path, const std::vector<double>& values, const std::vector<std::size_t>& shape) {
    write_npy_items(path, "<f8", values.data(), values.size(), sizeof(double), shape);
}

void write_npy(const std::string& path, const std::vector<std::complex<double>>& values, const std::vector<std::size_t>& shape) {
    write_npy_items(path, "<c16", values.data(), values.size(), sizeof(std::complex<double>), shape);
}

void write_npy(const std::string& path, const std::vector<long long>& values, const std::vector<std::size_t>& shape) {
    static_assert(sizeof(long long) == 8, "the .npy writer writes long long as int64");
    write_npy_items(path, "<i8", values.data(), values.size(), sizeof(long long), shape);
}

}  // namespace kirk_hwu::recon
