"""Build (once) the small Linux kernel the GPIO tests boot in qemu.

    python3 tests/kernel/build.py          # build if missing, print the bzImage path
    python3 tests/kernel/build.py --path   # print where it would be, build nothing

The kernel comes from Debian's ``linux-source-6.12`` package: ``make tinyconfig``
for x86_64, plus the options in ``tests/kernel/kernel.config`` (gpio-sim, the GPIO
character device, configfs, schedstats, CFS bandwidth, virtio, 9p, ...). The
result is cached under ``${XDG_CACHE_HOME:-~/.cache}/buzzer-controller/kernel/<key>/``
where ``<key>`` hashes the fragment, the recipe below and the source package
version, so an unchanged config never builds twice. The unpacked source tree is
kept in ``.../kernel/src/`` so that a config change rebuilds only what changed.

Missing build tools and the source package are installed with apt (root or sudo).
Every failure is one line naming what is wrong, exit status 1.
"""

from __future__ import annotations

import fcntl
import hashlib
import os
import shutil
import subprocess
import sys
import tarfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
FRAGMENT = HERE / "kernel.config"
SOURCE_PACKAGE = "linux-source-6.12"
SOURCE_TARBALL = Path("/usr/src/linux-source-6.12.tar.xz")
# Anything that changes how the kernel is made: bump it to force a rebuild.
RECIPE = "tinyconfig+fragment ARCH=x86_64 bzImage v1"
# apt packages a kernel build needs (beside the compiler), and qemu to boot it
BUILD_PACKAGES = ["bc", "bison", "flex", "libelf-dev", "libssl-dev", "cpio", "xz-utils",
                  "make", "gcc", "libc6-dev", "python3"]
QEMU_PACKAGE = "qemu-system-x86"


class BuildError(Exception):
    """A one-line reason the kernel could not be built."""


def cache_root() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "buzzer-controller" / "kernel"


def source_version() -> str:
    """The installed linux-source package version, '' when it is not installed."""
    try:
        out = subprocess.run(["dpkg-query", "-W", "-f=${Version}", SOURCE_PACKAGE],
                             capture_output=True, text=True, check=False)
    except FileNotFoundError:
        return ""
    return out.stdout.strip() if out.returncode == 0 else ""


def cache_key(version: str) -> str:
    h = hashlib.sha256()
    h.update(RECIPE.encode())
    h.update(b"\0" + version.encode() + b"\0")
    h.update(FRAGMENT.read_bytes())
    return h.hexdigest()[:16]


def kernel_dir(version: str | None = None) -> Path:
    """The cache folder for the kernel the current fragment and source make."""
    return cache_root() / cache_key(source_version() if version is None else version)


def cached_kernel() -> Path | None:
    """The cached bzImage for the current fragment, or None when not built yet."""
    version = source_version()
    if not version:
        return None
    image = kernel_dir(version) / "bzImage"
    return image if image.is_file() else None


def _apt_install(packages: list[str]) -> None:
    sudo = [] if os.geteuid() == 0 else ["sudo"]
    if sudo and shutil.which("sudo") is None:
        raise BuildError("need root or sudo to apt-get install " + " ".join(packages))
    env = dict(os.environ, DEBIAN_FRONTEND="noninteractive")
    subprocess.run(sudo + ["apt-get", "update", "-qq"], env=env, check=False)
    r = subprocess.run(sudo + ["apt-get", "install", "-y", "-q", "--no-install-recommends", *packages],
                       env=env, check=False)
    if r.returncode != 0:
        raise BuildError("apt-get install failed for: " + " ".join(packages))


def _missing_packages(packages: list[str]) -> list[str]:
    missing = []
    for pkg in packages:
        r = subprocess.run(["dpkg-query", "-W", "-f=${Status}", pkg],
                           capture_output=True, text=True, check=False)
        if "install ok installed" not in r.stdout:
            missing.append(pkg)
    return missing


def ensure_packages(with_qemu: bool = True) -> None:
    if shutil.which("dpkg-query") is None:
        # not Debian: the tools must be there already
        for tool in ("make", "gcc", "bc", "bison", "flex"):
            if shutil.which(tool) is None:
                raise BuildError(f"kernel build needs {tool!r} on PATH")
        if not SOURCE_TARBALL.is_file():
            raise BuildError(f"kernel source {SOURCE_TARBALL} missing (Debian package {SOURCE_PACKAGE})")
        return
    wanted = BUILD_PACKAGES + [SOURCE_PACKAGE] + ([QEMU_PACKAGE] if with_qemu else [])
    missing = _missing_packages(wanted)
    if missing:
        _apt_install(missing)


def wanted_options() -> list[str]:
    lines = []
    for raw in FRAGMENT.read_text().splitlines():
        line = raw.strip()
        if line and not line.startswith("#"):
            lines.append(line)
    return lines


def _unpack(version: str) -> Path:
    """The unpacked source tree for this package version (unpacked once)."""
    src_root = cache_root() / "src"
    tree = src_root / f"linux-{version}"
    stamp = tree / ".buzzer-unpacked"
    if stamp.is_file():
        return tree
    if tree.exists():
        shutil.rmtree(tree)
    src_root.mkdir(parents=True, exist_ok=True)
    tmp = src_root / f".unpack-{os.getpid()}"
    if tmp.exists():
        shutil.rmtree(tmp)
    tmp.mkdir()
    print(f"unpacking {SOURCE_TARBALL} ...", flush=True)
    with tarfile.open(SOURCE_TARBALL) as tar:
        tar.extractall(tmp, filter="fully_trusted")
    (top,) = [p for p in tmp.iterdir() if p.is_dir()]
    top.rename(tree)
    shutil.rmtree(tmp)
    stamp.write_text(version + "\n")
    return tree


def _make(tree: Path, *args: str, log) -> None:
    cmd = ["make", "-C", str(tree), "ARCH=x86_64", *args]
    r = subprocess.run(cmd, stdout=log, stderr=subprocess.STDOUT, check=False)
    if r.returncode != 0:
        raise BuildError(f"`{' '.join(cmd)}` failed (exit {r.returncode}); see {log.name}")


def build(jobs: int | None = None) -> Path:
    """Build the kernel if it is not cached; return the bzImage path."""
    ensure_packages()
    version = source_version()
    if not version:
        raise BuildError(f"{SOURCE_PACKAGE} is not installed")
    out_dir = kernel_dir(version)
    image = out_dir / "bzImage"
    if image.is_file():
        return image
    cache_root().mkdir(parents=True, exist_ok=True)
    with open(cache_root() / ".build.lock", "w") as lock:
        # one build at a time per cache (two test runs, two worktrees)
        fcntl.flock(lock, fcntl.LOCK_EX)
        if image.is_file():
            return image
        return _build_locked(version, out_dir, image, jobs)


def _build_locked(version: str, out_dir: Path, image: Path, jobs: int | None) -> Path:
    tree = _unpack(version)
    out_dir.mkdir(parents=True, exist_ok=True)
    jobs = jobs or os.cpu_count() or 1
    log_path = out_dir / "build.log"
    with open(log_path, "w") as log:
        print(f"building the test kernel (make -j{jobs}), log {log_path} ...", flush=True)
        _make(tree, "tinyconfig", log=log)
        r = subprocess.run(["sh", str(tree / "scripts/kconfig/merge_config.sh"), "-m", "-O", str(tree),
                            str(tree / ".config"), str(FRAGMENT)],
                           cwd=tree, stdout=log, stderr=subprocess.STDOUT, check=False)
        if r.returncode != 0:
            raise BuildError(f"merge_config.sh failed; see {log_path}")
        _make(tree, "olddefconfig", log=log)
        final = set((tree / ".config").read_text().splitlines())
        lost = [opt for opt in wanted_options() if opt not in final]
        if lost:
            raise BuildError("kernel config lost (a dependency is missing): " + ", ".join(lost))
        _make(tree, f"-j{jobs}", "bzImage", log=log)
    built = tree / "arch/x86/boot/bzImage"
    shutil.copy2(tree / ".config", out_dir / "config")
    tmp = out_dir / f".bzImage-{os.getpid()}"
    shutil.copy2(built, tmp)
    (out_dir / "version").write_text(f"{SOURCE_PACKAGE} {version}\n{RECIPE}\n")
    tmp.rename(image)  # last: its presence means the build is complete
    return image


def main(argv: list[str]) -> int:
    if "--path" in argv:
        print(kernel_dir() / "bzImage")
        return 0
    try:
        print(build())
    except BuildError as exc:
        print(f"kernel build: {exc}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
