"""Figure 4.6: single-precision scaling with the number of SMs.

Published: 8800 GTX (16 SMs) = 1.0, GTX 285 (30 SMs) measured 2.3x, predicted 1.8x from GFLOP/s.
Reproduced: an EMULATION; one GPU restricted to fewer SMs (multiples of 8) with CUDA green contexts, and all its SMs,
for every memory variant recorded;
speed-up relative to 16 SMs."""
import pathlib

from figures import common as c

from .shared import published_label, unit_label


def make(facts, out_dir: pathlib.Path) -> list[pathlib.Path]:
    name = "scaling"
    scaling = c.available(facts.scaling)
    med = scaling.medians
    gpu = c.available(facts.gpu).name
    claims, hw = facts.published["claims"], facts.published["hardware"]
    old, new = hw["8800gtx"], hw["gtx285"]

    fig, (left, right) = c.plt.subplots(1, 2, figsize=(12, 5.2), width_ratios=[1, 1.6])
    pub = [(f"{old['name']}\n({old['sms']} SMs)", 1.0),
           (f"{new['name']} ({new['sms']} SMs)\nmeasured", claims["scaling_measured"]["value"]),
           (f"{new['name']}: predicted\n{new['gflops_single']}/{old['gflops_single']} GFLOP/s",
            claims["scaling_predicted"]["value"])]
    bars = left.bar([p[0] for p in pub], [p[1] for p in pub], color=c.PUBLISHED_COLOR, width=0.6)
    bars[2].set_alpha(0.45)
    left.bar_label(bars, [f"{p[1]:.1f}x" for p in pub], padding=2)
    left.set_ylabel(f"speed-up over the {old['name']} (global memory)")
    left.set_title(f"{published_label()}, single precision")
    left.set_ylim(0, 3)

    sms = list(scaling.sms)
    # Series recorded at every SM count; one shade per memory variant, the 2-stream unit hatched.
    series = sorted({k[:2] for k in med if all((k[0], k[1], str(n)) in med for n in sms)},
                    key=lambda k: (facts.units.index(k[1]), k[0]))
    if not series:
        raise c.MissingData(f"{name}: no variant recorded at every SM count")
    variants = sorted({v for v, _ in series})
    width = 0.8 / len(series)
    for i, (variant, wu) in enumerate(series):
        shade = c.REPRODUCED_SHADES[variants.index(variant) % len(c.REPRODUCED_SHADES)]
        hatch = "//" if wu.startswith("2s") else None
        base = c.need(med, (variant, wu, str(sms[0])), name)
        ys = [base / c.need(med, (variant, wu, str(n)), name) for n in sms]
        bars = right.bar([g + (i - (len(series) - 1) / 2) * width for g in range(len(sms))], ys, width,
                         color=shade, hatch=hatch, edgecolor="white", label=f"{variant}, {unit_label(wu)}")
        right.bar_label(bars, [f"{y:.1f}" for y in ys], padding=2, fontsize=6, rotation=90)
    for g, n in enumerate(sms):
        right.hlines(n / sms[0], g - 0.45, g + 0.45, colors="black", linestyles="--",
                     label=f"ideal (SMs / {sms[0]})" if g == 0 else None)
    right.set_xticks(range(len(sms)), [f"{n} (all)" if n == sms[-1] else str(n) for n in sms])
    right.set_xlabel("SMs available to the kernel")
    right.set_ylabel(f"speed-up over {sms[0]} SMs")
    right.set_title(f"{c.reproduced_label(gpu)}: EMULATION with green contexts")
    right.set_ylim(0, sms[-1] / sms[0] * 1.15)
    right.legend(loc="upper left", fontsize=7, ncol=2)
    fig.suptitle("Scaling with the number of SMs (Fig. 4.6), single precision. The reproduction is an EMULATION:\n"
                 f"one {gpu} restricted to fewer SMs with CUDA green contexts, not two GPU generations")
    fig.tight_layout()
    return c.save(fig, out_dir, "fig_4_6_scaling")
