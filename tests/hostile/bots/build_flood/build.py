"""Hostile build: writes 1 MiB files into its own folder until it is stopped (each under the file size limit)."""

import os

os.makedirs("flood", exist_ok=True)
chunk = b"x" * (1 << 20)
index = 0
while True:
    with open(os.path.join("flood", f"part-{index:06d}"), "wb") as fh:
        fh.write(chunk)
    index += 1
