// A build without MPI: one rank, this process.
#include "mwsep/fit/ranks.hpp"

namespace mwsep::fit {

RankSession::RankSession() {}
RankSession::~RankSession() = default;
bool have_mpi() { return false; }
const RankSession* current_rank_session() { return nullptr; }
std::unique_ptr<BatchEvaluator> make_rank_evaluator(BatchEvaluator&) { return nullptr; }
void serve_batches(BatchEvaluator&) {}
void end_batches() {}

}  // namespace mwsep::fit
