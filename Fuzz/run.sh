#!/usr/bin/env bash
# Runs one Courier fuzz target.
#
#   Fuzz/run.sh TARGET SECONDS   fuzz for SECONDS, starting from the committed seed corpus
#   Fuzz/run.sh TARGET regress   replay Fuzz/Corpus/TARGET and Fuzz/FailCases/TARGET, no fuzzing
#
# Build first (make fuzz-build, or see Fuzz/README.md). Exits non-zero on any finding: a crash,
# a failed fuzz property, a leak, a timeout or running out of memory.
# Run one fuzzer at a time: the flags below never start extra jobs or workers.
set -euo pipefail

usage() { echo "usage: $0 TARGET SECONDS|regress" >&2; exit 2; }
[ $# -eq 2 ] || usage
target=$1
mode=$2

fuzz_dir=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
binary="$fuzz_dir/.build/release/$target"
seeds="$fuzz_dir/Corpus/$target"
fail_cases="$fuzz_dir/FailCases/$target"
dictionary="$fuzz_dir/Dictionaries/$target.dict"
work="$fuzz_dir/corpus-work/$target"
artifacts="$fuzz_dir/artifacts/$target"

[ -x "$binary" ] || { echo "run.sh: $binary is missing; run 'make fuzz-build' first" >&2; exit 2; }
[ -d "$seeds" ] || { echo "run.sh: no seed corpus at $seeds" >&2; exit 2; }

# Swift's own crash handler must stay out of the way, or ASan reports a bogus error inside it.
export SWIFT_BACKTRACE=enable=no

common=(-rss_limit_mb=2048 -timeout=10)
[ -f "$dictionary" ] && common+=("-dict=$dictionary")

if [ "$mode" = regress ]; then
    inputs=("$seeds")
    if [ -d "$fail_cases" ] && [ -n "$(ls -A "$fail_cases")" ]; then inputs+=("$fail_cases"); fi
    files=$(find "${inputs[@]}" -type f | wc -l)
    echo "run.sh: $target: replaying $files inputs from ${inputs[*]#"$fuzz_dir/"}"
    # -runs=0 replays every input in the given directories once and exits; any crash fails it.
    mkdir -p "$artifacts"
    "$binary" "${common[@]}" -runs=0 -artifact_prefix="$artifacts/" "${inputs[@]}"
    echo "run.sh: $target: regress passed"
    exit 0
fi

[[ "$mode" =~ ^[0-9]+$ ]] || usage
mkdir -p "$work" "$artifacts"
# Seed the working corpus (git-ignored) from the committed one; entries it has found before stay.
cp -n "$seeds"/* "$work"/ 2>/dev/null || true

echo "run.sh: $target for ${mode}s, corpus $work ($(ls "$work" | wc -l) files)"
status=0
"$binary" "${common[@]}" \
    -max_total_time="$mode" \
    -print_final_stats=1 \
    -artifact_prefix="$artifacts/" \
    "$work" || status=$?

if [ $status -ne 0 ]; then
    echo "run.sh: $target FOUND A PROBLEM (exit $status); reproducer in ${artifacts#"$PWD/"}/" >&2
    ls -t "$artifacts" | head -3 >&2
    exit $status
fi
echo "run.sh: $target: no findings in ${mode}s; corpus now $(ls "$work" | wc -l) files"
