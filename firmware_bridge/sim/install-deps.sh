#!/bin/sh
# Install what the firmware build and the simavr harness need, idempotently.
#
#   gcc-avr avr-libc   build the firmware (avr-gcc -mmcu=atmega328p)
#   libsimavr2         the simulator library the harness links against
#   libsimavr-dev      headers only: downloaded with `apt-get download` and
#                      unpacked with `dpkg -x` into firmware_bridge/sim/build/,
#                      because installing it pulls libsimavrparts1 and with it
#                      a large OpenGL/GLUT stack that a headless CI does not need.
#
# CI runs: sh firmware_bridge/sim/install-deps.sh
set -eu

here=$(cd "$(dirname "$0")" && pwd)
dest="$here/build/simavr-dev"

need=""
for pkg in gcc-avr avr-libc libsimavr2; do
    if ! dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed"; then
        need="$need $pkg"
    fi
done
if [ -n "$need" ]; then
    if [ "$(id -u)" = 0 ]; then sudo=""; else sudo="sudo"; fi
    $sudo apt-get update -qq || true
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y --no-install-recommends $need
fi

if [ ! -f "$dest/usr/include/simavr/sim_avr.h" ]; then
    tmp=$(mktemp -d)
    chmod 777 "$tmp"   # apt-get download runs as _apt
    (cd "$tmp" && apt-get download libsimavr-dev >/dev/null)
    mkdir -p "$dest"
    dpkg -x "$tmp"/libsimavr-dev_*.deb "$dest"
    rm -rf "$tmp"
fi
echo "install-deps: gcc-avr avr-libc libsimavr2 installed; simavr headers in $dest/usr/include/simavr"
