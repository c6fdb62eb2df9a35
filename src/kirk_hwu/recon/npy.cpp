#include "kirk_hwu/recon/npy.hpp"

#include <bit>
#include <stdexcept>

#include "harness/atomic_file.hpp"

namespace kirk_hwu::recon {

void write_npy(const std::string& path, const std::vector<float>& values, const std::vector<std::size_t>& shape) {
    static_assert(std::endian::native == std::endian::little, "the .npy writer assumes a little-endian host");
    std::size_t count = 1;
    std::string dims;
    for (std::size_t d : shape) {
        count *= d;
        dims += std::to_string(d) + ",";
    }
    if (count != values.size()) throw std::invalid_argument("write_npy: the shape does not match the number of values");
    if (shape.size() > 1) dims.pop_back();  // (n,) keeps its comma; (a, b) does not need one
    std::string header = "{'descr': '<f4', 'fortran_order': False, 'shape': (" + dims + "), }";
    // Magic (6) + version (2) + length (2) + header, padded with spaces to a multiple of 64, ending in '\n'.
    const std::size_t unpadded = 10 + header.size() + 1;
    header += std::string((64 - unpadded % 64) % 64, ' ') + "\n";
    harness::write_file_atomically(path, [&](std::ostream& os) {
        os.write("\x93NUMPY\x01\x00", 8);
        const char length[2] = {static_cast<char>(header.size() & 0xff), static_cast<char>(header.size() >> 8)};
        os.write(length, 2);
        os << header;
        os.write(reinterpret_cast<const char*>(values.data()), static_cast<std::streamsize>(sizeof(float) * values.size()));
    });
}

}  // namespace kirk_hwu::recon
