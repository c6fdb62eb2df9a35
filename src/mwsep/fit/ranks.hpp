/// @file ranks.hpp
/// @brief Spreading batches over MPI ranks: rank 0 drives the optimizer and deals each batch in equal
/// contiguous blocks to every rank (itself included); every rank evaluates its block with its own local
/// evaluator (its GPUs or its CPU cores). Without MPI in the build there is one rank.
#pragma once

#include <memory>

#include "mwsep/fit/evaluator.hpp"

namespace mwsep::fit {

/// Initialises MPI (when built with it) for the lifetime of the object; finalises it at the end.
class RankSession {
public:
    /// MPI_Init (without the program's arguments) when built with MPI; nothing otherwise.
    RankSession();
    ~RankSession();
    RankSession(const RankSession&) = delete;             ///< one session per process
    RankSession& operator=(const RankSession&) = delete;  ///< one session per process
    int rank() const { return rank_; }   ///< this process's rank (0 without MPI)
    int size() const { return size_; }   ///< the number of ranks (1 without MPI)

private:
    int rank_ = 0;
    int size_ = 1;
    bool owned_ = false;
};

/// Whether the build has MPI.
bool have_mpi();

/// The initialised session, or nullptr when none was created (the fit then runs in this process alone).
const RankSession* current_rank_session();

/// On rank 0: an evaluator that deals each batch over every rank, evaluating its own block with
/// @p local. With one rank, it evaluates with @p local alone.
std::unique_ptr<BatchEvaluator> make_rank_evaluator(BatchEvaluator& local);

/// On the other ranks: evaluates the blocks rank 0 deals with @p local until rank 0 calls end_batches().
void serve_batches(BatchEvaluator& local);

/// On rank 0: tells the other ranks that no batch follows. Called also when the fit fails, so that
/// they do not wait for ever.
void end_batches();

}  // namespace mwsep::fit
