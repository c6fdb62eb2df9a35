/// @file pair_math.hpp
/// @brief The per-pair arithmetic of both computations, written once for the CPU references and the CUDA
/// kernels: the MRI phase and accumulation (one k-space sample, one voxel) and the Coulomb term (one atom,
/// one lattice point). Every kernel variant calls these; only where the operands live and which sin, cos or
/// reciprocal square root is used differ between variants.
#pragma once

#if defined(__CUDACC__)
/// Marks a function callable from host code and from CUDA kernels.
#define KH_HD __host__ __device__ __forceinline__
#else
/// Marks a function callable from host code and from CUDA kernels (host build: plain inline).
#define KH_HD inline
#endif

namespace kirk_hwu {

/// 2π in the precision of the computation (the published code multiplies every phase by it).
template <class Real>
inline constexpr Real two_pi = static_cast<Real>(6.283185307179586476925286766559);

// [mri-math-begin]
/// The phase e = 2π (kx·x + ky·y + kz·z) of one sample-voxel pair.
template <class Real>
KH_HD Real mri_phase(Real kx, Real ky, Real kz, Real x, Real y, Real z) {
    return two_pi<Real> * (kx * x + ky * y + kz * z);
}

/// Which of the two sums a computation forms; both are Σ_m w_m exp(i e_mn) with a different weight.
enum class MriOutput {
    q,    ///< Q: real weight |φ_m|², so r += w cos e, i += w sin e
    fhd,  ///< F^H d: complex weight μ_m = conj(φ_m) d_m, so r += rμ cos e − iμ sin e, i += iμ cos e + rμ sin e
};

/// Adds one sample's term to a voxel's sum, given cos e and sin e. For Q, @p w_i is ignored.
template <MriOutput Out, class Real>
KH_HD void mri_accumulate(Real& sum_r, Real& sum_i, Real w_r, Real w_i, Real cos_e, Real sin_e) {
    if constexpr (Out == MriOutput::q) {
        (void)w_i;
        sum_r += w_r * cos_e;
        sum_i += w_r * sin_e;
    } else {
        // Four separate updates, so that each contracts to one fused multiply-add: written as
        // `sum += a·c − b·s`, the compiler forms the bracket first (two FMULs, two FFMAs, two FADDs).
        sum_r += w_r * cos_e;
        sum_r -= w_i * sin_e;
        sum_i += w_i * cos_e;
        sum_i += w_r * sin_e;
    }
}

// [mri-math-end]

/// The weight of sample m for Q: |φ_m|².
template <class Real>
KH_HD Real phi_magnitude(Real phi_r, Real phi_i) {
    return phi_r * phi_r + phi_i * phi_i;
}

/// The weight of sample m for F^H d, real part: Re(conj(φ) d) = rφ rd + iφ id.
template <class Real>
KH_HD Real mu_real(Real phi_r, Real phi_i, Real d_r, Real d_i) {
    return phi_r * d_r + phi_i * d_i;
}

/// The weight of sample m for F^H d, imaginary part: Im(conj(φ) d) = rφ id − iφ rd.
template <class Real>
KH_HD Real mu_imag(Real phi_r, Real phi_i, Real d_r, Real d_i) {
    return phi_r * d_i - phi_i * d_r;
}

// [coulomb-math-begin]
/// The coordinate of lattice index @p i along one axis: i·h, formed in float so that every variant and
/// every reference place the lattice point at the same value.
KH_HD float lattice_coordinate(int i, float spacing) { return static_cast<float>(i) * spacing; }

/// The part of a squared distance that a whole lattice row shares: dy² + dz² (step D3 forms it once per
/// atom and row and reuses it for every point the thread owns).
template <class Real>
KH_HD Real row_distance(Real dy, Real dz_squared) {
    return dy * dy + dz_squared;
}

/// The squared distance of a lattice point from an atom: dx² + (dy² + dz²).
template <class Real>
KH_HD Real squared_distance(Real dx, Real row) {
    return dx * dx + row;
}
// [coulomb-math-end]

}  // namespace kirk_hwu
