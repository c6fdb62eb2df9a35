"""MRI-Q and MRI-FHD of the suite on the study's fastest kernels beside the documents' staged constant-memory
kernel, from one run each (app_mri_q_fastest, app_mri_fhd_fastest): the kernel and the whole application (with
allocation and transfers), their speed-ups over one CPU thread, and the fastest kernel's gain. S1 Table 3's rows
stay on the documents' configuration; this table is beside it. Until the runs are recorded on a GPU its cells read
"not measured" and the fallback names the files it waits for."""
from paper.report.common import MissingData, fmt, table
from paper.report.facts import available

from ..facts import MRI_FASTEST

HEADER = ["application", "variant", "kernel", "application", "kernel x (CPU)", "application x (CPU)",
          "kernel gain over the documents'"]
NOT_MEASURED = "not measured"
CAPTION = ("Table R@: MRI-Q and MRI-FHD at the documents' size with the documents' staged constant-memory kernel "
           "(library sin and cos) and with the study's fastest (records tiled in shared memory, special-function sin "
           "and cos, unrolled 4 times), one run per application: median kernel and application times, speed-ups over "
           "one CPU thread, and the fastest kernel's time gain over the documents' of the same run.")


def build(ctx, facts):
    n = ctx.n
    try:
        runs = available(facts.mri_fastest)
    except MissingData as e:
        ctx.fallback("MRI-Q and MRI-FHD on the fastest kernels (table table_ryoo_mri_fastest)", e)
        body = [[app, v, *[NOT_MEASURED] * (len(HEADER) - 2)] for app, (d, f, _) in MRI_FASTEST.items() for v in (d, f)]
        ctx.tables["table_ryoo_mri_fastest"] = table(CAPTION, HEADER, body)
        for app in MRI_FASTEST:
            n[f"ryoo_fastest_{app.replace('-', '_')}_gain"] = f"({NOT_MEASURED})"
        return
    body = []
    for app, r in runs.items():
        gain = r.kernel_ms[r.documents] / r.kernel_ms[r.fastest]
        for v in (r.documents, r.fastest):
            body.append([app, v, fmt(r.kernel_ms[v]) + " ms", fmt(r.application_ms[v]) + " ms", fmt(r.kernel_x[v]),
                         fmt(r.app_x[v]), fmt(gain) + "x" if v == r.fastest else "1x"])
        n[f"ryoo_fastest_{app.replace('-', '_')}_gain"] = fmt(gain)
    ctx.tables["table_ryoo_mri_fastest"] = table(CAPTION, HEADER, body)
