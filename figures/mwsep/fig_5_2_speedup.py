"""Figure 5.2: speed-up over the single-core CPU reference, per work unit (log scale).

Reproduced: CPU reference time (one core) / time of each other series of Fig. 5.1.
Published: 3-S large, original CUDA 34x and optimised CUDA 40x over one Athlon64 core."""
import pathlib

from figures import common as c
from figures.mwsep.fig_5_1_cpu_vs_gpu import reproduced_seconds, two_panels


def make(facts, out_dir: pathlib.Path) -> list[pathlib.Path]:
    seconds, gpu, cpu = reproduced_seconds(facts)
    reference = seconds.pop("CPU reference, 1 core")
    speedup = {label: {wu: reference[wu] / t[wu] for wu in facts.units} for label, t in seconds.items()}
    cl = facts.published["claims"]
    pub = {"CUDA original": cl["cuda_original_speedup"]["value"],
           "CUDA optimised": cl["cuda_optimised_speedup"]["value"],
           "ATI HD 5870\n(published only,\nnot reproducible)": cl["ati_speedup"]["value"]}
    fig = two_panels(facts.units, pub, speedup, "speed-up over the CPU reference on 1 core (x, log scale)",
                     "Speed-up over one CPU core (Fig. 5.2), per work unit\n"
                     "CPU: integrals only, 1 core = summed CPU time of concurrent single-threaded slices; "
                     "GPU: kernel time (integrals + likelihood)",
                     lambda x: f"{x:,.0f}x" if x >= 10 else f"{x:.1f}x", gpu, cpu, bottom=1)
    return c.save(fig, out_dir, "fig_5_2_speedup")
