// The CPU BLAS the GPU is compared with passes the same check as every GPU variant (skipped, with a
// message, in a build without OpenBLAS).
#include <gtest/gtest.h>

#include <cmath>

#include "ryoo/core/matrix.hpp"
#include "ryoo/core/product_check.hpp"
#include "ryoo/cpu/cpu_blas.hpp"

namespace ryoo {

TEST(RyooCpuBlas, SgemmPassesTheDoublePrecisionCheckOnOneAndTwoThreads) {
    if (!cpu_blas_available()) GTEST_SKIP() << "no CPU BLAS in this build: " << cpu_blas_description();
    const int n = 200;  // not a multiple of any blocking factor
    const Matrix a = random_matrix(n, 21), b = random_matrix(n, 22);
    const ProductReference ref(a, b);
    for (int threads : {1, 2}) {
        std::vector<float> c(n * n, NAN);
        cpu_sgemm(a.data.data(), b.data.data(), c.data(), n, threads);
        const CheckResult r = ref.check(c.data(), n);
        EXPECT_TRUE(r.pass()) << threads << " thread(s): " << r.describe();
    }
}

TEST(RyooCpuBlas, WithoutTheLibraryTheCallIsRefused) {
    if (cpu_blas_available()) GTEST_SKIP() << "this build has a CPU BLAS: " << cpu_blas_description();
    float x = 0;
    EXPECT_THROW(cpu_sgemm(&x, &x, &x, 1, 1), std::runtime_error);
}

}  // namespace ryoo
