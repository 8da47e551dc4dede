#!/usr/bin/env python3
"""The memory `Demo watch` holds on a large library: idle, and through an overflow's rescan.

Starts `DEMO watch LIBRARY`, waits until its first reading is done (its CPU time stops
growing), prints its resident memory and peak (`VmRSS`, `VmHWM` of /proc/PID/status), then
stops it (SIGSTOP), creates and deletes 10,000 empty files in one watched folder (more
events than the kernel queues by default, so the queue overflows and the whole library is
read again), resumes it, waits until it is idle again and prints the same figures.

It writes into FOLDER (default: the library's first subfolder) and removes what it wrote:
run it on a bench library, never on photos you keep.

usage: watch-memory.py DEMO LIBRARY [FOLDER]
"""

import os
import signal
import subprocess
import sys
import time


def status(pid):
    fields = {}
    with open(f"/proc/{pid}/status") as file:
        for line in file:
            key, value = line.split(":", 1)
            fields[key] = value.strip()
    return fields


def cpu_ticks(pid):
    with open(f"/proc/{pid}/stat") as file:
        fields = file.read().rsplit(")", 1)[1].split()
    return int(fields[11]) + int(fields[12])


def wait_until_idle(pid, interval):
    last = -1
    while True:
        time.sleep(interval)
        ticks = cpu_ticks(pid)
        if ticks == last:
            return ticks
        last = ticks


def main():
    if len(sys.argv) not in (3, 4):
        sys.exit(__doc__.split("usage: ")[1])
    demo, library = sys.argv[1], sys.argv[2]
    if len(sys.argv) == 4:
        folder = sys.argv[3]
    else:
        folder = os.path.join(library, sorted(
            name for name in os.listdir(library)
            if os.path.isdir(os.path.join(library, name)) and not name.startswith("."))[0])
    process = subprocess.Popen(
        [demo, "watch", library], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        ticks = wait_until_idle(process.pid, 2)
        fields = status(process.pid)
        print(f"idle: {fields['VmRSS']} (peak {fields['VmHWM']}), {ticks} CPU ticks", flush=True)
        os.kill(process.pid, signal.SIGSTOP)
        for index in range(10_000):
            path = os.path.join(folder, f".watch-memory-{index}.tmp")
            open(path, "w").close()
            os.unlink(path)
        os.kill(process.pid, signal.SIGCONT)
        time.sleep(3)
        ticks = wait_until_idle(process.pid, 3)
        fields = status(process.pid)
        print(f"after an overflow: {fields['VmRSS']} (peak {fields['VmHWM']}), {ticks} CPU ticks")
    finally:
        process.terminate()
        process.wait()


if __name__ == "__main__":
    main()
