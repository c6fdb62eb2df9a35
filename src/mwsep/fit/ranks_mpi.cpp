// The MPI build of ranks.hpp. Per batch: rank 0 broadcasts the candidate count (negative: the end), the
// candidates, then gathers each rank's block of likelihoods in rank order. The blocks depend only on the
// batch size and the rank count, and each value on its candidate alone, so the fit is the same for any
// number of ranks.
#include <mpi.h>

#include <exception>
#include <stdexcept>
#include <string>

#include "mwsep/fit/ranks.hpp"

namespace mwsep::fit {
namespace {

const RankSession* session = nullptr;

void mpi_check(int status, const char* what) {
    if (status != MPI_SUCCESS) throw std::runtime_error(std::string("MPI failed to ") + what);
}

/// The first candidate of @p rank's block of a batch of @p n over @p ranks ranks.
long long block_start(long long n, int rank, int ranks) { return n * rank / ranks; }

/// Receives (or, on rank 0, sends) one batch and returns this rank's block of it.
Batch share_batch(long long n, int width, const Batch* all, int rank, int ranks) {
    std::vector<double> flat(static_cast<std::size_t>(n) * width);
    if (all)
        for (long long i = 0; i < n; ++i) std::copy((*all)[i].begin(), (*all)[i].end(), flat.begin() + i * width);
    mpi_check(MPI_Bcast(flat.data(), static_cast<int>(flat.size()), MPI_DOUBLE, 0, MPI_COMM_WORLD), "send a batch");
    Batch mine;
    for (long long i = block_start(n, rank, ranks); i < block_start(n, rank + 1, ranks); ++i)
        mine.emplace_back(flat.begin() + i * width, flat.begin() + (i + 1) * width);
    return mine;
}

class RankEvaluator : public BatchEvaluator {
public:
    explicit RankEvaluator(BatchEvaluator& local) : local_(local) {}

    std::vector<double> evaluate(const Batch& batch) override {
        const int ranks = session->size();
        long long header[2] = {static_cast<long long>(batch.size()), batch.empty() ? 0 : static_cast<long long>(batch[0].size())};
        mpi_check(MPI_Bcast(header, 2, MPI_LONG_LONG, 0, MPI_COMM_WORLD), "send a batch's size");
        const Batch mine = share_batch(header[0], static_cast<int>(header[1]), &batch, 0, ranks);
        const std::vector<double> own = local_.evaluate(mine);
        std::vector<int> counts(ranks), offsets(ranks);
        for (int k = 0; k < ranks; ++k) {
            offsets[k] = static_cast<int>(block_start(header[0], k, ranks));
            counts[k] = static_cast<int>(block_start(header[0], k + 1, ranks)) - offsets[k];
        }
        std::vector<double> out(batch.size());
        mpi_check(MPI_Gatherv(own.data(), counts[0], MPI_DOUBLE, out.data(), counts.data(), offsets.data(), MPI_DOUBLE, 0,
                              MPI_COMM_WORLD),
                  "gather the likelihoods");
        return out;
    }

    std::string description() const override {
        return std::to_string(session->size()) + " MPI ranks, rank 0: " + local_.description();
    }

private:
    BatchEvaluator& local_;
};

}  // namespace

RankSession::RankSession() {
    int initialised = 0;
    MPI_Initialized(&initialised);
    if (!initialised) {
        mpi_check(MPI_Init(nullptr, nullptr), "initialise");
        owned_ = true;
    }
    MPI_Comm_rank(MPI_COMM_WORLD, &rank_);
    MPI_Comm_size(MPI_COMM_WORLD, &size_);
    session = this;
}

RankSession::~RankSession() {
    session = nullptr;
    // A rank that leaves on an error would leave the others waiting for its next message: end them all.
    if (size_ > 1 && std::uncaught_exceptions() > 0) MPI_Abort(MPI_COMM_WORLD, 1);
    if (owned_) MPI_Finalize();
}

bool have_mpi() { return true; }

const RankSession* current_rank_session() { return session; }

std::unique_ptr<BatchEvaluator> make_rank_evaluator(BatchEvaluator& local) {
    if (!session || session->size() == 1) return nullptr;
    return std::make_unique<RankEvaluator>(local);
}

void serve_batches(BatchEvaluator& local) {
    const int rank = session->rank(), ranks = session->size();
    while (true) {
        long long header[2] = {0, 0};
        mpi_check(MPI_Bcast(header, 2, MPI_LONG_LONG, 0, MPI_COMM_WORLD), "receive a batch's size");
        if (header[0] < 0) return;
        const Batch mine = share_batch(header[0], static_cast<int>(header[1]), nullptr, rank, ranks);
        const std::vector<double> own = local.evaluate(mine);
        mpi_check(MPI_Gatherv(own.data(), static_cast<int>(own.size()), MPI_DOUBLE, nullptr, nullptr, nullptr, MPI_DOUBLE,
                              0, MPI_COMM_WORLD),
                  "send the likelihoods");
    }
}

void end_batches() {
    if (!session || session->size() == 1) return;
    long long header[2] = {-1, 0};
    MPI_Bcast(header, 2, MPI_LONG_LONG, 0, MPI_COMM_WORLD);
}

}  // namespace mwsep::fit
