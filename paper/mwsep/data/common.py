"""What several of the study's chapter modules write alike: a GPU's L2 size and memory bandwidth as the hardware
table prints them, the ranges of the scaling emulation, and the launch shape of the thesis before and after its
change, each from the study's facts (paper/mwsep/facts.py)."""
from paper.report.common import fmt, pct


def l2_text(gpu):
    """The L2 size in MiB: as the device reports it (three digits), as paper/hardware.json gives it, or unknown."""
    if gpu.l2_mb is None:
        return "unknown"
    return fmt(gpu.l2_mb, 3) if gpu.l2_source == "d" else str(gpu.l2_mb)


def bandwidth_text(gpu):
    """The memory bandwidth in GB/s: as the device reports it (four digits), as paper/hardware.json gives it, or
    unknown."""
    if gpu.bandwidth_gb_s is None:
        return "unknown"
    return fmt(gpu.bandwidth_gb_s, 4) if gpu.bandwidth_source == "d" else str(gpu.bandwidth_gb_s)


def scaling_first_step_text(scaling):
    """The speed-up from the first to the second SM count, "1.98" or "1.90x to 1.99"."""
    lo, hi = (f"{x:.2f}" for x in scaling.first_step)
    return lo if lo == hi else f"{lo}x to {hi}"


def tpb_before_after_text(launch):
    """The final kernel's time at the thesis's launch shape before its change and after, and the change."""
    tpb, before, after = launch.tpb, launch.tpb_before, launch.tpb_after
    change = launch.tpb_before_change
    if change is None:
        return "not recorded on this GPU"
    return (f"{fmt(tpb[before], 4)} ms before and {fmt(tpb[after], 4)} ms after, a change of {pct(100 * change)} ("
            + ("the step still pays" if change < -0.01 else "the step costs time here" if change > 0.01
               else "no difference beyond 1%") + ")")


def gain_orders(facts, table):
    """The memory spaces by the gain of thesis Table @p table's optimisation on the 3-stream large unit, largest
    first: (published, reproduced), each as "constant, global, shared, texture"."""
    p, r = facts.tables.gains[table]
    return tuple(", ".join(sorted(facts.memory, key=lambda m: -g[(m, "3s-large")])) for g in (p, r))
