"""The GPIO test guest: a small Linux kernel with a simulated GPIO chip (gpio-sim),
booted in qemu with the host's files as its root (see docs/kernel-tests.md).

build     build and cache the kernel (tests/kernel/kernel.config)
guest     boot it and run one command inside, return its exit code and output
gpiosim   inside the guest: make a gpio-sim chip, press and release its lines
init.py   the guest's PID 1 (not imported)

Importable as ``kernel`` with ``tests/`` on ``sys.path`` (pytest puts it there).
"""
