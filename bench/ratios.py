"""Prints each benchmark's time beside a baseline measured in the same run, as a ratio.

    agentrt_catalog_bench --benchmark_repetitions=3 --benchmark_format=json | python3 bench/ratios.py validate_valijson

With repetitions, the median of each benchmark is used; with --fastest, the fastest repetition
(on a shared machine whose neighbours slow some repetitions down, the least disturbed one).
"""
import json
import sys

runs = json.load(sys.stdin)["benchmarks"]
arguments = [a for a in sys.argv[1:] if a != "--fastest"]
if "--fastest" in sys.argv:
    times = {}
    for r in runs:
        if r.get("run_type", "iteration") == "iteration":
            name = r.get("run_name", r["name"])
            times[name] = min(times.get(name, r["real_time"]), r["real_time"])
else:
    medians = {r["run_name"]: r["real_time"] for r in runs if r.get("aggregate_name") == "median"}
    times = medians or {r["name"]: r["real_time"] for r in runs if r.get("run_type", "iteration") == "iteration"}
baseline_name = arguments[0]
baseline = times[baseline_name]
width = max(map(len, times))
print(f"| {'benchmark':<{width}} | {'ns':>8} | x {baseline_name} |")
print(f"|{'-' * (width + 2)}|{'-' * 10}|{'-' * (len(baseline_name) + 4)}|")
for name, t in times.items():
    print(f"| {name:<{width}} | {t:>8.0f} | {t / baseline:{len(baseline_name) + 2}.3f} |")
