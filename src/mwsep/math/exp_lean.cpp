#include "mwsep/math/exp_lean.hpp"

#include <cmath>

namespace mwsep::math {

void ExpTableBiased::fill(ExpTableEntry* table) {
    ExpTable::fill(table);
    for (int j = 0; j < ExpTable::size; ++j)
        table[j].value = add_to_high_word(table[j].value, 0u - (static_cast<std::uint32_t>(j) << (20 - ExpTable::bits)));
}

void ExpTable8::fill(double* table) {
    for (int j = 0; j < size; ++j) {
        const double value = static_cast<double>(std::exp2(static_cast<long double>(j) / size));
        table[j] = add_to_high_word(value, 0u - (static_cast<std::uint32_t>(j) << (20 - bits)));
    }
}

}  // namespace mwsep::math
