"""The reconstruction's images (grey scale from −0.05 to 0.5, the soft-tissue window): the slice z = −1/8
of the field of view of the phantom, the gridding image (CPU, FP64), the iterative image with Q and F^H d by the tuned
single-precision SFU kernels (F8) and the iterative image with both in FP64, each titled with its relative L2
error against the phantom (from mri_reconstruct.csv)."""
import pathlib

from figures import common as c

# (title, images file label, image, the row of mri_reconstruct.csv whose error it is)
PANELS = [("phantom", "gpu-fp64", "phantom", None),
          ("gridding (CPU, FP64)", "cpu-gridding", "gridding", ("cpu", "gridding", "")),
          ("iterative, F8: FP32 with SFU sin/cos", "gpu-f8", "iterative", ("gpu", "iterative", "q-constaos-regs-sfu-u4-f32")),
          ("iterative, FP64", "gpu-fp64", "iterative", ("gpu", "iterative", "q-constaos-regs-libm-u1-f64"))]


def make(facts, out_dir: pathlib.Path) -> list[pathlib.Path]:
    rows = facts.files.rows("mri_reconstruct")
    errors = {}
    for r in rows:
        if r["size"] == "full":
            errors.setdefault((r["device"], r["method"], r["q_variant"]), float(r["rel_l2_err"]))
    gpu = c.available(facts.gpu).full_name
    fig, axes = c.plt.subplots(1, 4, figsize=(14, 3.9))
    for ax, (title, label, image, row) in zip(axes, PANELS):
        path = facts.files.path(f"mri_reconstruct_images_{label}", suffix=".json")
        data = facts.files.file(path)
        if image not in data:
            raise c.MissingData(f"{path}: no {image} image")
        ax.imshow(data[image], cmap="gray", vmin=-0.05, vmax=0.5, origin="lower")  # the soft-tissue window: the skull (1.0) saturates
        ax.set_xticks([])
        ax.set_yticks([])
        if row is not None:
            if row not in errors:
                raise c.MissingData(f"mri_reconstruct: no full-size row for {row}")
            title += f"\nrel. L2 error {errors[row]:.3f}"
        ax.set_title(title, fontsize=9)
    fig.suptitle(f"Reconstructions of the phantom, slice z = −1/8 (128³ voxels, 100 096 radial samples; GPU rows on the {gpu})",
                 fontsize=10)
    return c.save(fig, out_dir, "fig_reconstruction")
