#!/usr/bin/env bash
# Builds the libFuzzer targets of fuzz/ (clang, ASan+UBSan) and runs each for a while,
# starting from its seed corpus fuzz/corpus/<target>; fuzz/README.md says what each
# covers. Usage:
#   scripts/fuzz.sh [-t seconds] [-j parallel] [filter]
#     -t  seconds each target runs (default 300)
#     -j  targets run at once (default: the number of cores)
#     filter  an extended regex; only the targets whose name matches run
# Environment: BUILD_DIR (default build-fuzz), FUZZ_OUT (default $BUILD_DIR/fuzz-out),
# JOBS (compile jobs, default: the number of cores).
#
# What a run finds stays in $FUZZ_OUT/<target>/: crashes/ (the inputs that failed, to
# replay with `<target binary> <file>`), corpus/ (the new inputs it found: copy the
# interesting ones into fuzz/corpus/<target>/) and log. It exits 1 when a target found
# a crash, a leak, undefined behaviour or a broken invariant.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
seconds=300
parallel="$(nproc)"
while getopts "t:j:" option; do
  case "$option" in
    t) seconds="$OPTARG" ;;
    j) parallel="$OPTARG" ;;
    *) sed -n '2,9p' "$0" >&2; exit 2 ;;
  esac
done
shift $((OPTIND - 1))
filter="${1:-.}"
build_dir="${BUILD_DIR:-$root/build-fuzz}"
out="${FUZZ_OUT:-$build_dir/fuzz-out}"

# clang, and libFuzzer with the sanitizers' runtimes: Debian ships them in
# libclang-rt-<version>-dev, which clang only recommends.
install_clang() {
  "$root/scripts/install-deps.sh"
  local sudo=""
  if [ "$(id -u)" -ne 0 ]; then sudo="sudo"; fi
  if ! command -v clang++ >/dev/null 2>&1; then
    $sudo apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends clang >&2
  fi
  local version
  version="$(clang++ -dumpversion | cut -d. -f1)"
  if ! dpkg-query -W -f='${Status}' "libclang-rt-$version-dev" 2>/dev/null | grep -q "ok installed"; then
    $sudo apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends \
      "libclang-rt-$version-dev" >&2
  fi
}

install_clang
CC=clang CXX=clang++ cmake -S "$root" -B "$build_dir" -DCMAKE_BUILD_TYPE=Debug \
  -DAGENTRT_FUZZ=ON -DAGENTRT_SANITIZE=address,undefined \
  -DAGENTRT_BUILD_TESTS=OFF -DAGENTRT_BUILD_BENCH=OFF >/dev/null
cmake --build "$build_dir" --target fuzzers -j"${JOBS:-$(nproc)}"

targets=()
for binary in "$build_dir"/fuzz/*_fuzzer; do
  name="$(basename "$binary" _fuzzer)"
  if [[ "$name" =~ $filter ]]; then targets+=("$name"); fi
done
if [ ${#targets[@]} -eq 0 ]; then
  echo "no fuzz target matches '$filter'" >&2
  exit 2
fi

# One target's run: its own corpus directory first (where libFuzzer writes what it
# finds), the seeds after it (read only).
run_target() {
  local name="$1" dir="$out/$1"
  mkdir -p "$dir/corpus" "$dir/crashes"
  "$build_dir/fuzz/${name}_fuzzer" "$dir/corpus" "$root/fuzz/corpus/$name" \
    -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -max_len=16384 \
    -artifact_prefix="$dir/crashes/" -print_final_stats=1 >"$dir/log" 2>&1
}
export -f run_target
export out build_dir root seconds

echo "fuzzing ${targets[*]} for ${seconds} s each, ${parallel} at a time"
failed=0
printf '%s\n' "${targets[@]}" | xargs -P "$parallel" -I{} bash -c 'run_target {}' || failed=1

# libFuzzer's final figures: stat::<name> lines, and its last status line's coverage.
stat() { sed -n "s/^stat::$2: *//p" "$1" | tail -1; }
printf '%-16s %12s %8s %7s %7s %7s  %s\n' target runs exec/s cov ft corpus result
for name in "${targets[@]}"; do
  log="$out/$name/log"
  last="$(grep -E '^#[0-9]+.*cov: ' "$log" | tail -1 || true)"
  cov="$(sed -n 's/.* cov: \([0-9]*\).*/\1/p' <<<"$last")"
  ft="$(sed -n 's/.* ft: \([0-9]*\).*/\1/p' <<<"$last")"
  corp="$(sed -n 's/.* corp: \([0-9]*\).*/\1/p' <<<"$last")"
  result=ok
  if ls "$out/$name/crashes/"* >/dev/null 2>&1 || grep -q "^==[0-9]*==ERROR\|^SUMMARY:" "$log"; then
    result="FOUND: $out/$name/crashes/ (log: $log)"
    failed=1
  fi
  printf '%-16s %12s %8s %7s %7s %7s  %s\n' "$name" "$(stat "$log" number_of_executed_units)" \
    "$(stat "$log" average_exec_per_sec)" "${cov:-?}" "${ft:-?}" "${corp:-?}" "$result"
done
exit "$failed"
