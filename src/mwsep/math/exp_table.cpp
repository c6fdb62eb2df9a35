#include "mwsep/math/exp_table.hpp"

#include <cmath>

namespace mwsep::math {

void ExpTable::fill(ExpTableEntry* table) {
    // long double carries at least the 53 bits of a double (64 on x86), so the correction keeps the bits
    // the rounding to double dropped; where long double is double the correction is 0 and the entry is
    // the library's exp2, within its own accuracy.
    for (int j = 0; j < size; ++j) {
        const long double exact = std::exp2(static_cast<long double>(j) / size);
        const double value = static_cast<double>(exact);
        table[j] = {value, static_cast<double>((exact - value) / value)};
    }
}

}  // namespace mwsep::math
