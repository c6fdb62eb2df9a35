#include "mwsep/cuda/backend.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <future>
#include <memory>
#include <vector>

#include "mwsep/cuda_check.hpp"
#include "mwsep/likelihood/likelihood.hpp"
#include "mwsep/likelihood/stream_skipping.hpp"
#include "mwsep/math/summation.hpp"
#include "mwsep/likelihood_kernel.hpp"

namespace mwsep::cuda {
namespace {

/// Owns device allocations and frees them on every path.
class DeviceMemory {
public:
    DeviceMemory() { cudaGetDevice(&device_); }
    ~DeviceMemory() {
        harness::use_device_quietly(device_);  // free on the device that allocated, whichever is current now
        destroy_textures();      // textures first: they view the buffers
        for (void* p : owned_) cudaFree(p);
    }
    DeviceMemory(const DeviceMemory&) = delete;
    DeviceMemory& operator=(const DeviceMemory&) = delete;
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
    int device_ = 0;
    std::vector<void*> owned_;
    std::vector<cudaTextureObject_t> textures_;
};

template <class Real>
std::vector<Real> convert(const std::vector<double>& v, std::size_t size) {
    std::vector<Real> out(size, Real(0));
    for (std::size_t i = 0; i < v.size(); ++i) out[i] = static_cast<Real>(v[i]);
    return out;
}

/// What the modern variants need of one area beyond the cell directions, computed once on the host
/// and uploaded to every device: the folded line of sight and the streams' skip thresholds.
struct ModernHostArea {
    geometry::FoldedLineOfSight los;
    std::vector<double> thresholds;
};

ModernHostArea prepare_modern(const geometry::IntegrationSetup& s, const geometry::AreaTables& t) {
    ModernHostArea h;
    h.los = geometry::fold_line_of_sight(t);
    h.thresholds = cpu::stream_skip_thresholds(s, t, h.los);
    return h;
}

/// Uploads the modern variants' tables of one area: the folded line of sight, the nu areas, the per-cell
/// outputs, the chunk partial sums and the exponential's table.
template <class Real>
void fill_modern(const ModernHostArea& h, const geometry::AreaTables& t, DeviceArea& a, AreaBuffers<Real>& b,
                 int n_streams, const math::ExpTableEntry* exp_table, DeviceMemory& mem) {
    const auto& los = h.los;
    a.n_points = static_cast<int>(los.r_point.size());
    a.r_min = los.r_min;
    a.r_max = los.r_max;
    a.weight_sum = los.weight_sum;
    for (int i = 0; i < n_streams; ++i) a.skip_threshold[i] = h.thresholds[i];
    a.exp_table = exp_table;
    a.r_pieces = modern_r_pieces(a.cells, a.n_r);
    b.folded_r = mem.upload(convert<Real>(los.r_point, los.r_point.size()), "upload the line-of-sight points");
    b.folded_w = mem.upload(convert<Real>(los.weight, los.weight.size()), "upload the line-of-sight weights");
    b.ids = mem.upload(convert<Real>(t.ids, t.ids.size()), "upload the nu areas");
    const std::size_t n_out = static_cast<std::size_t>(a.padded) * (1 + n_streams) * a.r_pieces;
    b.cell_out = mem.allocate<Real>(n_out, "allocate per-cell results");
    const std::size_t n_partials = static_cast<std::size_t>(reduction_chunks) * 2 * (1 + n_streams);
    a.partials = mem.allocate<double>(n_partials, "allocate the chunk sums");
    a.block_weight = mem.upload(los.block_weight, "upload the r-bin weights");
    a.block_r_min = mem.upload(los.block_r_min, "upload the r-bin ranges");
    a.block_r_max = mem.upload(los.block_r_max, "upload the r-bin ranges");
    // Poison the outputs (all bits set is a NaN): a cell or chunk the kernels never wrote cannot pass.
    check(cudaMemset(b.cell_out, 0xff, sizeof(Real) * n_out), "poison per-cell results");
    check(cudaMemset(a.partials, 0xff, sizeof(double) * n_partials), "poison the chunk sums");
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

/// Whether a device has double precision (compute capability 1.3 and later).
bool supports_double(const cudaDeviceProp& p) { return p.major > 1 || (p.major == 1 && p.minor >= 3); }

/// The number of CUDA devices; a clear error when there is none.
int device_count() {
    int count = 0;
    const cudaError_t status = cudaGetDeviceCount(&count);
    if (status == cudaErrorNoDevice || status == cudaErrorInsufficientDriver || count == 0)
        throw CudaError("no CUDA device is available (" + std::string(cudaGetErrorString(status)) + ")");
    check(status, "count CUDA devices");
    return count;
}

/// Every device (with double precision, when @p need_double), ranked as the thesis chose: largest SM
/// count x clock rate first, the lower index first among equals. Throws CudaError if none qualifies.
std::vector<int> ranked_devices(bool need_double) {
    std::vector<std::pair<double, int>> rated;
    const int count = device_count();
    for (int d = 0; d < count; ++d) {
        cudaDeviceProp p{};
        check(cudaGetDeviceProperties(&p, d), "query a device");
        int clock_khz = 0;
        cudaDeviceGetAttribute(&clock_khz, cudaDevAttrClockRate, d);
        if (!need_double || supports_double(p))
            rated.emplace_back(static_cast<double>(p.multiProcessorCount) * clock_khz, d);
    }
    if (rated.empty()) throw CudaError("no CUDA device with double precision");
    std::stable_sort(rated.begin(), rated.end(), [](const auto& a, const auto& b) { return a.first > b.first; });
    std::vector<int> out;
    for (const auto& r : rated) out.push_back(r.second);
    return out;
}

}  // namespace

int select_device(int requested, bool need_double) {
    if (requested < 0) return ranked_devices(need_double).front();
    const int count = device_count();
    if (requested >= count)
        throw CudaError("--device " + std::to_string(requested) + " does not exist (" + std::to_string(count) +
                        " devices)");
    cudaDeviceProp p{};
    check(cudaGetDeviceProperties(&p, requested), "query the device");
    if (need_double && !supports_double(p))
        throw CudaError(std::string("device ") + p.name + " has no double precision");
    return requested;
}

namespace {

/// The stream constants, on the host and (for the thesis's memory families) on the device.
DeviceStreams make_streams(const geometry::IntegrationSetup& setup, DeviceMemory& mem, bool device_tables) {
    const int S = static_cast<int>(setup.streams.size());
    DeviceStreams streams;
    streams.count = S;
    streams.q_inv_sq = setup.q_inv_sq;
    streams.r0 = setup.model.r0;
    for (int s = 0; s < S; ++s) {
        const auto& g = setup.streams[s];
        const double vals[6] = {g.centre.x, g.centre.y, g.centre.z, g.axis.x, g.axis.y, g.axis.z};
        for (int i = 0; i < 6; ++i) streams.host_f64[6 * s + i] = vals[i], streams.host_f32[6 * s + i] = float(vals[i]);
        streams.inv_two_sigma_sq_f64[s] = g.inv_two_sigma_sq;
        streams.inv_two_sigma_sq_f32[s] = float(g.inv_two_sigma_sq);
    }
    if (!device_tables) return streams;
    streams.global_f64 = mem.upload(std::vector<double>(streams.host_f64, streams.host_f64 + stream_table_size), "upload stream constants");
    streams.global_f32 = mem.upload(std::vector<float>(streams.host_f32, streams.host_f32 + stream_table_size), "upload stream constants");
    streams.texture_f64 = make_texture<double>(streams.global_f64, stream_table_size);
    mem.track_texture(streams.texture_f64);
    streams.texture_f32 = make_texture<float>(streams.global_f32, stream_table_size);
    mem.track_texture(streams.texture_f32);
    return streams;
}

/// The background and stream integrals of all areas (cut areas subtracted, spec 3.4) from per-area sums.
model::Integrals combine_areas(const std::vector<std::vector<double>>& area_sums, int S) {
    model::Integrals out;
    out.streams.assign(S, 0.0);
    for (std::size_t i = 0; i < area_sums.size(); ++i) {
        const double sign = i == 0 ? 1.0 : -1.0;
        out.background += sign * area_sums[i][0];
        for (int s = 0; s < S; ++s) out.streams[s] += sign * area_sums[i][1 + s];
    }
    return out;
}

/// The thesis's variants: one device, per-cell accumulators reduced on the host.
model::Integrals integrate_thesis(const geometry::IntegrationSetup& setup, const VariantInfo& v,
                                  const LaunchOptions& launch, float& integral_ms, double& prepare_seconds) {
    const auto t0 = std::chrono::steady_clock::now();
    const int S = static_cast<int>(setup.streams.size());
    DeviceMemory mem;
    const DeviceStreams streams = make_streams(setup, mem, true);
    std::vector<DeviceArea> areas(setup.areas.size());
    for (std::size_t i = 0; i < areas.size(); ++i) {
        if (v.double_precision) fill_area<double>(setup.areas[i], areas[i], areas[i].f64, S, mem, true);
        else fill_area<float>(setup.areas[i], areas[i], areas[i].f32, S, mem, true);
    }
    const Stream owned_stream;
    const cudaStream_t stream = owned_stream.get();
    Event start, stop;
    prepare_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    start.record(stream);
    for (const auto& a : areas) v.launch(a, streams, launch, stream);
    stop.record(stream);
    check(cudaStreamSynchronize(stream), "run the integral kernels");
    integral_ms = stop.since(start);
    std::vector<std::vector<double>> sums;
    for (const auto& a : areas) sums.push_back(v.double_precision ? reduce_area(a, a.f64, S) : reduce_area(a, a.f32, S));
    return combine_areas(sums, S);
}

/// Makes a device current when constructed: as the first member of a class, it puts the members after
/// it (allocations, streams, events) on that device.
struct CurrentDevice {
    explicit CurrentDevice(int dev) : device(dev) { harness::use_device(dev, "select a device for a slice"); }
    int device;
};

/// One slice of the modern variants' work: a device, its copies of the tables, and its range of every
/// area's reduction chunks.
struct ModernSlice {
    explicit ModernSlice(int dev) : current(dev) {}
    ~ModernSlice() { harness::use_device_quietly(current.device); }  // the members are released on their own device
    int device() const { return current.device; }
    CurrentDevice current;  // first, so that every member below is created on this slice's device
    DeviceMemory mem;
    Stream stream;
    Event start, stop;
    std::vector<DeviceArea> areas;
};

/// The modern variants: each area's cells split into contiguous ranges of reduction chunks (ranges of mu
/// rows), one per slice, the slices dealt round-robin to @p devices and run concurrently; the host adds
/// every chunk's compensated sum in chunk order, so the integrals do not depend on the slicing.
model::Integrals integrate_modern(const geometry::IntegrationSetup& setup, const VariantInfo& v,
                                  const std::vector<int>& devices, const LaunchOptions& launch, float& integral_ms,
                                  double& prepare_seconds) {
    const auto t0 = std::chrono::steady_clock::now();
    const int S = static_cast<int>(setup.streams.size());
    const int n_slices = launch.slices > 0 ? launch.slices : static_cast<int>(devices.size());
    if (n_slices > reduction_chunks)
        throw CudaError("at most " + std::to_string(reduction_chunks) + " slices (one reduction chunk each)");
    std::vector<ModernHostArea> host;
    for (const auto& t : setup.areas) host.push_back(prepare_modern(setup, t));
    std::vector<math::ExpTableEntry> exp_table(math::ExpTable::size);
    math::ExpTable::fill(exp_table.data());

    std::vector<std::unique_ptr<ModernSlice>> slices;
    for (int k = 0; k < n_slices; ++k) {
        auto slice = std::make_unique<ModernSlice>(devices[k % devices.size()]);
        const auto* table = slice->mem.upload(exp_table, "upload the exponential's table");
        slice->areas.resize(setup.areas.size());
        for (std::size_t i = 0; i < setup.areas.size(); ++i) {
            auto& a = slice->areas[i];
            const auto& t = setup.areas[i];
            if (v.double_precision) {
                fill_area<double>(t, a, a.f64, S, slice->mem, false);
                fill_modern<double>(host[i], t, a, a.f64, S, table, slice->mem);
            } else {
                fill_area<float>(t, a, a.f32, S, slice->mem, false);
                fill_modern<float>(host[i], t, a, a.f32, S, table, slice->mem);
            }
            a.first_chunk = reduction_chunks * k / n_slices;
            a.last_chunk = reduction_chunks * (k + 1) / n_slices;
        }
        slices.push_back(std::move(slice));
    }
    const DeviceStreams streams = make_streams(setup, slices.front()->mem, false);  // kernel arguments only
    prepare_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    for (auto& slice : slices) {
        harness::use_device(slice->device(), "select a slice's device");
        slice->start.record(slice->stream.get());
        for (const auto& a : slice->areas) v.launch(a, streams, launch, slice->stream.get());
        slice->stop.record(slice->stream.get());
    }
    integral_ms = 0;
    std::vector<std::vector<double>> partials(setup.areas.size(),
                                              std::vector<double>(static_cast<std::size_t>(reduction_chunks) * 2 * (1 + S)));
    for (auto& slice : slices) {
        harness::use_device(slice->device(), "select a slice's device");
        check(cudaStreamSynchronize(slice->stream.get()), "run the modern integral kernels");
        integral_ms = std::max(integral_ms, slice->stop.since(slice->start));
        for (std::size_t i = 0; i < slice->areas.size(); ++i) {
            const auto& a = slice->areas[i];
            for (int c = 0; c <= S; ++c) {
                const std::size_t at = (static_cast<std::size_t>(c) * reduction_chunks + a.first_chunk) * 2;
                const std::size_t n = static_cast<std::size_t>(a.last_chunk - a.first_chunk) * 2;
                if (n == 0) continue;
                check(cudaMemcpy(partials[i].data() + at, a.partials + at, sizeof(double) * n, cudaMemcpyDeviceToHost),
                      "download the chunk sums");
            }
        }
    }
    std::vector<std::vector<double>> sums;
    for (const auto& part : partials) {
        std::vector<double> area_sums(1 + S);
        for (int c = 0; c <= S; ++c) {
            cpu::NeumaierSum total;
            double compensation = 0;
            for (int i = 0; i < reduction_chunks; ++i) {
                total.add(part[(static_cast<std::size_t>(c) * reduction_chunks + i) * 2]);
                compensation += part[(static_cast<std::size_t>(c) * reduction_chunks + i) * 2 + 1];
            }
            area_sums[c] = total.value() + compensation;
        }
        sums.push_back(area_sums);
    }
    return combine_areas(sums, S);
}

/// The devices evaluate() uses: the calling thread's current one (green contexts), every device with
/// double precision for the modern variants when none is named, otherwise the one select_device() picks.
std::vector<int> devices_for(const VariantInfo& v, int device, bool keep_context) {
    if (keep_context) {
        int dev = 0;
        check(cudaGetDevice(&dev), "read the current device");
        return {dev};
    }
    if (v.device_reduced && device < 0) return ranked_devices(v.double_precision);
    return {select_device(device, v.double_precision)};
}
}  // namespace

void initialise_devices(const std::string& variant, int device) {
    // One thread per device: the drivers' context start-ups overlap instead of adding up.
    const auto devices = devices_for(find_variant(variant), device, false);
    std::vector<std::future<void>> started;
    for (int d : devices)
        started.push_back(std::async(std::launch::async, [d] {
            check(cudaSetDevice(d), "select a device");
            check(cudaFree(nullptr), "create the device's context");
        }));
    for (auto& f : started) f.get();  // rethrows the first failure
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
    if (launch.slices < 0) throw CudaError("the slice count must be 0 (one per device) or more");
    // The thesis's variants run on one device; the modern ones on every device unless one is named.
    const std::vector<int> devices = devices_for(v, device, launch.keep_context);
    harness::use_device(devices.front());
    cudaDeviceProp prop{};
    check(cudaGetDeviceProperties(&prop, devices.front()), "query the device");

    GpuResult r;
    float integral_ms = 0;
    r.integrals = v.device_reduced ? integrate_modern(setup, v, devices, launch, integral_ms, r.prepare_seconds)
                                   : integrate_thesis(setup, v, launch, integral_ms, r.prepare_seconds);
    cpu::check_integrals(r.integrals);

    // The likelihood on the first device (selected only if another is current: a green context stays).
    harness::use_device(devices.front());
    const Stream owned_stream;
    const StarResults star = run_likelihood_kernel(setup, stars, r.integrals, v.double_precision, soa_stars,
                                                   owned_stream.get());
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
    // Fewer slices than devices leave the rest idle.
    const int n_devices = static_cast<int>(devices.size());
    r.devices_used = v.device_reduced && launch.slices > 0 ? std::min(n_devices, launch.slices) : n_devices;
    if (r.devices_used > 1) r.device = std::to_string(r.devices_used) + " x " + r.device;
    return r;
}

}  // namespace mwsep::cuda
