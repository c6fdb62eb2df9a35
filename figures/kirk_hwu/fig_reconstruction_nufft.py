"""The reconstruction with the NUFFT pair beside the one with the direct sums (grey scale from −0.05 to 0.5, the
soft-tissue window, as the other reconstruction figure): the slice z = −1/8 of the field of view of the phantom, the
iterative image with Q and F^H d by the study's fastest kernels, and the iterative image with the adjoint and
forward NUFFT (tolerance 10⁻⁶), each titled with its relative L2 error against the phantom (from
mri_reconstruct_fastest.csv, the same run)."""
import pathlib

from figures import common as c

# (title, images file label, image, the (method, q_variant) of mri_reconstruct_fastest.csv whose error it is)
PANELS = [("phantom", "gpu-best", "phantom", None),
          ("iterative, direct sums\n(fastest kernels, Toeplitz)", "gpu-best", "iterative", ("iterative", "q-shared-regs-sfu-u4-f32")),
          ("iterative, NUFFT pair\n(Kaiser-Bessel, tolerance 1e-6)", "gpu-nufft", "iterative", ("iterative-nufft", ""))]


def make(facts, out_dir: pathlib.Path) -> list[pathlib.Path]:
    rows = facts.files.rows("mri_reconstruct_fastest")
    errors = {}
    for r in rows:
        if r["size"] == "full" and r["device"] == "gpu":
            errors.setdefault((r["method"], r["q_variant"]), float(r["rel_l2_err"]))
    gpu = c.available(facts.gpu).full_name
    fig, axes = c.plt.subplots(1, 3, figsize=(10.5, 3.9))
    for ax, (title, label, image, row) in zip(axes, PANELS):
        path = facts.files.path(f"mri_reconstruct_fastest_images_{label}", suffix=".json")
        data = facts.files.file(path)
        if image not in data:
            raise c.MissingData(f"{path}: no {image} image")
        ax.imshow(data[image], cmap="gray", vmin=-0.05, vmax=0.5, origin="lower")
        ax.set_xticks([])
        ax.set_yticks([])
        if row is not None:
            if row not in errors:
                raise c.MissingData(f"mri_reconstruct_fastest: no full-size GPU row for {row}")
            title += f"\nrel. L2 error {errors[row]:.3f}"
        ax.set_title(title, fontsize=9)
    fig.suptitle(f"The direct sums and the non-uniform FFT, slice z = −1/8 (128³ voxels, 100 096 radial samples; {gpu})",
                 fontsize=10)
    return c.save(fig, out_dir, "fig_reconstruction_nufft")
