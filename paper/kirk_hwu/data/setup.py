"""The GPU, the inputs and the published table's size: what every later chapter refers to."""
from paper.report.common import big
from paper.report.facts import MissingData, available

from ..facts import MRI_SAMPLES, MRI_VOXELS


def build(ctx, facts):
    n = ctx.n
    # What needs no measurement first, so that a folder holding only some of the study's experiments still
    # builds the chapters those experiments feed.
    for size in ("small", "medium", "full"):
        pairs = MRI_VOXELS[size] * MRI_SAMPLES[size]
        n[f"kh_mri_pairs_{size}"] = big(pairs)
        n[f"kh_mri_voxels_{size}"] = f"{MRI_VOXELS[size]:,}".replace(",", "\u202f")
        n[f"kh_mri_samples_{size}"] = f"{MRI_SAMPLES[size]:,}".replace(",", "\u202f")
    # The GPU: from the provenance of the first of the study's GPU experiments the folder holds.
    gpu = available(facts.gpu)
    n["kh_gpu"] = gpu.name
    n["kh_sm_count"] = str(gpu.sm_count)
    n["kh_driver"] = gpu.driver
    n["kh_cuda"] = gpu.cuda
    n["kh_host_cpu"] = gpu.host_cpu
    # The pair counts the runs recorded must be those of the documented sizes.
    for name in ("mri_ladder", "mri_memory_spaces"):
        try:
            recorded = facts.files.rows(name)
        except MissingData:
            continue  # the chapters that read it say so
        for r in recorded:
            if float(r["pairs"]) != MRI_VOXELS[r["size"]] * MRI_SAMPLES[r["size"]]:
                raise MissingData(f"{name}: {r['variant']} at {r['size']} ran {r['pairs']} pairs, not the documented size",
                                  [facts.files.path(name)])
