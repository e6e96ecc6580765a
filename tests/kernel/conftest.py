"""The in-guest tests (guest_tests/) need the guest's kernel: on the host they
are run through tests/test_kernel_gpio.py, never collected directly."""

import os

if os.environ.get("BUZZER_GUEST") != "1":
    collect_ignore_glob = ["guest_tests/*"]
