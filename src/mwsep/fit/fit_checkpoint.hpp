/// @file fit_checkpoint.hpp
/// @brief The fit's checkpoint file (`mwsep fit --checkpoint`): what the global search needs to continue
/// exactly where it stopped. A text file: a header, a checksum (FNV-1a over every byte after its line), the
/// identity of the fit it belongs to (one `for KEY VALUE` line per input or option that changes the
/// likelihood or the search), the generation, the counts, the population, the best point seen (the
/// champion), every generation's record (for the progress file of a resumed fit) and the algorithm's own
/// state (pagmo's archive of it). The reader bounds every count and length by what this fit can hold
/// before allocating, and checks every value; it never trusts the file.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace mwsep::fit {

/// One `for KEY VALUE` line: what the checkpoint belongs to.
using IdentityItem = std::pair<std::string, std::string>;

/// What a fit checkpoint holds.
struct FitCheckpointData {
    std::vector<IdentityItem> identity;     ///< the fit it belongs to
    unsigned generation = 0;                ///< generations completed
    long long evaluations = 0;              ///< candidates evaluated so far
    long long invalid = 0;                  ///< of which without a finite likelihood
    std::vector<std::vector<double>> x;     ///< the population, unit-box coordinates
    std::vector<double> f;                  ///< its fitnesses (-L, or the penalty)
    std::vector<double> champion_x;         ///< the best point the search has seen
    double champion_f = 0;                  ///< its fitness
    /// One record per generation: generation, evaluations, best L, seconds.
    std::vector<std::vector<double>> history;
    std::string algorithm;                  ///< the algorithm's own state (opaque here)
};

/// What the reader expects, from the fit that resumes: counts beyond these are refused before allocating.
struct FitCheckpointShape {
    std::size_t dimension = 0;     ///< coordinates per candidate
    std::size_t population = 0;    ///< candidates
    unsigned generations = 0;      ///< the most generations the fit runs
    double worst_fitness = 0;      ///< the largest fitness a candidate can have (the penalty)
    /// Whether the population may hold 1 to `population` members (the thesis searches keep one point, or a
    /// population still filling); otherwise exactly `population` (pagmo's).
    bool fewer_members = false;
};

/// The file's text for @p c.
std::string format_fit_checkpoint(const FitCheckpointData& c);

/// Reads a checkpoint from @p text (the whole file; @p name names it in messages). Throws
/// std::runtime_error naming the file, the line and what was expected when it is damaged (checksum),
/// malformed, of another shape than @p shape, or holds a value outside its range (a coordinate outside
/// the unit box, a fitness that is not finite, a count below 0 ...). The identity is returned as read,
/// for the caller to compare. With @p verify_checksum false the checksum line is read but not compared
/// (the fuzz target's way to reach the rest of the reader).
FitCheckpointData parse_fit_checkpoint(const std::string& text, const std::string& name, const FitCheckpointShape& shape,
                                       bool verify_checksum = true);

/// Reads the file @p path (at most a size this shape can need) and parses it.
FitCheckpointData read_fit_checkpoint(const std::string& path, const FitCheckpointShape& shape);

/// The first identity item of @p mine that the checkpoint's @p theirs has with another value (or lacks),
/// as "KEY (checkpoint: A, this fit: B)"; empty when they agree.
std::string identity_difference(const std::vector<IdentityItem>& theirs, const std::vector<IdentityItem>& mine);

}  // namespace mwsep::fit
