// Checkpoint's hooks for a host runtime: also_due makes due() say yes before the interval has passed, and
// on_saved is told after each save, once the file exists.
#include <gtest/gtest.h>

#include <filesystem>
#include <limits>
#include <stdexcept>
#include <string>

#include "mwsep/resume/checkpoint.hpp"

namespace {

namespace fs = std::filesystem;

/// A fresh path in the test's temporary folder.
std::string scratch_path(const std::string& name) {
    const fs::path p = fs::temp_directory_path() / ("mwsep_checkpoint_hooks_" + name);
    fs::remove(p);
    return p.string();
}

TEST(CheckpointHooks, WithoutHooksOnlyTheIntervalMakesASaveDue) {
    mwsep::resume::Checkpoint ck(scratch_path("none"), 1e7, 1, "cpu fast");
    EXPECT_FALSE(ck.due());
    mwsep::resume::Checkpoint immediate(scratch_path("zero"), 0, 1, "cpu fast");
    EXPECT_TRUE(immediate.due());
}

TEST(CheckpointHooks, AlsoDueMakesASaveDueBeforeTheInterval) {
    const std::string path = scratch_path("also_due");
    mwsep::resume::Checkpoint ck(path, 1e7, 1, "cpu fast");
    bool runtime_asks = false;
    int asked = 0, saved = 0;
    ck.also_due = [&] {
        ++asked;
        return runtime_asks;
    };
    ck.on_saved = [&] {
        EXPECT_TRUE(fs::exists(path)) << "on_saved is told before the file is in place";
        ++saved;
    };
    auto progress = mwsep::resume::Progress::empty(4, 2);
    ck.save_if_due(progress);
    EXPECT_GE(asked, 1);
    EXPECT_EQ(saved, 0);
    EXPECT_FALSE(fs::exists(path));

    runtime_asks = true;
    EXPECT_TRUE(ck.due());
    progress.values[0] = 3.5;
    mwsep::resume::mark_done(progress, 0);
    ck.save_if_due(progress);
    EXPECT_EQ(saved, 1);
    ASSERT_TRUE(fs::exists(path));

    // What the hook made it save is a whole checkpoint: it loads back.
    auto loaded = mwsep::resume::Progress::empty(4, 2);
    EXPECT_TRUE(ck.load(loaded));
    EXPECT_EQ(loaded.done_count(), 1u);
    EXPECT_EQ(loaded.values[0], 3.5);

    ck.save(progress);  // an explicit save (a stop) tells the hook as well
    EXPECT_EQ(saved, 2);
    ck.finish();
}

TEST(CheckpointHooks, AnIntervalSaveIsToldToo) {
    const std::string path = scratch_path("interval");
    mwsep::resume::Checkpoint ck(path, 0, 1, "cpu fast");
    int saved = 0;
    ck.on_saved = [&] { ++saved; };
    ck.save_if_due(mwsep::resume::Progress::empty(2, 1));
    EXPECT_EQ(saved, 1);
    ck.finish();
}

}  // namespace

namespace {

// A checkpoint whose saved partial sums are not finite numbers (a forgery with a valid checksum, or a fault
// that saved them) is refused when it is loaded, naming the file, before any of the remaining work.
TEST(CheckpointLoad, NonFiniteSavedSumsAreRefusedOnLoad) {
    for (const double bad : {std::numeric_limits<double>::quiet_NaN(), std::numeric_limits<double>::infinity()}) {
        const std::string path = scratch_path("nonfinite");
        mwsep::resume::Checkpoint ck(path, 1e7, 1, "cpu fast");
        auto progress = mwsep::resume::Progress::empty(4, 2);
        progress.values[0] = 1.0;
        progress.values[1] = bad;
        mwsep::resume::mark_done(progress, 0);
        ck.save(progress);
        auto loaded = mwsep::resume::Progress::empty(4, 2);
        try {
            (void)ck.load(loaded);
            ADD_FAILURE() << "a checkpoint holding " << bad << " was loaded";
        } catch (const std::runtime_error& e) {
            EXPECT_NE(std::string(e.what()).find(path + ": the checkpoint holds a partial sum that is not a finite number"),
                      std::string::npos)
                << e.what();
        }
        fs::remove(path);
    }
}

}  // namespace
