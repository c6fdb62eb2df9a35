#include "mwsep/cuda/compressed_family.hpp"

#include <chrono>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>

#include "mwsep/cpu/compressed_rule.hpp"
#include "mwsep/cuda/device_tables.hpp"
#include "mwsep/likelihood/stream_skipping.hpp"
#include "mwsep/math/summation.hpp"

namespace mwsep::cuda {
namespace {

/// Host state of one area: its line of sight, ladder and current skip thresholds.
struct HostArea {
    geometry::FoldedLineOfSight los;
    std::shared_ptr<const cpu::CompressedLadder> ladder;
    std::vector<double> thresholds;
};

/// The host state of area @p t of @p setup (no device touched); the seconds its ladder took are added to
/// @p rule_seconds.
HostArea host_area(const geometry::IntegrationSetup& setup, const geometry::AreaTables& t, double& rule_seconds) {
    HostArea h;
    h.los = geometry::fold_line_of_sight(t);
    const auto t0 = std::chrono::steady_clock::now();
    h.ladder = cpu::cached_ladder(h.los);
    rule_seconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    h.thresholds = likelihood::stream_skip_thresholds(setup, t, h.los);
    return h;
}

/// What CompressedFamily::prepare_host() makes while the devices start: every area's host state.
struct CompressedHostPreparation : HostPreparation {
    std::vector<HostArea> areas;
    double rule_seconds = 0;
};

class CompressedIntegral : public PreparedIntegral {
public:
    /// @p early: the host state that prepare_host() made for the same @p setup (nullptr: made here).
    CompressedIntegral(const CompressedVariant& variant, const geometry::IntegrationSetup& setup, int device,
                       const LaunchOptions& options, CompressedHostPreparation* early = nullptr)
        : variant_(variant), options_(options), device_(device), selected_(device),
          n_streams_(static_cast<int>(setup.streams.size())), streams_(tidal_streams(setup, nullptr)) {
        if (early && early->areas.size() != setup.areas.size())
            throw std::logic_error("the compressed integral's host state was made for another setup");
        if (early) rule_seconds_ = early->rule_seconds;
        for (std::size_t i = 0; i < setup.areas.size(); ++i) {
            const auto& t = setup.areas[i];
            HostArea h = early ? std::move(early->areas[i]) : host_area(setup, t, rule_seconds_);
            CompressedArea a;
            static_cast<AreaGrid&>(a) = area_grid(t);
            const auto up = [&](const std::vector<double>& v, const char* what) {
                return static_cast<const double*>(mem_.upload(v, what));
            };
            a.sinb = up(convert<double>(t.sinb, a.padded), "upload cell directions");
            a.sinl = up(convert<double>(t.sinl, a.padded), "upload cell directions");
            a.cosb = up(convert<double>(t.cosb, a.padded), "upload cell directions");
            a.cosl = up(convert<double>(t.cosl, a.padded), "upload cell directions");
            a.ids = up(t.ids, "upload the nu areas");
            a.folded_r = up(h.los.r_point, "upload the line-of-sight points");
            a.folded_w = up(h.los.weight, "upload the line-of-sight weights");
            a.block_weight = up(h.los.block_weight, "upload the r-bin weights");
            a.block_r_min = up(h.los.block_r_min, "upload the r-bin ranges");
            a.block_r_max = up(h.los.block_r_max, "upload the r-bin ranges");
            // The ladder, flat: level k's nodes at offset[k].
            std::vector<int> size, offset;
            std::vector<double> r, w, x;
            for (int k = 0; k < h.ladder->levels(); ++k) {
                size.push_back(h.ladder->size[k]);
                offset.push_back(static_cast<int>(r.size()));
                r.insert(r.end(), h.ladder->r[k].begin(), h.ladder->r[k].end());
                w.insert(w.end(), h.ladder->weight[k].begin(), h.ladder->weight[k].end());
                x.insert(x.end(), h.ladder->x[k].begin(), h.ladder->x[k].end());
            }
            a.ladder.levels = h.ladder->levels();
            a.ladder.size = mem_.upload(size, "upload the rules' sizes");
            a.ladder.offset = mem_.upload(offset, "upload the rules' offsets");
            a.ladder.r = up(r, "upload the rules' nodes");
            a.ladder.weight = up(w, "upload the rules' weights");
            a.ladder.x = up(x, "upload the rules' nodes");
            a.ladder.x_min = h.ladder->x_min;
            a.ladder.x_max = h.ladder->x_max;
            for (int s = 0; s < n_streams_; ++s) a.threshold[s] = h.thresholds[s];
            a.los_r_min = h.los.r_min, a.los_r_max = h.los.r_max, a.los_weight_sum = h.los.weight_sum;
            device_thresholds_.push_back(mem_.allocate<double>(max_streams, "allocate the device skip thresholds"));
            threshold_scratch_.push_back(
                mem_.allocate<double>(compressed_threshold_scratch, "allocate the device skip thresholds' search"));
            a.tolerance = cpu::CompressedOptions{}.tolerance;
            const std::size_t n_out = static_cast<std::size_t>(a.padded) * (1 + n_streams_);
            a.cell_out = mem_.allocate<double>(n_out, "allocate per-cell results");
            a.cell_estimate = mem_.allocate<double>(n_out, "allocate per-cell estimates");
            a.worklist = mem_.allocate<int>(2 * n_out, "allocate the fallback list");
            a.counters = mem_.allocate<unsigned>(2 + max_streams, "allocate the fallback counters");
            a.partials = mem_.allocate<double>(static_cast<std::size_t>(compressed_chunks) * 3 * (1 + n_streams_),
                                               "allocate the chunk sums");
            poison(a);
            if (t.ids.empty() || a.cells == 0) throw CudaError("an area without cells");
            host_.push_back(std::move(h));
            areas_.push_back(a);
        }
    }

    void launch() override {
        harness::use_device(device_, "select the device of the compressed integral");
        start_.record(queue_.get());
        for (std::size_t i = 0; i < areas_.size(); ++i) {
            const auto& a = areas_[i];
            if (a.device_threshold)
                variant_.thresholds(a, streams_, device_thresholds_[i], threshold_scratch_[i], queue_.get());
            variant_.launch(a, streams_, options_, queue_.get());
        }
        stop_.record(queue_.get());
    }

    float wait() override {
        harness::use_device(device_, "select the device of the compressed integral");
        check(cudaStreamSynchronize(queue_.get()), "run the compressed integral kernels");
        return stop_.since(start_);
    }

    std::vector<std::vector<double>> area_sums() override {
        harness::use_device(device_, "select the device of the compressed integral");
        const int C = 1 + n_streams_;
        report_ = cpu::CompressedReport{};
        report_.cells.assign(C, 0);
        report_.fallbacks.assign(C, 0);
        report_.stated_error.assign(C, 0.0);
        report_.evaluations.assign(C, -1);  // not counted on the device
        report_.ladder = host_.front().ladder->size;
        report_.rule_seconds = rule_seconds_;
        report_.tolerance = areas_.front().tolerance;
        std::vector<double> estimates(C, 0.0);
        std::vector<std::vector<double>> sums;
        for (const auto& a : areas_) {
            std::vector<double> partials(static_cast<std::size_t>(compressed_chunks) * 3 * C);
            check(cudaMemcpy(partials.data(), a.partials, sizeof(double) * partials.size(), cudaMemcpyDeviceToHost),
                  "download the chunk sums");
            std::vector<unsigned> counters(2 + max_streams);
            check(cudaMemcpy(counters.data(), a.counters, sizeof(unsigned) * counters.size(), cudaMemcpyDeviceToHost),
                  "download the fallback counters");
            std::vector<double> area(C);
            for (int c = 0; c < C; ++c) {
                math::NeumaierSum total;
                double compensation = 0;
                for (int i = 0; i < compressed_chunks; ++i) {
                    const double* chunk = &partials[(static_cast<std::size_t>(c) * compressed_chunks + i) * 3];
                    total.add(chunk[0]);
                    compensation += chunk[1];
                    estimates[c] += chunk[2];
                }
                area[c] = total.value() + compensation;
                report_.cells[c] += a.cells;
                report_.fallbacks[c] += counters[1 + c];
            }
            sums.push_back(area);
        }
        // The stated error relative to each component's integral, cuts subtracted.
        for (int c = 0; c < C; ++c) {
            double integral = 0;
            for (std::size_t i = 0; i < sums.size(); ++i) integral += (i == 0 ? 1.0 : -1.0) * sums[i][c];
            report_.stated_error[c] = estimates[c] / std::fabs(integral);
        }
        have_report_ = true;
        return sums;
    }

    std::optional<cpu::CompressedReport> controller_report() const override {
        if (!have_report_) return std::nullopt;
        return report_;
    }

    /// New stream constants and skip thresholds (computed here, on @p host_threads threads); the rules, tables
    /// and buffers stay.
    bool retarget(const geometry::IntegrationSetup& setup, unsigned host_threads = 1) override {
        if (static_cast<int>(setup.streams.size()) != n_streams_ || setup.areas.size() != areas_.size()) return false;
        std::vector<std::vector<double>> thresholds;
        for (std::size_t i = 0; i < areas_.size(); ++i)
            thresholds.push_back(likelihood::stream_skip_thresholds(setup, setup.areas[i], host_[i].los, host_threads));
        return retarget_with(setup, thresholds);
    }

    /// retarget() with the skip thresholds computed ahead (a fit's resident device computes the next candidate's
    /// while this one's kernels run, and keeps those of streams it has seen).
    bool retarget_with(const geometry::IntegrationSetup& setup, const std::vector<std::vector<double>>& thresholds) override {
        if (static_cast<int>(setup.streams.size()) != n_streams_ || setup.areas.size() != areas_.size() ||
            thresholds.size() != areas_.size())
            return false;
        for (const auto& t : thresholds)
            if (static_cast<int>(t.size()) != n_streams_) return false;
        streams_ = tidal_streams(setup, nullptr);
        harness::use_device(device_, "select the device of the compressed integral");
        for (std::size_t i = 0; i < areas_.size(); ++i) {
            host_[i].thresholds = thresholds[i];
            for (int s = 0; s < n_streams_; ++s) areas_[i].threshold[s] = host_[i].thresholds[s];
            areas_[i].device_threshold = nullptr;
            poison(areas_[i]);
        }
        have_report_ = false;
        return true;
    }

    /// retarget() with the thresholds computed by the device in the next launch().
    bool retarget_on_device(const geometry::IntegrationSetup& setup) override {
        if (static_cast<int>(setup.streams.size()) != n_streams_ || setup.areas.size() != areas_.size()) return false;
        if (!variant_.thresholds) return false;
        streams_ = tidal_streams(setup, nullptr);
        harness::use_device(device_, "select the device of the compressed integral");
        for (std::size_t i = 0; i < areas_.size(); ++i) {
            host_[i].thresholds.assign(static_cast<std::size_t>(n_streams_), std::numeric_limits<double>::quiet_NaN());
            for (int s = 0; s < n_streams_; ++s) areas_[i].threshold[s] = std::numeric_limits<double>::quiet_NaN();
            areas_[i].device_threshold = device_thresholds_[i];
            check(cudaMemset(device_thresholds_[i], 0xff, sizeof(double) * max_streams), "poison the device skip thresholds");
            poison(areas_[i]);
        }
        have_report_ = false;
        return true;
    }

    /// The skip thresholds the last launch() used, per area then stream (downloaded where the device computed them).
    std::vector<std::vector<double>> thresholds_in_use() const override {
        harness::use_device(device_, "select the device of the compressed integral");
        std::vector<std::vector<double>> out;
        for (std::size_t i = 0; i < areas_.size(); ++i) {
            std::vector<double> t(areas_[i].threshold, areas_[i].threshold + n_streams_);
            if (areas_[i].device_threshold)
                check(cudaMemcpy(t.data(), device_thresholds_[i], sizeof(double) * t.size(), cudaMemcpyDeviceToHost),
                      "download the device skip thresholds");
            out.push_back(std::move(t));
        }
        return out;
    }

private:
    /// All bits set (a NaN) in every output: a cell or chunk the kernels never wrote cannot pass.
    void poison(const CompressedArea& a) const {
        const std::size_t n_out = static_cast<std::size_t>(a.padded) * (1 + n_streams_);
        check(cudaMemset(a.cell_out, 0xff, sizeof(double) * n_out), "poison per-cell results");
        check(cudaMemset(a.cell_estimate, 0xff, sizeof(double) * n_out), "poison per-cell estimates");
        check(cudaMemset(a.partials, 0xff, sizeof(double) * compressed_chunks * 3 * (1 + n_streams_)), "poison the chunk sums");
    }

    /// Makes the device current before the members after it (memory, queue, events) are created.
    struct Selected {
        explicit Selected(int device) { harness::use_device(device, "select the device of the compressed integral"); }
    };

    const CompressedVariant& variant_;
    LaunchOptions options_;
    int device_;
    Selected selected_;
    int n_streams_;
    DeviceMemory mem_;
    Stream queue_;
    Event start_;
    Event stop_;
    TidalStreams streams_;
    std::vector<HostArea> host_;
    std::vector<CompressedArea> areas_;
    std::vector<double*> device_thresholds_;  // per area: max_streams thresholds computed on the device
    std::vector<double*> threshold_scratch_;  // per area: their search's (bound, cell) per block and stream
    double rule_seconds_ = 0;
    cpu::CompressedReport report_;
    bool have_report_ = false;
};

}  // namespace

// What CompressedIntegral's constructor allocates: per area the tables, the ladder of rules (taken from
// the same cache the constructor reads, so it is built once), the outputs and the fallback list.
void CompressedFamily::plan_device_memory(const geometry::IntegrationSetup& setup, std::size_t streams, int slices,
                                      harness::DevicePlan& plan) const {
    (void)slices;  // one device, one slice
    const std::size_t components = 1 + streams;
    for (const auto& t : setup.areas) {
        const AreaGrid g = area_grid(t);
        const auto padded = static_cast<std::size_t>(g.padded);
        const auto los = geometry::fold_line_of_sight(t);
        const auto ladder = cpu::cached_ladder(los);
        std::size_t nodes = 0;  // the levels' nodes, flat: one array each of distances, weights and ln r
        for (int k = 0; k < ladder->levels(); ++k) nodes += ladder->r[k].size();
        plan_cell_directions(g.padded, sizeof(double), plan);
        plan.add<double>("nu areas", t.ids.size())
            .add<double>("line-of-sight points and weights", los.r_point.size(), 2)
            .add<double>("r-bin weights and ranges", los.block_weight.size(), 3)
            .add<int>("the rules' sizes and offsets", static_cast<std::size_t>(ladder->levels()), 2)
            .add<double>("the rules' nodes and weights", nodes, 3)
            .add<double>("per-cell results and estimates", padded * components, 2)
            .add<int>("the fallback list", 2 * padded * components)
            .add<unsigned>("the fallback counters", 2 + max_streams)
            .add<double>("chunk sums", static_cast<std::size_t>(compressed_chunks) * 3 * components)
            .add<double>("the device skip thresholds", max_streams)
            .add<double>("the device skip thresholds' search", compressed_threshold_scratch);
    }
}

std::unique_ptr<PreparedIntegral> CompressedFamily::prepare(const geometry::IntegrationSetup& setup,
                                                            const std::vector<int>& devices,
                                                            const LaunchOptions& options) const {
    return prepare_with(setup, devices, options, nullptr);
}

std::unique_ptr<HostPreparation> CompressedFamily::prepare_host(const geometry::IntegrationSetup& setup) const {
    auto h = std::make_unique<CompressedHostPreparation>();
    for (const auto& t : setup.areas) h->areas.push_back(host_area(setup, t, h->rule_seconds));
    return h;
}

std::unique_ptr<PreparedIntegral> CompressedFamily::prepare_with(const geometry::IntegrationSetup& setup,
                                                                 const std::vector<int>& devices,
                                                                 const LaunchOptions& options,
                                                                 std::unique_ptr<HostPreparation> host) const {
    if (devices.empty()) throw CudaError("no device for the compressed integral");
    auto* early = dynamic_cast<CompressedHostPreparation*>(host.get());
    if (host && !early) throw std::logic_error("the host state handed to the compressed family is another family's");
    return std::make_unique<CompressedIntegral>(variant_, setup, devices.front(), options, early);
}

}  // namespace mwsep::cuda
