"""Tables the runtime benchmark's durable steps beside their baselines, from JSON runs.

    agentrt_runtime_bench --benchmark_format=json --benchmark_repetitions=3 > now-1.json
    other_build/agentrt_runtime_bench --benchmark_filter='durable_steps|resume' \
        --benchmark_format=json --benchmark_repetitions=3 > before-1.json
    python3 bench/durable_steps.py now-*.json --before before-*.json

Every repetition of every file counts: a figure is the median wall time per step over all of them, so
rounds of the two builds run in turn share the machine's noise.
"""
import argparse
import collections
import json
import re
import statistics

UNIT = {"ns": 1e-3, "us": 1.0, "ms": 1e3, "s": 1e6}


def per_step_us(paths):
    times = collections.defaultdict(list)
    for path in paths:
        with open(path) as f:
            for r in json.load(f)["benchmarks"]:
                if r.get("run_type") != "iteration":
                    continue
                name = re.sub(r"/min_time:[0-9.]+|/real_time", "", r["run_name"])
                steps = re.search(r"steps:(\d+)", name)
                times[name].append(r["real_time"] * UNIT[r["time_unit"]] / (int(steps.group(1)) if steps else 1))
    return {name: statistics.median(v) for name, v in times.items()}


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("runs", nargs="+")
    parser.add_argument("--before", nargs="*", default=[])
    args = parser.parse_args()
    now, before = per_step_us(args.runs), per_step_us(args.before)

    print("| level, observation | steps per run | durable step | raw LMDB | x raw | SQLite peer | x SQLite | before | x faster |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|")
    for level, crash_only in (("power_loss", 0), ("process_crash", 1)):
        for obs in (64, 8192):
            for steps in (10, 100, 1000):
                shape = f"steps:{steps}/obs:{obs}/crash_only:{crash_only}"
                step, raw = now[f"durable_steps/{shape}"], now[f"raw_lmdb/{shape}"]
                sqlite = now.get(f"sqlite_peer/{shape}")
                old = before.get(f"durable_steps/{shape}")
                cells = [
                    f"{level}, {'8 KiB' if obs == 8192 else '64 B'}",
                    f"{steps:,}",
                    f"{step:.0f} µs",
                    f"{raw:.1f} µs",
                    f"{step / raw:.1f}",
                    f"{sqlite:.0f} µs" if sqlite else "-",
                    f"{sqlite / step:.2f}" if sqlite else "-",
                    f"{old:.0f} µs" if old else "-",
                    f"{old / step:.2f}" if old else "-",
                ]
                print("| " + " | ".join(cells) + " |")
    if "resume_after_crash" in now:
        line = f"\nresume after a crash: {now['resume_after_crash']:.0f} µs"
        if "resume_after_crash" in before:
            line += f" (before: {before['resume_after_crash']:.0f} µs)"
        print(line)


if __name__ == "__main__":
    main()
