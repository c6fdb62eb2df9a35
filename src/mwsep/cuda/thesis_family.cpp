#include "mwsep/cuda/thesis_family.hpp"

#include <algorithm>

#include "mwsep/cuda/device_tables.hpp"

namespace mwsep::cuda {
namespace {

/// Uploads the tables of one area and its zeroed accumulators. The Kahan compensation buffers exist only
/// in single precision; in double precision accumulate() never touches them, and the accumulators stand
/// in for them so that no null pointer is indexed.
template <class Real>
void fill_area(const geometry::AreaTables& t, int n_streams, ThesisArea& a, ThesisBuffers<Real>& b,
               DeviceMemory& mem) {
    static_cast<AreaGrid&>(a) = area_grid(t);
    upload_cell_directions<Real>(t, a.padded, b, mem);
    b.r_point = mem.upload(convert<Real>(t.r.r_point, t.r.r_point.size()), "upload convolution distances");
    b.qw = mem.upload(convert<Real>(t.r.qw_r3_n, t.r.qw_r3_n.size()), "upload convolution weights");
    std::vector<double> volume(static_cast<std::size_t>(a.n_r) * a.n_nu);
    for (int k = 0; k < a.n_r; ++k)
        for (int j = 0; j < a.n_nu; ++j)
            volume[static_cast<std::size_t>(k) * a.n_nu + j] = t.r.efficiency[k] * t.r.irv[k] * t.ids[j];
    b.volume = mem.upload(convert<Real>(volume, volume.size()), "upload volume factors");
    const std::size_t acc = static_cast<std::size_t>(a.padded) * std::max(n_streams, 1);
    b.bg = mem.allocate<Real>(a.padded, "allocate accumulators");
    b.st = mem.allocate<Real>(acc, "allocate accumulators");
    check(cudaMemset(b.bg, 0, sizeof(Real) * a.padded), "zero accumulators");
    check(cudaMemset(b.st, 0, sizeof(Real) * acc), "zero accumulators");
    if constexpr (sizeof(Real) == 8) {
        b.bg_comp = b.bg;
        b.st_comp = b.st;
    } else {
        b.bg_comp = mem.allocate<Real>(a.padded, "allocate accumulators");
        b.st_comp = mem.allocate<Real>(acc, "allocate accumulators");
        check(cudaMemset(b.bg_comp, 0, sizeof(Real) * a.padded), "zero accumulators");
        check(cudaMemset(b.st_comp, 0, sizeof(Real) * acc), "zero accumulators");
    }
}

/// Sums one area's accumulators over its cells in index order, in double (spec 3.4); in single precision
/// each cell's value is its sum minus its Kahan compensation.
template <class Real>
std::vector<double> reduce_area(const ThesisArea& a, const ThesisBuffers<Real>& b, int n_streams) {
    const std::size_t n = static_cast<std::size_t>(a.padded);
    std::vector<Real> bg(n);
    std::vector<Real> st(n * std::max(n_streams, 1));
    std::vector<Real> bgc(n, Real(0));
    std::vector<Real> stc(st.size(), Real(0));
    check(cudaMemcpy(bg.data(), b.bg, sizeof(Real) * n, cudaMemcpyDeviceToHost), "download accumulators");
    check(cudaMemcpy(st.data(), b.st, sizeof(Real) * st.size(), cudaMemcpyDeviceToHost), "download accumulators");
    if constexpr (sizeof(Real) == 4) {
        check(cudaMemcpy(bgc.data(), b.bg_comp, sizeof(Real) * n, cudaMemcpyDeviceToHost), "download accumulators");
        check(cudaMemcpy(stc.data(), b.st_comp, sizeof(Real) * st.size(), cudaMemcpyDeviceToHost),
              "download accumulators");
    }
    std::vector<double> sums(1 + n_streams, 0.0);
    for (int p = 0; p < a.cells; ++p) sums[0] += static_cast<double>(bg[p]) - static_cast<double>(bgc[p]);
    for (int s = 0; s < n_streams; ++s)
        for (int p = 0; p < a.cells; ++p) {
            const std::size_t i = static_cast<std::size_t>(s) * n + p;
            sums[1 + s] += static_cast<double>(st[i]) - static_cast<double>(stc[i]);
        }
    return sums;
}

/// The thesis family's state for one evaluation on one device.
class ThesisIntegral : public PreparedIntegral {
public:
    ThesisIntegral(const ThesisVariant& variant, const geometry::IntegrationSetup& setup, const LaunchOptions& options)
        : variant_(variant), options_(options), n_streams_(static_cast<int>(setup.streams.size())),
          streams_(tidal_streams(setup, &mem_)), areas_(setup.areas.size()) {
        for (std::size_t i = 0; i < areas_.size(); ++i) {
            if (variant_.kernels.double_precision) fill_area<double>(setup.areas[i], n_streams_, areas_[i], areas_[i].f64, mem_);
            else fill_area<float>(setup.areas[i], n_streams_, areas_[i], areas_[i].f32, mem_);
        }
    }

    void launch() override {
        const cudaStream_t queue = queue_.get();
        variant_.upload(streams_, queue);
        start_.record(queue);
        for (const auto& a : areas_) variant_.launch(a, streams_, options_, queue);
        stop_.record(queue);
    }

    float wait() override {
        check(cudaStreamSynchronize(queue_.get()), "run the integral kernels");
        return stop_.since(start_);
    }

    std::vector<std::vector<double>> area_sums() override {
        std::vector<std::vector<double>> sums;
        for (const auto& a : areas_)
            sums.push_back(variant_.kernels.double_precision ? reduce_area(a, a.f64, n_streams_)
                                                             : reduce_area(a, a.f32, n_streams_));
        return sums;
    }

private:
    const ThesisVariant& variant_;
    LaunchOptions options_;
    int n_streams_;
    DeviceMemory mem_;  // before the tables it owns
    TidalStreams streams_;
    std::vector<ThesisArea> areas_;
    Stream queue_;
    Event start_;
    Event stop_;
};

}  // namespace

// What ThesisIntegral's constructor allocates: the stream table, then per area what fill_area() uploads
// and allocates (the compensation buffers only in single precision).
void ThesisFamily::plan_device_memory(const geometry::IntegrationSetup& setup, std::size_t streams, int slices,
                                      harness::DevicePlan& plan) const {
    (void)slices;  // one device, one slice
    const bool f64 = variant_.kernels.double_precision;
    const std::size_t real = f64 ? sizeof(double) : sizeof(float);
    const std::size_t accumulators = std::max<std::size_t>(streams, 1);
    plan_tidal_streams(plan);
    for (const auto& t : setup.areas) {
        const AreaGrid g = area_grid(t);
        const auto padded = static_cast<std::size_t>(g.padded);
        plan_cell_directions(g.padded, real, plan);
        plan.add("convolution distances", t.r.r_point.size(), real)
            .add("convolution weights", t.r.qw_r3_n.size(), real)
            .add("volume factors", static_cast<std::size_t>(g.n_r) * g.n_nu, real)
            .add("accumulators", padded, real, f64 ? 1 : 2)
            .add("accumulators", padded * accumulators, real, f64 ? 1 : 2);
    }
}

std::unique_ptr<PreparedIntegral> ThesisFamily::prepare(const geometry::IntegrationSetup& setup,
                                                        const std::vector<int>& devices,
                                                        const LaunchOptions& options) const {
    (void)devices;  // the backend made the first of them current: the thesis's kernels run on one device
    return std::make_unique<ThesisIntegral>(variant_, setup, options);
}

}  // namespace mwsep::cuda
