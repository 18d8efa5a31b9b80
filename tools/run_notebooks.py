"""Re-execute the course notebooks in place and store their outputs.

    python tools/run_notebooks.py                 # every notebooks/*.ipynb
    python tools/run_notebooks.py 02              # by lesson number...
    python tools/run_notebooks.py 02-stdio notebooks/03-handshake.ipynb   # ...by name, or by path

The stored outputs are what the site shows and what `pytest` (nbval) compares a fresh run against,
so run this after changing a notebook or the minimcp code it drives, then review the diff.

How each notebook runs, and why:

- in a fresh kernel that uses *this* Python (the one running this script), so the notebook sees the
  same minimcp and the same packages as the tests, whatever kernels Jupyter has registered;
- with ``notebooks/`` as the working directory, as under Jupyter and under nbval;
- with a timeout on every cell, so a stuck cell fails instead of hanging;
- skipping cells tagged ``nbval-skip`` (nbval never runs them either), and letting cells tagged
  ``raises-exception`` fail, as they are meant to.

A notebook is written back only if every cell ran. Its metadata (kernelspec, language_info) is kept
as it was, and no execution timestamps are recorded, so a rerun changes nothing but real outputs.
"""

from __future__ import annotations

import argparse
import copy
import sys
import time
from pathlib import Path

if __name__ == "__main__":
    # `python tools/run_notebooks.py`: the repository root on sys.path makes `tools` a package.
    sys.path[0] = str(Path(__file__).resolve().parent.parent)

import ipykernel.kernelspec
import nbformat
from jupyter_client.kernelspec import KernelSpec, KernelSpecManager
from jupyter_client.manager import KernelManager
from nbclient import NotebookClient
from traitlets import default

from tools import notebook_twins

ROOT = Path(__file__).resolve().parent.parent
NOTEBOOKS = ROOT / "notebooks"
KERNEL_NAME = "python3"
DEFAULT_KERNELSPEC = {
    "display_name": "Python 3 (ipykernel)",
    "language": "python",
    "name": KERNEL_NAME,
}


class CurrentEnvironmentKernels(KernelSpecManager):
    """Answer every kernel lookup with ipykernel running on this script's own interpreter.

    A user-level "python3" kernelspec may point at another Python; this one cannot.
    """

    def get_kernel_spec(self, kernel_name: str) -> KernelSpec:
        return self.kernel_spec_class(
            resource_dir=ipykernel.kernelspec.RESOURCES, **ipykernel.kernelspec.get_kernel_dict()
        )


class CurrentEnvironmentKernelManager(KernelManager):
    """A KernelManager that looks kernels up with CurrentEnvironmentKernels."""

    @default("kernel_spec_manager")
    def _current_environment_kernels(self) -> KernelSpecManager:
        return CurrentEnvironmentKernels(data_dir=self.data_dir)


def resolve(arguments: list[str]) -> list[Path]:
    """Turn the command-line arguments into notebook paths (all notebooks when there are none)."""
    if not arguments:
        return notebook_twins.english_notebooks(ROOT)
    paths = []
    for argument in arguments:
        path = Path(argument)
        if path.is_file():
            paths.append(path.resolve())
            continue
        if len(path.parts) > 1:
            raise SystemExit(f"no such notebook: {argument}")
        stem = path.stem if path.suffix == ".ipynb" else argument
        matches = [p for p in notebook_twins.english_notebooks(ROOT) if p.name.startswith(stem)]
        if len(matches) != 1:
            found = ", ".join(m.name for m in matches) or "none"
            raise SystemExit(
                f"{argument!r} should name exactly one notebook in notebooks/ (found: {found})"
            )
        paths.append(matches[0])
    return paths


def run(path: Path, timeout: int) -> None:
    """Execute one notebook top to bottom and write it back with its new outputs."""
    nb = nbformat.read(path, as_version=4)
    metadata = copy.deepcopy(nb.metadata)

    client = NotebookClient(
        nb,
        kernel_name=KERNEL_NAME,
        kernel_manager_class=CurrentEnvironmentKernelManager,  # nbclient starts and stops it
        timeout=timeout,
        startup_timeout=60,
        record_timing=False,
        skip_cells_with_tag="nbval-skip",
        resources={"metadata": {"path": str(NOTEBOOKS)}},
    )
    client.execute()

    # nbclient writes the running kernel's language_info (with its exact Python version) into the
    # metadata; putting the original back keeps reruns on other machines from churning it.
    nb.metadata = metadata
    nb.metadata.setdefault("kernelspec", DEFAULT_KERNELSPEC)
    for cell in nb.cells:
        cell.metadata.pop("execution", None)  # timestamps from an earlier JupyterLab run
    nbformat.write(nb, path)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("notebooks", nargs="*", help="names (01, 02-stdio) or paths; default: all")
    parser.add_argument(
        "--timeout", type=int, default=120, help="seconds allowed per cell (default 120)"
    )
    args = parser.parse_args()

    paths = resolve(args.notebooks)
    if not paths:
        print("no notebooks found in notebooks/")
        return 1

    failed = []
    for path in paths:
        shown = path.relative_to(ROOT) if path.is_relative_to(ROOT) else path
        print(f"{shown} ...", end=" ", flush=True)
        start = time.perf_counter()
        try:
            run(path, args.timeout)
        except Exception as error:  # a failing cell, a timeout, a kernel that died or never started
            print(f"FAILED after {time.perf_counter() - start:.1f} s (left unchanged)")
            print(f"{type(error).__name__}: {error}", file=sys.stderr)
            failed.append(shown)
        else:
            print(f"ok, {time.perf_counter() - start:.1f} s")
            # The Spanish twin takes the new code and outputs; its prose stays translated.
            for cell in notebook_twins.sync(path):
                print(f"  {notebook_twins.twin_of(path).name}: cell {cell} to translate again")

    if failed:
        print(f"{len(failed)} of {len(paths)} notebooks failed: {', '.join(map(str, failed))}")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
