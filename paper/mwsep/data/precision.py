"""Thesis Table 4.5: single against double precision, with the digits of agreement measured the same way
for the published pair and the reproduced one."""
import math

from paper.report.common import fmt, table
from paper.report.facts import available

from ..variants import final_axes, medians_by_axes


def build(ctx, facts):
    n, pub = ctx.n, facts.published
    prec = facts.files.rows("precision")
    pm = medians_by_axes(prec)
    like = medians_by_axes(prec, value="likelihood")
    fa = final_axes()
    final = (fa["memory"], fa["divsqrt"], fa["loop"])  # the final variant, at each precision
    precision = available(facts.precision)
    p45 = pub["tables"]["4.5"]
    body = []
    for u, label in [("3s-large", "3-S large"), ("2s-large", "2-S large")]:
        ls, ld, ts, td, ratio = p45[u]
        f64, f32 = pm[final + ("f64", u)], pm[final + ("f32", u)]
        l64, l32 = like[final + ("f64", u)], like[final + ("f32", u)]
        _, _, dp, dr = precision.units[u]
        key = u.replace("-", "_")
        n[f"precision_ratio_{key}"] = f"{f64 / f32:.2f}"
        n[f"precision_ratio_pub_{key}"] = f"{ratio:.2f}"
        n[f"precision_digits_{key}"] = f"{dr:.1f}"
        n[f"precision_digits_pub_{key}"] = f"{dp:.1f}"
        n[f"precision_ratio_fastest_{key}"] = f"{pm[('constant',) + final[1:] + ('f64', u)] / pm[('constant',) + final[1:] + ('f32', u)]:.2f}"
        body.append([f"{label}, GTX 285 (published)", ls.replace(" ", ""), ld.replace(" ", ""), fmt(ts / 1e3, 4) + " s",
                     fmt(td / 1e3, 4) + " s", f"{ratio:.2f}x", f"{dp:.1f}"])
        body.append([f"{label}, {available(facts.gpu).short}", f"{l32:.10f}", f"{l64:.10f}", fmt(f32, 4) + " ms",
                     fmt(f64, 4) + " ms", f"{f64 / f32:.2f}x", f"{dr:.1f}"])
    ctx.tables["table_4_5"] = table(
        "Table 4.5 (thesis): single against double precision, the fully optimised shared-memory kernel on the "
        "large units, published beside reproduced. Digits: the number of significant digits in which the "
        "single-precision likelihood agrees with the double-precision one, minus log10 of their relative "
        "difference, computed alike for both rows. The likelihoods differ between the rows because the star "
        "catalogues differ.",
        ["work unit", "likelihood, single", "likelihood, double", "time, single", "time, double", "double / single",
         "digits"], body, widths=[20, 17, 17, 11, 11, 10, 8])
    # Double precision: CPU against GPU, the largest relative difference over every check.
    corr = facts.files.rows("gpu_correctness", check_valid=False)
    f64 = [float(r["max_rel_diff"]) for r in corr if r["variant"].endswith("f64")]
    f32 = [float(r["likelihood_rel_diff"]) for r in corr if r["variant"].endswith("f32")]
    n["f64_max_rel"], n["f32_max_like_rel"] = f"{max(f64):.1e}", f"{max(f32):.1e}"
    n["f64_digits_cpu_gpu"] = f"{-math.log10(max(f64)):.1f}"
    n["correctness_rows"] = str(len(corr))
    n["correctness_pass"] = str(sum(r["pass"] == "true" for r in corr))
    n["f64_tolerance"] = f"{max(float(r['tolerance']) for r in corr if r['variant'].endswith('f64')):.0e}"
