"""The BOINC deployment of the thesis's chapter 2 against what this artifact builds: the application as a BOINC
program (the MWSEP_BOINC build, tested standalone), the client's GPU and driver detection and the server's
rule of sending the CUDA application only to hosts with double precision. No result file: the rows say what is
built, how it is tested, and what is not reproduced and why; the thesis's figures come from published.json."""
from paper.report.common import table


def build(ctx, facts):
    d = facts.published["deployment"]
    ctx.n["boinc_client_version"] = d["boinc_client_version"]
    ctx.n["boinc_min_cc"] = d["min_compute_capability"]
    rows = [
        ["the application as a BOINC program: started by the client in a slot, files by logical names, fraction done, "
         "checkpoints, boinc_finish (thesis ch. 2-3)",
         "built: `-DMWSEP_BOINC=ON` makes `mwsep run` that program (src/mwsep/boinc/, src/mwsep/app/boinc_run.cpp; "
         "docs/mwsep/boinc.md)",
         "`make test-boinc` in CI, standalone (no client): a slot folder of BOINC soft links, the tiny unit's result equal "
         "to the ordinary program's stored one, fraction done 1, boinc_finish called; 20 kills and resumes bit for bit "
         "through the runtime's checkpoint calls",
         "reproduced standalone; under a real client untested (no client in CI)"],
        [f"the client (BOINC {d['boinc_client_version']}) detects the volunteer's GPU and its driver version (thesis 2.1)",
         "not built: client software, not the application's", "-",
         "not reproduced: needs the BOINC client, which this artifact does not build or run"],
        [f"the server's scheduler sends the CUDA application only to hosts with compute capability "
         f"{d['min_compute_capability']} or later, double precision (thesis 2.1)",
         "not built: no BOINC server; its rule is applied where the application chooses its device (double precision "
         "required; src/mwsep/cuda/devices.cpp)",
         "the rule by compute capability unit-tested (DeviceChoice.DoublePrecisionFromComputeCapabilityOneThree); every "
         "GPU that CUDA 13 runs on has double precision, so the refusal itself is never met on hardware",
         "the server side not reproduced (no server); its rule reproduced in the application"],
        ["for ATI GPUs the developer framework is queried for double precision (thesis 2.1)", "not built", "-",
         "not reproduced: no ATI application or GPU (thesis 3.2)"],
        ["the server validates returned results", "not built (no server); every GPU variant is compared with the CPU "
         "program instead", "the GPU correctness tests (gpu_correctness)", "a counterpart, not the server's validation"],
    ]
    ctx.tables["table_boinc"] = table(
        "Table R@: the BOINC deployment of the thesis (chapter 2) against this artifact: what the thesis describes, "
        "what is built here, how it is tested, and what is reproduced.",
        ["the thesis", "built here", "tested", "state"], rows, widths=[26, 26, 30, 18])
