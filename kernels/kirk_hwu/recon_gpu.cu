/// @file recon_gpu.cu
/// @brief The GPU reconstruction: Q on the doubled offsets grid and F^H d by the study's variants (the μ
/// kernel of step F1a prepares their weights), the circulant's spectrum with cuFFT, conjugate gradients on
/// (AᴴA + λR) ρ = Aᴴd with AᴴA applied as a zero-padded FFT convolution, and the gridding baseline
/// (Kaiser-Bessel spreading with atomic adds, inverse FFT, deapodisation). Everything after Q and F^H d is
/// in double precision; the per-point math is recon_math.hpp's, shared with the CPU.
#include <cufft.h>

#include <chrono>
#include <memory>
#include <stdexcept>
#include <string>

#include "gpu_variants.hpp"
#include "nufft_gpu.hpp"
#include "harness/check.hpp"
#include "harness/device_budget_cuda.hpp"
#include "harness/device_memory.hpp"
#include "kirk_hwu/pair_math.hpp"
#include "kirk_hwu/recon/pipeline.hpp"
#include "kirk_hwu/recon/recon_math.hpp"
#include "kirk_hwu/reference.hpp"

namespace kirk_hwu::recon {

namespace {

/// Throws std::runtime_error naming @p what unless @p status is CUFFT_SUCCESS.
void check_fft(cufftResult status, const char* what) {
    if (status != CUFFT_SUCCESS)
        throw std::runtime_error(std::string("cuFFT failed to ") + what + " (cufftResult " + std::to_string(status) + ")");
}

/// A cuFFT plan for an L³ double-complex transform, destroyed with its owner.
class Plan3d {
public:
    /// Plans the transform of an @p l³ array, run on @p stream.
    Plan3d(int l, cudaStream_t stream) {
        check_fft(cufftPlan3d(&plan_, l, l, l, CUFFT_Z2Z), "plan a 3-D double-complex FFT");
        check_fft(cufftSetStream(plan_, stream), "set the FFT's stream");
    }
    ~Plan3d() { cufftDestroy(plan_); }
    Plan3d(const Plan3d&) = delete;
    Plan3d& operator=(const Plan3d&) = delete;
    /// In place: CUFFT_FORWARD sums with e^{−2πi…}, CUFFT_INVERSE with e^{+2πi…}; neither divides.
    void run(double2* data, int direction) { check_fft(cufftExecZ2Z(plan_, data, data, direction), "run a 3-D FFT"); }

private:
    cufftHandle plan_ = 0;
};

/// Threads per block of every kernel here.
constexpr int block = 256;
/// Blocks that cover @p n threads.
int blocks_for(std::size_t n) { return static_cast<int>((n + block - 1) / block); }

// [toeplitz-kernels-begin]
/// The circulant array from Q on the (2N₁)³ offsets grid: Q at grid index (a, b, c) goes to
/// (circulant_index(a), circulant_index(b), circulant_index(c)), divided by (2N₁)³ for the inverse FFT.
template <class Real>
__global__ void circulant_from_q(const Real* q_r, const Real* q_i, int g, double2* c) {
    const int l = 2 * g;
    const std::size_t total = static_cast<std::size_t>(l) * l * l;
    const std::size_t from = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x;
    if (from >= total) return;
    const int a = static_cast<int>(from % l), b = static_cast<int>(from / l % l), k = static_cast<int>(from / l / l);
    const std::size_t to = circulant_index(a, g) + static_cast<std::size_t>(l) * (circulant_index(b, g) + static_cast<std::size_t>(l) * circulant_index(k, g));
    const double scale = 1.0 / static_cast<double>(total);
    c[to] = make_double2(q_r[from] * scale, q_i[from] * scale);
}

/// Copies the N₁³ image into the corner of the zeroed (2N₁)³ array.
__global__ void embed(const double2* image, int g, double2* pad) {
    const std::size_t n = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x;
    if (n >= static_cast<std::size_t>(g) * g * g) return;
    const std::size_t a = n % g, b = n / g % g, c = n / g / g, l = 2 * static_cast<std::size_t>(g);
    pad[a + l * (b + l * c)] = image[n];
}

/// Multiplies the transformed array by the circulant's spectrum, point by point.
__global__ void multiply(double2* pad, const double2* spectrum, std::size_t total) {
    const std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x;
    if (i >= total) return;
    const double2 u = pad[i], v = spectrum[i];
    pad[i] = make_double2(u.x * v.x - u.y * v.y, u.x * v.y + u.y * v.x);
}

/// y = (the corner of the convolved array) + λ R x, R the roughness penalty of roughness_apply.
__global__ void crop_add_roughness(const double2* pad, const double2* x, int g, double lambda, double2* y) {
    const std::size_t n = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x;
    if (n >= static_cast<std::size_t>(g) * g * g) return;
    const int at[3] = {static_cast<int>(n % g), static_cast<int>(n / g % g), static_cast<int>(n / g / g)};
    const std::size_t stride[3] = {1, static_cast<std::size_t>(g), static_cast<std::size_t>(g) * g};
    double rr = 0, ri = 0;
    for (int axis = 0; axis < 3; ++axis) {
        if (at[axis] > 0) rr += x[n].x - x[n - stride[axis]].x, ri += x[n].y - x[n - stride[axis]].y;
        if (at[axis] < g - 1) rr += x[n].x - x[n + stride[axis]].x, ri += x[n].y - x[n + stride[axis]].y;
    }
    const std::size_t l = 2 * static_cast<std::size_t>(g);
    const double2 t = pad[at[0] + l * (at[1] + l * at[2])];
    y[n] = make_double2(t.x + lambda * rr, t.y + lambda * ri);
}
// [toeplitz-kernels-end]

/// y += λ R x (the NUFFT path's AᴴA leaves its product in y).
__global__ void add_roughness(double2* y, const double2* x, int g, double lambda) {
    const std::size_t n = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x;
    if (n >= static_cast<std::size_t>(g) * g * g) return;
    const int at[3] = {static_cast<int>(n % g), static_cast<int>(n / g % g), static_cast<int>(n / g / g)};
    const std::size_t stride[3] = {1, static_cast<std::size_t>(g), static_cast<std::size_t>(g) * g};
    double rr = 0, ri = 0;
    for (int axis = 0; axis < 3; ++axis) {
        if (at[axis] > 0) rr += x[n].x - x[n - stride[axis]].x, ri += x[n].y - x[n - stride[axis]].y;
        if (at[axis] < g - 1) rr += x[n].x - x[n + stride[axis]].x, ri += x[n].y - x[n + stride[axis]].y;
    }
    y[n].x += lambda * rr;
    y[n].y += lambda * ri;
}

/// Blocks of the dot products (each writes one partial sum).
constexpr int dot_blocks = 1024;

/// Per block, Σ conj(a_i) b_i over a grid-stride share of the vectors; the host adds the blocks in order.
__global__ void dot_partials(const double2* a, const double2* b, std::size_t n, double2* partial) {
    __shared__ double sr[block], si[block];
    double r = 0, i = 0;
    for (std::size_t k = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x; k < n;
         k += static_cast<std::size_t>(gridDim.x) * blockDim.x) {
        r += a[k].x * b[k].x + a[k].y * b[k].y;
        i += a[k].x * b[k].y - a[k].y * b[k].x;
    }
    sr[threadIdx.x] = r, si[threadIdx.x] = i;
    __syncthreads();
    for (int s = block / 2; s > 0; s >>= 1) {
        if (static_cast<int>(threadIdx.x) < s) sr[threadIdx.x] += sr[threadIdx.x + s], si[threadIdx.x] += si[threadIdx.x + s];
        __syncthreads();
    }
    if (threadIdx.x == 0) partial[blockIdx.x] = make_double2(sr[0], si[0]);
}

/// x += α p, r −= α Ap.
__global__ void step_x_r(double2* x, double2* r, const double2* p, const double2* ap, double alpha, std::size_t n) {
    const std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x;
    if (i >= n) return;
    x[i].x += alpha * p[i].x, x[i].y += alpha * p[i].y;
    r[i].x -= alpha * ap[i].x, r[i].y -= alpha * ap[i].y;
}

/// p = r + β p.
__global__ void step_p(double2* p, const double2* r, double beta, std::size_t n) {
    const std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x;
    if (i >= n) return;
    p[i] = make_double2(r[i].x + beta * p[i].x, r[i].y + beta * p[i].y);
}

/// The F^H d output of a variant, as complex doubles.
template <class Real>
__global__ void to_complex(const Real* re, const Real* im, std::size_t n, double2* out) {
    const std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x;
    if (i < n) out[i] = make_double2(re[i], im[i]);
}

// [gridding-kernels-begin]
/// One thread per sample adds μ_m KB(u − u_m) to the (W+2)³ grid points around it (atomically: samples
/// share points), at the FFT's index of each point, (p − σN₁/2) mod σN₁.
__global__ void spread(const double* kx, const double* ky, const double* kz, const double* wr, const double* wi,
                       int samples, int big, int sigma, double width, double beta, double* grid) {
    const int m = blockIdx.x * blockDim.x + threadIdx.x;
    if (m >= samples) return;
    const double u[3] = {sigma * kx[m] + big / 2, sigma * ky[m] + big / 2, sigma * kz[m] + big / 2};
    const int reach = static_cast<int>(floor(width / 2));
    int first[3];
    for (int a = 0; a < 3; ++a) first[a] = static_cast<int>(floor(u[a])) - reach;
    for (int tc = 0; tc <= 2 * reach + 1; ++tc) {
        const double wc = kaiser_bessel(fabs(u[2] - (first[2] + tc)), width, beta);
        const std::size_t c = static_cast<std::size_t>(((first[2] + tc - big / 2) % big + big) % big);
        for (int tb = 0; tb <= 2 * reach + 1; ++tb) {
            const double wb = wc * kaiser_bessel(fabs(u[1] - (first[1] + tb)), width, beta);
            const std::size_t b = static_cast<std::size_t>(((first[1] + tb - big / 2) % big + big) % big);
            for (int ta = 0; ta <= 2 * reach + 1; ++ta) {
                const double w = wb * kaiser_bessel(fabs(u[0] - (first[0] + ta)), width, beta);
                if (w == 0) continue;
                const std::size_t a = static_cast<std::size_t>(((first[0] + ta - big / 2) % big + big) % big);
                double* point = grid + 2 * (a + big * (b + big * c));
                atomicAdd(point, w * wr[m]);
                atomicAdd(point + 1, w * wi[m]);
            }
        }
    }
}

/// The central N₁³ of the inverse-transformed grid, divided by σ³ and the kernel's transform per axis.
__global__ void deapodise(const double2* grid, int g, int big, int sigma, double width, double beta, double2* image) {
    const std::size_t n = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x;
    if (n >= static_cast<std::size_t>(g) * g * g) return;
    const int at[3] = {static_cast<int>(n % g) - g / 2, static_cast<int>(n / g % g) - g / 2, static_cast<int>(n / g / g) - g / 2};
    double scale = 1.0 / (static_cast<double>(sigma) * sigma * sigma);
    std::size_t idx[3];
    for (int a = 0; a < 3; ++a) {
        scale /= kaiser_bessel_transform(at[a] / static_cast<double>(g), width, sigma, beta);
        idx[a] = static_cast<std::size_t>((at[a] + big) % big);
    }
    const double2 v = grid[idx[0] + big * (idx[1] + big * idx[2])];
    image[n] = make_double2(v.x * scale, v.y * scale);
}
// [gridding-kernels-end]

/// The variant @p name of problem @p p, or std::invalid_argument naming what was expected.
const gpu::Variant& variant_of(const std::string& name, gpu::Problem p) {
    const gpu::Variant& v = gpu::variants().find(name);
    if (v.problem != p)
        throw std::invalid_argument("the variant '" + name + "' computes " + gpu::problem_name(v.problem) + ", not " +
                                    gpu::problem_name(p));
    return v;
}

/// The @p n complex values at @p d, copied to the host.
std::vector<std::complex<double>> download(const double2* d, std::size_t n) {
    std::vector<std::complex<double>> out(n);
    static_assert(sizeof(std::complex<double>) == sizeof(double2));
    harness::check(cudaMemcpy(out.data(), d, sizeof(double2) * n, cudaMemcpyDeviceToHost), "copy an image back");
    return out;
}

}  // namespace

ReconOutcome reconstruct_gpu(const ReconProblem& problem, const ReconSettings& settings, const GpuChoice& choice) {
    const gpu::Variant& qv = variant_of(choice.q_variant, gpu::Problem::mri_q);
    const gpu::Variant& fv = variant_of(choice.fhd_variant, gpu::Problem::mri_fhd);
    const GriddingSettings& gs = settings.gridding;
    const int g = problem.shape.grid, l = 2 * g, big = gs.oversampling * g;
    if (big != l) throw std::invalid_argument("the GPU gridding uses an oversampling of 2 (the Toeplitz grid's size)");
    if (choice.check_points == 0)
        throw std::invalid_argument("the GPU reconstruction checks each variant against FP64 at one voxel at least");
    const std::size_t n = problem.voxels(), total = static_cast<std::size_t>(l) * l * l;
    ReconOutcome out;
    out.q_pairs = static_cast<double>(problem.samples()) * problem.q.voxels();
    out.fhd_pairs = static_cast<double>(problem.samples()) * n;
    // [check-reference-begin]
    // The FP64 references at the check points, on the host before any device work: each variant's first
    // evaluation is compared with them, and only an evaluation within the variant's tolerance is timed.
    const std::vector<std::size_t> q_points = spread_subset(problem.q.voxels(), choice.check_points);
    const std::vector<std::size_t> fhd_points = spread_subset(n, choice.check_points);
    const std::vector<double> q_reference = settings.iterative && !settings.use_nufft
                                                ? mri_reference(problem.q, MriOutput::q, q_points, settings.threads)
                                                : std::vector<double>{};
    const std::vector<double> fhd_reference =
        settings.iterative ? mri_reference(problem.fhd, MriOutput::fhd, fhd_points, settings.threads) : std::vector<double>{};
    // [check-reference-end]

    {
        // Everything below lives until the end: checked against the device's free memory before any of it is
        // allocated (both MRI copies counted at their peak, so their temporary sample arrays twice: a bound).
        harness::DevicePlan plan("the GPU reconstruction of a " + std::to_string(g) + "^3 image");
        if (settings.iterative && !settings.use_nufft)
            plan.include(gpu::mri_device_plan(problem.q.voxels(), problem.q.samples(), MriOutput::q));
        plan.include(gpu::mri_device_plan(n, problem.fhd.samples(), MriOutput::fhd));
        if (settings.iterative && settings.use_nufft)
            plan.include(gpu::NufftDevice::plan(nufft_grid(g, settings.nufft), problem.samples()))
                .add<double2>("the NUFFT's data and products at the samples", problem.samples(), 2)
                .add<double>("the density weights", problem.samples());
        plan.add<double2>("the Toeplitz spectrum and the padded image", total, 2)
            .add<double2>("the solver's vectors", n, 5)
            .add<double2>("the dot products' partial sums", dot_blocks);
        std::size_t work = 0;
        check_fft(cufftEstimate3d(l, l, l, CUFFT_Z2Z, &work), "estimate the 3-D FFT's work area");
        plan.add<char>("the 3-D FFT's work area", work);
        harness::require_device_memory(plan, -1, "reconstruct a smaller image, or free the device (other processes on it)");
    }
    harness::Stream stream;
    harness::DeviceMemory mem;
    // Q's device copy (the (2N₁)³ offsets grid) only where the solve needs it.
    std::unique_ptr<gpu::MriDevice> q_device;
    if (settings.iterative && !settings.use_nufft) q_device = std::make_unique<gpu::MriDevice>(problem.q, MriOutput::q);
    gpu::MriDevice fhd_device(problem.fhd, MriOutput::fhd);
    out.times.mu_ms = fhd_device.weights_ms;
    double2* spectrum = mem.allocate<double2>(total, "allocate the Toeplitz spectrum");
    double2* pad = mem.allocate<double2>(total, "allocate the padded image");
    double2* x = mem.allocate<double2>(n, "allocate the image");
    double2* r = mem.allocate<double2>(n, "allocate the residual");
    double2* p = mem.allocate<double2>(n, "allocate the search direction");
    double2* ap = mem.allocate<double2>(n, "allocate the operator's product");
    double2* b = mem.allocate<double2>(n, "allocate F^H d");
    double2* partial = mem.allocate<double2>(dot_blocks, "allocate the dot products' partial sums");
    Plan3d plan(l, stream.get());
    gpu::LaunchSettings q_launch, fhd_launch;
    q_launch.threads_per_block = choice.q_threads_per_block;
    q_launch.chunk = choice.q_chunk;
    fhd_launch.threads_per_block = choice.fhd_threads_per_block;
    fhd_launch.chunk = choice.fhd_chunk;
    const auto launched = [](const char* what) { harness::check(cudaGetLastError(), what); };
    harness::Event e0, e1, e2;
    // One untimed evaluation of variant @p v, compared with the FP64 reference at the check points; outside
    // the variant's tolerance the reconstruction stops here, before anything is timed.
    const auto check_variant = [&](const gpu::Variant& v, gpu::MriDevice& device, const gpu::LaunchSettings& launch,
                                   const std::vector<std::size_t>& points, const std::vector<double>& reference,
                                   const char* what) {
        v.mri(device, launch, stream.get());
        harness::check(cudaStreamSynchronize(stream.get()), "evaluate the checked run");
        const ErrorStats e = compare(reference, device.download(points, v.fp64));
        const VariantCheck c{points.size(), e.rel_l2, e.max_rel, v.tolerance};
        if (!(e.rel_l2 <= v.tolerance && e.max_rel <= v.tolerance))
            throw std::runtime_error(std::string(what) + " by " + v.name + " is outside its tolerance " +
                                     std::to_string(v.tolerance) + " of FP64 at " + std::to_string(points.size()) +
                                     " voxels (relative L2 " + std::to_string(e.rel_l2) + ", max relative " +
                                     std::to_string(e.max_rel) + "): not timed");
        return c;
    };
    std::unique_ptr<gpu::NufftDevice> nufft;
    double2* samples_buffer = nullptr;  // the NUFFT path's T₂ products
    double* density = nullptr;          // the NUFFT path's |φ_m|²
    if (settings.iterative && settings.use_nufft) {
        // [gpu-nufft-fhd-begin]
        // A different algorithm: F^H d by the adjoint NUFFT of μ_m = conj(φ_m) d'_m (checked against the FP64
        // sums at the check points, within the NUFFT's tolerance, then timed); no Q. The plan (sorting the
        // samples, cuFFT's plan) is made once per trajectory, outside the timing, as a NUFFT library's is.
        const MriInput& in = problem.fhd;
        std::vector<double> kx(in.samples()), ky(in.samples()), kz(in.samples()), w(in.samples());
        std::vector<double2> mu(in.samples());
        for (std::size_t m = 0; m < in.samples(); ++m) {
            kx[m] = in.kx[m], ky[m] = in.ky[m], kz[m] = in.kz[m];
            w[m] = static_cast<double>(in.phi_r[m]) * in.phi_r[m] + static_cast<double>(in.phi_i[m]) * in.phi_i[m];
            mu[m] = make_double2(mu_real<double>(in.phi_r[m], in.phi_i[m], in.d_r[m], in.d_i[m]),
                                 mu_imag<double>(in.phi_r[m], in.phi_i[m], in.d_r[m], in.d_i[m]));
        }
        out.nufft = nufft_grid(g, settings.nufft);
        const auto plan_start = std::chrono::steady_clock::now();
        nufft = std::make_unique<gpu::NufftDevice>(out.nufft, kx, ky, kz, stream.get());
        harness::check(cudaStreamSynchronize(stream.get()), "plan the NUFFT");
        out.times.nufft_plan_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - plan_start).count();
        const double2* mu_device = mem.upload(mu, "upload the density-compensated data");
        density = mem.upload(w, "upload the density weights");
        samples_buffer = mem.allocate<double2>(in.samples(), "allocate the NUFFT's products at the samples");
        nufft->adjoint(mu_device, b, stream.get());
        harness::check(cudaStreamSynchronize(stream.get()), "evaluate the checked NUFFT");
        {
            const std::vector<std::complex<double>> all = download(b, n);
            std::vector<double> got;
            for (std::size_t v : fhd_points) got.push_back(all[v].real());
            for (std::size_t v : fhd_points) got.push_back(all[v].imag());
            const ErrorStats e = compare(fhd_reference, got);
            out.fhd_check = {fhd_points.size(), e.rel_l2, e.max_rel, settings.nufft.tolerance};
            if (!(e.rel_l2 <= settings.nufft.tolerance))
                throw std::runtime_error("F^H d by the NUFFT is outside its tolerance " + std::to_string(settings.nufft.tolerance) +
                                         " of the FP64 sums at " + std::to_string(fhd_points.size()) + " voxels (relative L2 " +
                                         std::to_string(e.rel_l2) + "): not timed");
        }
        e0.record(stream.get());
        nufft->adjoint(mu_device, b, stream.get());
        e1.record(stream.get());
        harness::check(cudaStreamSynchronize(stream.get()), "compute F^H d by the NUFFT");
        out.times.fhd_ms = e1.since(e0);
        // [gpu-nufft-fhd-end]
    }
    if (settings.iterative) {
        if (!settings.use_nufft) {
            // Q (checked, then timed), then its circulant's spectrum.
            out.q_check = check_variant(qv, *q_device, q_launch, q_points, q_reference, "Q");
            e0.record(stream.get());
            qv.mri(*q_device, q_launch, stream.get());
            e1.record(stream.get());
            if (qv.fp64) circulant_from_q<<<blocks_for(total), block, 0, stream.get()>>>(q_device->f64.out_r, q_device->f64.out_i, g, spectrum);
            else circulant_from_q<<<blocks_for(total), block, 0, stream.get()>>>(q_device->f32.out_r, q_device->f32.out_i, g, spectrum);
            launched("launch the circulant kernel");
            plan.run(spectrum, CUFFT_FORWARD);
            e2.record(stream.get());
            harness::check(cudaStreamSynchronize(stream.get()), "compute Q and its spectrum");
            out.times.q_ms = e1.since(e0);
            out.times.q_fft_ms = e2.since(e1);
            if (settings.keep_inputs) out.q_values = q_device->download({}, qv.fp64);

            // F^H d (checked, then timed).
            out.fhd_check = check_variant(fv, fhd_device, fhd_launch, fhd_points, fhd_reference, "F^H d");
            e0.record(stream.get());
            fv.mri(fhd_device, fhd_launch, stream.get());
            if (fv.fp64) to_complex<<<blocks_for(n), block, 0, stream.get()>>>(fhd_device.f64.out_r, fhd_device.f64.out_i, n, b);
            else to_complex<<<blocks_for(n), block, 0, stream.get()>>>(fhd_device.f32.out_r, fhd_device.f32.out_i, n, b);
            launched("launch the F^H d conversion");
            e1.record(stream.get());
            harness::check(cudaStreamSynchronize(stream.get()), "compute F^H d");
            out.times.fhd_ms = e1.since(e0);
            if (settings.keep_inputs) out.fhd_values = download(b, n);
        }

        // [gpu-cg-begin]
        const auto dot = [&](const double2* a, const double2* c) {
            dot_partials<<<dot_blocks, block, 0, stream.get()>>>(a, c, n, partial);
            launched("launch the dot product");
            std::vector<double2> h(dot_blocks);
            harness::check(cudaMemcpyAsync(h.data(), partial, sizeof(double2) * dot_blocks, cudaMemcpyDeviceToHost, stream.get()),
                           "copy the dot product's partial sums");
            harness::check(cudaStreamSynchronize(stream.get()), "form a dot product");
            std::complex<double> s = 0;
            for (const double2& v : h) s += std::complex<double>(v.x, v.y);
            return s;
        };
        const auto apply_nufft = [&](const double2* in, double2* result) {
            // AᴴA x + λR x = T₁(|φ|² T₂ x) + λR x.
            nufft->forward(in, samples_buffer, density, stream.get());
            nufft->adjoint(samples_buffer, result, stream.get());
            add_roughness<<<blocks_for(n), block, 0, stream.get()>>>(result, in, g, settings.lambda);
            launched("launch the roughness kernel");
        };
        const auto apply = [&](const double2* in, double2* result) {
            if (settings.use_nufft) return apply_nufft(in, result);
            harness::check(cudaMemsetAsync(pad, 0, sizeof(double2) * total, stream.get()), "zero the padded image");
            embed<<<blocks_for(n), block, 0, stream.get()>>>(in, g, pad);
            launched("launch the embedding");
            plan.run(pad, CUFFT_FORWARD);
            multiply<<<blocks_for(total), block, 0, stream.get()>>>(pad, spectrum, total);
            launched("launch the spectral product");
            plan.run(pad, CUFFT_INVERSE);
            crop_add_roughness<<<blocks_for(n), block, 0, stream.get()>>>(pad, in, g, settings.lambda, result);
            launched("launch the crop and roughness kernel");
        };
        e0.record(stream.get());
        harness::check(cudaMemsetAsync(x, 0, sizeof(double2) * n, stream.get()), "zero the image");
        harness::check(cudaMemcpyAsync(r, b, sizeof(double2) * n, cudaMemcpyDeviceToDevice, stream.get()), "copy F^H d");
        harness::check(cudaMemcpyAsync(p, b, sizeof(double2) * n, cudaMemcpyDeviceToDevice, stream.get()), "copy F^H d");
        const double b_norm = std::sqrt(dot(b, b).real());
        double rr = b_norm * b_norm;
        for (int k = 1; b_norm > 0 && k <= settings.cg.max_iterations; ++k) {
            apply(p, ap);
            const double curvature = dot(p, ap).real();
            if (!(curvature > 0)) throw std::runtime_error("conjugate gradients: the operator is not positive definite (pᴴAp ≤ 0)");
            const double alpha = rr / curvature;
            step_x_r<<<blocks_for(n), block, 0, stream.get()>>>(x, r, p, ap, alpha, n);
            launched("launch the CG update");
            const double rr_next = dot(r, r).real();
            const double f = -0.5 * dot(b, x).real() - 0.5 * dot(x, r).real();
            out.cg.history.push_back({k, std::sqrt(rr_next) / b_norm, f});
            if (std::sqrt(rr_next) <= settings.cg.tolerance * b_norm) break;
            step_p<<<blocks_for(n), block, 0, stream.get()>>>(p, r, rr_next / rr, n);
            launched("launch the CG direction update");
            rr = rr_next;
        }
        e1.record(stream.get());
        harness::check(cudaStreamSynchronize(stream.get()), "run conjugate gradients");
        out.times.solver_ms = e1.since(e0);
        // [gpu-cg-end]
        out.iterative = download(x, n);
        out.cg.x = out.iterative;
    }

    // Gridding, into the padded array (the same (2N₁)³ size): spread, inverse FFT, deapodise into ap.
    const double beta = kaiser_bessel_beta(gs.width, gs.oversampling);
    const auto& f64 = fhd_device.f64;  // k and μ = conj(φ) d' in double (the μ kernel's output)
    e0.record(stream.get());
    harness::check(cudaMemsetAsync(pad, 0, sizeof(double2) * total, stream.get()), "zero the gridding grid");
    spread<<<blocks_for(problem.samples()), block, 0, stream.get()>>>(f64.kx, f64.ky, f64.kz, f64.wr, f64.wi,
                                                                      static_cast<int>(problem.samples()), big,
                                                                      gs.oversampling, gs.width, beta,
                                                                      reinterpret_cast<double*>(pad));
    launched("launch the gridding kernel");
    plan.run(pad, CUFFT_INVERSE);
    deapodise<<<blocks_for(n), block, 0, stream.get()>>>(pad, g, big, gs.oversampling, gs.width, beta, ap);
    launched("launch the deapodisation");
    e1.record(stream.get());
    harness::check(cudaStreamSynchronize(stream.get()), "run the gridding reconstruction");
    out.times.gridding_ms = e1.since(e0);
    out.gridded = download(ap, n);
    return out;
}

}  // namespace kirk_hwu::recon
