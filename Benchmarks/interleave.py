#!/usr/bin/env python3
"""Side-by-side timings of several commands, interleaved round by round.

The machine this project is measured on is shared: a figure taken a minute after another
can differ by half for no reason of its own. So every round runs each command once, in the
order given, and the figures quoted are medians over the rounds, with each ratio taken per
round (the two commands of a pair saw the same load) before its median.

usage: interleave.py ROUNDS warm|cold SPEC [PAIRS]

SPEC holds one command per line, `name<TAB>command` (split like a shell would, not run by
one); `#` starts a comment. Warm: each command runs once untimed before the first round.
Cold: the page cache is dropped before every run (`sync; echo 3 > /proc/sys/vm/drop_caches`,
root only). PAIRS holds lines `name<TAB>name`: each prints the median of the per-round
ratios of the first to the second, wall and CPU. Output goes to /dev/null; a command that
exits non-zero stops the measurement. The raw figures are written to SPEC.json.

Prints, per command, the load average range, the median wall and CPU (user + system, from
`wait4`) times, the median count of minor page faults, and every round's figures.
"""

import json
import os
import shlex
import statistics
import subprocess
import sys
import time


def main() -> int:
    if len(sys.argv) not in (4, 5) or sys.argv[2] not in ("warm", "cold"):
        print("usage: interleave.py ROUNDS warm|cold SPEC [PAIRS]", file=sys.stderr)
        return 2
    rounds = int(sys.argv[1])
    cold = sys.argv[2] == "cold"
    commands = []
    with open(sys.argv[3]) as spec:
        for line in spec:
            line = line.rstrip("\n")
            if not line or line.startswith("#"):
                continue
            name, command = line.split("\t", 1)
            commands.append((name, command))
    faults: dict[str, list[int]] = {}

    def run(command: str) -> tuple[float, float]:
        if cold:
            subprocess.run("sync; echo 3 > /proc/sys/vm/drop_caches", shell=True, check=True)
        start = time.perf_counter()
        child = subprocess.Popen(
            shlex.split(command), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
        )
        _, status, usage = os.wait4(child.pid, 0)
        wall = time.perf_counter() - start
        if status != 0:
            raise SystemExit(f"failed ({status}): {command}")
        faults.setdefault(command, []).append(usage.ru_minflt)
        return wall, usage.ru_utime + usage.ru_stime

    if not cold:
        for _, command in commands:
            run(command)
    results: dict[str, list[tuple[float, float]]] = {name: [] for name, _ in commands}
    loads = [os.getloadavg()[0]]
    for _ in range(rounds):
        for name, command in commands:
            results[name].append(run(command))
        loads.append(os.getloadavg()[0])
    print(f"{sys.argv[2]}, {rounds} rounds, load {min(loads):.1f}-{max(loads):.1f}")
    for name, command in commands:
        walls = [wall for wall, _ in results[name]]
        cpus = [cpu for _, cpu in results[name]]
        print(
            f"{name:28} wall {statistics.median(walls):7.3f} s"
            f"  cpu {statistics.median(cpus):6.3f} s"
            f"  faults {statistics.median(faults[command]):7.0f}"
            f"  walls {' '.join(f'{x:.3f}' for x in walls)}"
            f"  cpus {' '.join(f'{x:.3f}' for x in cpus)}"
        )
    with open(sys.argv[3] + ".json", "w") as raw:
        json.dump(results, raw)
    if len(sys.argv) == 5:
        with open(sys.argv[4]) as pairs:
            for line in pairs.read().splitlines():
                if not line:
                    continue
                first, second = line.split("\t")
                ratios = list(zip(results[first], results[second]))
                wall = statistics.median(a[0] / b[0] for a, b in ratios)
                cpu = statistics.median(a[1] / b[1] for a, b in ratios)
                print(f"  {first} / {second}: wall {wall:.3f}  cpu {cpu:.3f} (medians of per-round ratios)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
