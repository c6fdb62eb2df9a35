"""The three ladders side by side: the median rate of every step (pairs per second, log scale) for MRI Q
and F^H d on the medium input and for Coulomb on the full lattice, with the published MRI steps scaled to
the same starting rung for comparison of the ratios (the documents' hardware and absolute rates differ)."""
import pathlib
import statistics

from figures import common as c

MRI_STEPS = ["F3", "F4", "F5", "F6", "F7", "F8"]
DCS_STEPS = ["D0", "D1", "D2", "D3", "D4"]
# The published rows each of our MRI steps is compared with (paper/kirk_hwu/data/mri.py maps them alike).
PUBLISHED_ROW = {"F3": "LS (GPU, Naive)", "F6": "LS (GPU, CMem)", "F7": "LS (GPU, CMem, SFU)",
                 "F8": "LS (GPU, CMem, SFU, Exp)"}


def step_rates(rows, prefix, size):
    by = {}
    for r in rows:
        if r["variant"].startswith(prefix) and r["size"] == size:
            by.setdefault(r["step"], []).append(float(r["pairs_per_second"]))
    return {s: statistics.median(v) for s, v in by.items()}


def make(facts, out_dir: pathlib.Path) -> list[pathlib.Path]:
    pub = facts.published["mri_summary"]["rows"]
    mri_rates = c.available(facts.mri_rates)       # every step of the ladder on the medium input
    dcs = facts.files.rows("coulomb_ladder")
    gpu = c.available(facts.gpu).full_name
    fig, axes = c.plt.subplots(1, 3, figsize=(14, 4.2))
    for ax, (problem, title, col) in zip(axes[:2], [("mri-q", "MRI Q", 0), ("mri-fhd", "MRI F^H d", 2)]):
        r = mri_rates[problem]
        ys = [r[s] for s in MRI_STEPS]
        ax.bar(range(len(MRI_STEPS)), ys, color=c.REPRODUCED_COLOR, label=c.reproduced_label(gpu))
        # Published: rate ∝ 1 / run time, scaled so that its naive row sits on our F3.
        base = pub[PUBLISHED_ROW["F3"]][col]
        xs = [MRI_STEPS.index(s) for s in PUBLISHED_ROW]
        ax.plot(xs, [r["F3"] * base / pub[row][col] for row in PUBLISHED_ROW.values()], "o--",
                color=c.PUBLISHED_COLOR, label="published ratios (S3), scaled to our F3")
        ax.set_xticks(range(len(MRI_STEPS)), MRI_STEPS)
        ax.set_yscale("log")
        ax.set_title(title + " (64³ voxels × 20 000 samples)")
        ax.set_ylabel("pairs per second")
        ax.legend(loc="upper left", fontsize=8)
    r = step_rates(dcs, "dcs-", "full")
    missing = [s for s in DCS_STEPS if s not in r]
    if missing:
        raise c.MissingData(f"coulomb_ladder: no rows for {missing}")
    axes[2].bar(range(len(DCS_STEPS)), [r[s] for s in DCS_STEPS], color=c.REPRODUCED_COLOR)
    axes[2].set_xticks(range(len(DCS_STEPS)), DCS_STEPS)
    axes[2].set_yscale("log")
    axes[2].set_title("Coulomb (512 × 512 × 32, 40 000 atoms)")
    fig.suptitle(f"The ladders step by step on the {gpu}: median rate of each step")
    return c.save(fig, out_dir, "fig_ladders")
