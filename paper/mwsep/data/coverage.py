"""The items of the documents that an item-by-item reading found partly or not reproduced, each with its state
in this recording: reproduced (and where), ready to record (the experiment's result not in this GPU's folder: the
command that records it), or not reproducible here (and why). A row whose result is absent is a fallback the
report check follows: once the result is recorded, the row must say where it is reported."""
from paper.report.coverage import build_coverage

STUDY = "mwsep"
# (id, the document's item, state): state is ("done", where), ("file", study, result, experiment, where) or
# ("not", why).
ITEMS = [
    ("S6", "the ATI application (CAL, Brook+, IL; thesis 3.2)",
     ("not", "no AMD GPU on the hosts and no source of the 2010 application; its lineage, the public OpenCL "
             "application, is measured on the same GPU (the chapter beyond the thesis)")),
    ("S7", "the BOINC deployment: client detection of GPU and driver, the server sending the CUDA application only to "
           "hosts with double precision (ch. 2)",
     ("done", "the application side built and tested standalone; the client and the server not reproduced, each "
              "with its reason (the BOINC table, Volunteer computing and BOINC)")),
    ("S8", "the thesis's own search: conjugate gradients, line search, asynchronous genetic search (ch. 1)",
     ("not", "not rebuilt: the fits use another optimiser (global search and polishing, labelled as such in the "
             "fitting chapter); the thesis describes its search methods only by name")),
    ("T9, C6", "Appendix B's GPUs and the GTX 285's threads per SM and resident threads (4.1)",
     ("done", "Table 4.1 (thesis) counterpart: the 8800 GTX and HD 5870 columns, threads per SM and resident threads")),
    ("C1", "7.5 hours per single-stream likelihood on a CPU, 312 days per stream fit (ch. 1)",
     ("not", "context, not a measurement: the thesis's CPU, grids and fit sizes are unknown (the claims table)")),
    ("C8, RT1, M1", "hit latencies of the memory spaces (thesis 4.2, Ryoo et al. Table 1, Münch Table 2.1)",
     ("file", "mwsep", "memory_latency", "memory_latency",
      "Appendix B: the latency table beside Ryoo et al.'s Table 1 and Münch's Table 2.1 (global, L2 and L1 from "
      "hardware_micro already)")),
    ("C12", "16 KB of shared memory per SM: 4 KB per block allows only 4 blocks (4.3)",
     ("file", "mwsep", "shared_capacity", "shared_capacity",
      "the claims table's row of the limit, emulated with ballast (mwsep bench --blocks-per-sm 4)")),
    ("E7", "a faster exponential, abandoned (4.4.2)",
     ("not", "the thesis does not describe its exponential; the claim is graded not testable")),
]


def build(ctx, facts):
    build_coverage(ctx, facts, STUDY, ITEMS)
