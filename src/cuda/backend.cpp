#include "cuda/backend.hpp"

#include <cmath>
#include <vector>

#include "check.hpp"
#include "cpu/likelihood.hpp"
#include "cpu/stream_skipping.hpp"
#include "cpu/summation.hpp"
#include "likelihood.hpp"

namespace mwsep::cuda {
namespace {

/// Owns device allocations and frees them on every path.
class DeviceMemory {
public:
    ~DeviceMemory() {
        destroy_textures();  // textures first: they view the buffers
        for (void* p : owned_) cudaFree(p);
    }
    template <class T>
    T* allocate(std::size_t count, const char* what) {
        void* p = nullptr;
        check(cudaMalloc(&p, sizeof(T) * std::max<std::size_t>(count, 1)), what);
        owned_.push_back(p);
        return static_cast<T*>(p);
    }
    template <class T>
    T* upload(const std::vector<T>& host, const char* what) {
        T* d = allocate<T>(host.size(), what);
        check(cudaMemcpy(d, host.data(), sizeof(T) * host.size(), cudaMemcpyHostToDevice), what);
        return d;
    }
    void track_texture(cudaTextureObject_t t) { textures_.push_back(t); }
    void destroy_textures() {
        for (auto t : textures_) cudaDestroyTextureObject(t);
        textures_.clear();
    }

private:
    std::vector<void*> owned_;
    std::vector<cudaTextureObject_t> textures_;
};

template <class Real>
std::vector<Real> convert(const std::vector<double>& v, std::size_t size) {
    std::vector<Real> out(size, Real(0));
    for (std::size_t i = 0; i < v.size(); ++i) out[i] = static_cast<Real>(v[i]);
    return out;
}

/// The extra tables of the modern variants: the folded line of sight, the nu areas, the per-cell outputs
/// and the skip thresholds of the streams.
template <class Real>
void fill_modern(const geometry::IntegrationSetup& s, const geometry::AreaTables& t, DeviceArea& a,
                 AreaBuffers<Real>& b, int n_streams, DeviceMemory& mem) {
    const auto los = geometry::fold_line_of_sight(t);
    a.n_points = static_cast<int>(los.r_point.size());
    a.r_min = los.r_min;
    a.r_max = los.r_max;
    a.weight_sum = los.weight_sum;
    const auto thresholds = cpu::stream_skip_thresholds(s, t, los);
    for (int i = 0; i < n_streams; ++i) a.skip_threshold[i] = thresholds[i];
    b.folded_r = mem.upload(convert<Real>(los.r_point, los.r_point.size()), "upload the line-of-sight points");
    b.folded_w = mem.upload(convert<Real>(los.weight, los.weight.size()), "upload the line-of-sight weights");
    b.ids = mem.upload(convert<Real>(t.ids, t.ids.size()), "upload the nu areas");
    b.cell_out = mem.allocate<Real>(static_cast<std::size_t>(a.padded) * (1 + n_streams), "allocate per-cell results");
    a.sums = mem.allocate<double>(1 + n_streams, "allocate the area sums");
    a.block_weight = mem.upload(los.block_weight, "upload the r-bin weights");
    a.block_r_min = mem.upload(los.block_r_min, "upload the r-bin ranges");
    a.block_r_max = mem.upload(los.block_r_max, "upload the r-bin ranges");
    // Poison the outputs (all bits set is a NaN): a cell or sum the kernels never wrote cannot pass.
    check(cudaMemset(b.cell_out, 0xff, sizeof(Real) * a.padded * (1 + n_streams)), "poison per-cell results");
    check(cudaMemset(a.sums, 0xff, sizeof(double) * (1 + n_streams)), "poison the area sums");
}

/// The grid sizes and the cell directions, which every variant reads; with @p thesis_tables also the
/// per-r tables and the per-cell accumulators of the thesis's kernels (the modern ones need neither).
template <class Real>
void fill_area(const geometry::AreaTables& t, DeviceArea& a, AreaBuffers<Real>& b, int n_streams, DeviceMemory& mem,
               bool thesis_tables) {
    a.cells = static_cast<int>(t.cells());
    a.padded = (a.cells + 63) / 64 * 64;
    a.n_nu = t.n_nu();
    a.n_r = t.r.n_r;
    a.n_conv = t.r.n_conv;
    b.sinb = mem.upload(convert<Real>(t.sinb, a.padded), "upload cell directions");
    b.sinl = mem.upload(convert<Real>(t.sinl, a.padded), "upload cell directions");
    b.cosb = mem.upload(convert<Real>(t.cosb, a.padded), "upload cell directions");
    b.cosl = mem.upload(convert<Real>(t.cosl, a.padded), "upload cell directions");
    if (!thesis_tables) return;
    b.r_point = mem.upload(convert<Real>(t.r.r_point, t.r.r_point.size()), "upload convolution distances");
    b.qw = mem.upload(convert<Real>(t.r.qw_r3_n, t.r.qw_r3_n.size()), "upload convolution weights");
    std::vector<double> volume(static_cast<std::size_t>(a.n_r) * a.n_nu);
    for (int k = 0; k < a.n_r; ++k)
        for (int j = 0; j < a.n_nu; ++j)
            volume[static_cast<std::size_t>(k) * a.n_nu + j] = t.r.efficiency[k] * t.r.irv[k] * t.ids[j];
    b.volume = mem.upload(convert<Real>(volume, volume.size()), "upload volume factors");
    const std::size_t acc = static_cast<std::size_t>(a.padded) * std::max(n_streams, 1);
    b.bg = mem.allocate<Real>(a.padded, "allocate accumulators");
    b.bg_comp = mem.allocate<Real>(a.padded, "allocate accumulators");
    b.st = mem.allocate<Real>(acc, "allocate accumulators");
    b.st_comp = mem.allocate<Real>(acc, "allocate accumulators");
    check(cudaMemset(b.bg, 0, sizeof(Real) * a.padded), "zero accumulators");
    check(cudaMemset(b.bg_comp, 0, sizeof(Real) * a.padded), "zero accumulators");
    check(cudaMemset(b.st, 0, sizeof(Real) * acc), "zero accumulators");
    check(cudaMemset(b.st_comp, 0, sizeof(Real) * acc), "zero accumulators");
}

/// Sums one area's accumulators over its cells in index order, in double (spec 3.4), adding the
/// single-precision compensation terms.
template <class Real>
std::vector<double> reduce_area(const DeviceArea& a, const AreaBuffers<Real>& b, int n_streams) {
    const std::size_t n = static_cast<std::size_t>(a.padded);
    std::vector<Real> bg(n), bgc(n), st(n * std::max(n_streams, 1)), stc(st.size());
    check(cudaMemcpy(bg.data(), b.bg, sizeof(Real) * n, cudaMemcpyDeviceToHost), "download accumulators");
    check(cudaMemcpy(bgc.data(), b.bg_comp, sizeof(Real) * n, cudaMemcpyDeviceToHost), "download accumulators");
    check(cudaMemcpy(st.data(), b.st, sizeof(Real) * st.size(), cudaMemcpyDeviceToHost), "download accumulators");
    check(cudaMemcpy(stc.data(), b.st_comp, sizeof(Real) * st.size(), cudaMemcpyDeviceToHost), "download accumulators");
    std::vector<double> sums(1 + n_streams, 0.0);
    for (int p = 0; p < a.cells; ++p) sums[0] += static_cast<double>(bg[p]) - static_cast<double>(bgc[p]);
    for (int s = 0; s < n_streams; ++s)
        for (int p = 0; p < a.cells; ++p) {
            const std::size_t i = static_cast<std::size_t>(s) * n + p;
            sums[1 + s] += static_cast<double>(st[i]) - static_cast<double>(stc[i]);
        }
    return sums;
}

template <class Real>
cudaTextureObject_t make_texture(const void* data, std::size_t count) {
    cudaResourceDesc res{};
    res.resType = cudaResourceTypeLinear;
    res.res.linear.devPtr = const_cast<void*>(data);
    if constexpr (sizeof(Real) == 8) {
        res.res.linear.desc = cudaCreateChannelDesc<int2>();
        res.res.linear.sizeInBytes = count * sizeof(int2);
    } else {
        res.res.linear.desc = cudaCreateChannelDesc<float>();
        res.res.linear.sizeInBytes = count * sizeof(float);
    }
    cudaTextureDesc tex{};
    tex.addressMode[0] = cudaAddressModeClamp;
    tex.filterMode = cudaFilterModePoint;
    tex.readMode = cudaReadModeElementType;
    cudaTextureObject_t object = 0;
    check(cudaCreateTextureObject(&object, &res, &tex, nullptr), "create the stream-constant texture");
    return object;
}

}  // namespace

int select_device(int requested, bool need_double) {
    int count = 0;
    const cudaError_t status = cudaGetDeviceCount(&count);
    if (status == cudaErrorNoDevice || status == cudaErrorInsufficientDriver || count == 0)
        throw CudaError("no CUDA device is available (" + std::string(cudaGetErrorString(status)) + ")");
    check(status, "count CUDA devices");
    auto supports_double = [](const cudaDeviceProp& p) { return p.major > 1 || (p.major == 1 && p.minor >= 3); };
    if (requested >= 0) {
        if (requested >= count)
            throw CudaError("--device " + std::to_string(requested) + " does not exist (" + std::to_string(count) +
                            " devices)");
        cudaDeviceProp p{};
        check(cudaGetDeviceProperties(&p, requested), "query the device");
        if (need_double && !supports_double(p))
            throw CudaError(std::string("device ") + p.name + " has no double precision");
        return requested;
    }
    int best = -1;
    double best_rate = -1;
    for (int d = 0; d < count; ++d) {
        cudaDeviceProp p{};
        check(cudaGetDeviceProperties(&p, d), "query a device");
        int clock_khz = 0;
        cudaDeviceGetAttribute(&clock_khz, cudaDevAttrClockRate, d);
        const double rate = static_cast<double>(p.multiProcessorCount) * clock_khz;
        if ((!need_double || supports_double(p)) && rate > best_rate) best = d, best_rate = rate;
    }
    if (best < 0) throw CudaError("no CUDA device with double precision");
    return best;
}

GpuResult evaluate(const geometry::IntegrationSetup& setup, const model::StarCatalogue& stars,
                   const std::string& variant_name, int device, const LaunchOptions& launch, bool soa_stars) {
    const VariantInfo& v = find_variant(variant_name);
    const auto& m = setup.model;
    const int S = static_cast<int>(setup.streams.size());
    if (S > 4) throw CudaError("the CUDA kernels support at most 4 streams; this work unit has " + std::to_string(S));
    if (!setup.hernquist_fast_path || m.aux_profile)
        throw CudaError("the CUDA kernels implement the alpha = delta = 1 background without the auxiliary term, as "
                        "the thesis's kernels did; use the CPU backend for this work unit");
    if (launch.threads_per_block < 32 || launch.threads_per_block > 1024 || launch.threads_per_block % 32 != 0)
        throw CudaError("threads per block must be a multiple of 32 in [32, 1024]");
    int dev = 0;
    if (launch.keep_context) {
        check(cudaGetDevice(&dev), "read the current device");
    } else {
        dev = select_device(device, v.double_precision);
        check(cudaSetDevice(dev), "select the device");
    }
    cudaDeviceProp prop{};
    check(cudaGetDeviceProperties(&prop, dev), "query the device");

    DeviceMemory mem;
    DeviceStreams streams;
    streams.count = S;
    streams.q_inv_sq = setup.q_inv_sq;
    streams.r0 = m.r0;
    for (int s = 0; s < S; ++s) {
        const auto& g = setup.streams[s];
        const double vals[6] = {g.centre.x, g.centre.y, g.centre.z, g.axis.x, g.axis.y, g.axis.z};
        for (int i = 0; i < 6; ++i) streams.host_f64[6 * s + i] = vals[i], streams.host_f32[6 * s + i] = float(vals[i]);
        streams.inv_two_sigma_sq_f64[s] = g.inv_two_sigma_sq;
        streams.inv_two_sigma_sq_f32[s] = float(g.inv_two_sigma_sq);
    }
    streams.global_f64 = mem.upload(std::vector<double>(streams.host_f64, streams.host_f64 + stream_table_size), "upload stream constants");
    streams.global_f32 = mem.upload(std::vector<float>(streams.host_f32, streams.host_f32 + stream_table_size), "upload stream constants");
    streams.texture_f64 = make_texture<double>(streams.global_f64, stream_table_size);
    mem.track_texture(streams.texture_f64);
    streams.texture_f32 = make_texture<float>(streams.global_f32, stream_table_size);
    mem.track_texture(streams.texture_f32);

    std::vector<DeviceArea> areas(setup.areas.size());
    for (std::size_t i = 0; i < areas.size(); ++i) {
        if (v.double_precision) fill_area<double>(setup.areas[i], areas[i], areas[i].f64, S, mem, !v.device_reduced);
        else fill_area<float>(setup.areas[i], areas[i], areas[i].f32, S, mem, !v.device_reduced);
        if (v.device_reduced) {
            if (v.double_precision) fill_modern<double>(setup, setup.areas[i], areas[i], areas[i].f64, S, mem);
            else fill_modern<float>(setup, setup.areas[i], areas[i], areas[i].f32, S, mem);
        }
    }

    const Stream owned_stream;
    const cudaStream_t stream = owned_stream.get();
    Event start, stop;
    start.record(stream);
    for (const auto& a : areas) v.launch(a, streams, launch, stream);
    stop.record(stream);
    check(cudaStreamSynchronize(stream), "run the integral kernels");
    const float integral_ms = stop.since(start);

    GpuResult r;
    r.integrals.streams.assign(S, 0.0);
    for (std::size_t i = 0; i < areas.size(); ++i) {
        std::vector<double> sums(1 + S);
        if (v.device_reduced)
            check(cudaMemcpy(sums.data(), areas[i].sums, sizeof(double) * (1 + S), cudaMemcpyDeviceToHost),
                  "download the area sums");
        else
            sums = v.double_precision ? reduce_area(areas[i], areas[i].f64, S) : reduce_area(areas[i], areas[i].f32, S);
        const double sign = i == 0 ? 1.0 : -1.0;
        r.integrals.background = i == 0 ? sums[0] : r.integrals.background + sign * sums[0];
        for (int s = 0; s < S; ++s) r.integrals.streams[s] = i == 0 ? sums[1 + s] : r.integrals.streams[s] + sign * sums[1 + s];
    }
    cpu::check_integrals(r.integrals);

    const StarResults star = run_likelihood_kernel(setup, stars, r.integrals, v.double_precision, soa_stars, stream);
    const auto w = cpu::mixture_weights(m);
    double sum = 0, bg_sum = 0;
    std::vector<double> stream_sums(S, 0.0);
    for (std::size_t n = 0; n < stars.size(); ++n) {
        if (!std::isfinite(star.log_probability[n]))
            throw CudaError("the likelihood kernel left star " + std::to_string(n) + " without a finite result");
        sum += star.log_probability[n];
        r.likelihood.zero_probability_stars += star.log_probability[n] == -238.0;
        const double* d = &star.densities[n * (1 + S)];
        bg_sum += cpu::diagnostic_term(d[0], r.integrals.background, w.background, w.sum);
        for (int s = 0; s < S; ++s) stream_sums[s] += cpu::diagnostic_term(d[1 + s], r.integrals.streams[s], w.streams[s], w.sum);
    }
    const double n_stars = static_cast<double>(stars.size());
    r.likelihood.likelihood = sum / n_stars;
    r.likelihood.background_likelihood = bg_sum / n_stars;
    for (int s = 0; s < S; ++s) r.likelihood.stream_only.push_back(stream_sums[s] / n_stars);
    r.integral_seconds = integral_ms / 1000.0;
    r.likelihood_seconds = star.kernel_ms / 1000.0;
    r.device = prop.name;
    return r;
}

}  // namespace mwsep::cuda
