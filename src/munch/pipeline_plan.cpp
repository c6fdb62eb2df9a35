#include "munch/pipeline_plan.hpp"

#include <algorithm>
#include <stdexcept>
#include <string>

namespace munch {

// [pipeline-plan-begin]
std::vector<PipelineChunk> plan_pipeline(std::size_t n, std::size_t w, std::size_t reach, std::size_t chunks) {
    if (n == 0 || w == 0 || chunks == 0 || reach == 0)
        throw std::invalid_argument("plan_pipeline: the signal, the filter, the chunk count and the reach must be positive");
    if (reach < w + 3)
        throw std::invalid_argument("plan_pipeline: a group of four outputs reads " + std::to_string(w + 3) +
                                    " inputs at least, but the reach is " + std::to_string(reach));
    const std::size_t outputs = n + w - 1, groups = (outputs + 3) / 4;
    const std::size_t per = (groups + std::min(chunks, groups) - 1) / std::min(chunks, groups);
    const std::size_t lead = w - 1, signal_end = lead + n;  // the signal's padded positions [lead, signal_end)
    std::vector<PipelineChunk> plan;
    std::size_t uploaded_end = lead;  // padded positions below this hold the signal (or are padding)
    for (std::size_t g0 = 0; g0 < groups; g0 += per) {
        PipelineChunk c;
        c.first_group = g0;
        c.groups = std::min(per, groups - g0);
        // The chunk's kernels read from w - 1 samples before its first output (the halo, uploaded by the chunks
        // before it) up to 4 (its last group) + reach, past its last output: upload the signal up to there.
        const std::size_t need_end = std::clamp(pipeline_read_end(g0 + c.groups - 1, reach), lead, signal_end);
        c.copy_first = uploaded_end - lead;
        c.copy_count = need_end > uploaded_end ? need_end - uploaded_end : 0;
        uploaded_end = std::max(uploaded_end, need_end);
        c.out_first = 4 * g0;
        c.out_count = std::min(4 * (g0 + c.groups), outputs) - c.out_first;
        plan.push_back(c);
    }
    return plan;
}
// [pipeline-plan-end]

}  // namespace munch
