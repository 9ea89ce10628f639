# Sourced by the bench scripts: their log lines, a work dir, and the processes they start,
# all ended (TERM, then KILL) and the work dir removed when the script exits. The
# script sets bench_name (the log's tag and the work dir's name) before sourcing.

log() { echo "[$bench_name $(date -u +%H:%M:%S)] $*" >&2; }
die() {
  log "error: $*"
  exit 1
}

work="$(mktemp -d "/tmp/agentrt-$bench_name.XXXXXX")"
pids=()
# Still running (not a zombie) and still our child, so never a recycled pid of someone else.
ours() {
  local ppid stat
  read -r ppid stat < <(ps -o ppid=,stat= -p "$1" 2>/dev/null || true) || return 1
  [ "$ppid" = "$$" ] && [ "${stat#Z}" = "$stat" ]
}
cleanup() {
  local pid
  for pid in "${pids[@]}"; do ours "$pid" && kill -TERM "$pid" 2>/dev/null; done
  for pid in "${pids[@]}"; do
    for _ in $(seq 150); do ours "$pid" || break; sleep 0.1; done
    ours "$pid" && kill -KILL "$pid" 2>/dev/null
    wait "$pid" 2>/dev/null || true
  done
  if [ "${KEEP_WORK:-0}" = 1 ]; then log "kept $work"; else rm -rf "$work"; fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# start NAME CMD...: runs CMD in the background, stdout and stderr to $work/NAME.{out,err}.
start() {
  local name="$1"
  shift
  "$@" >"$work/$name.out" 2>"$work/$name.err" &
  pids+=("$!")
  last_pid=$!
}

# build_release DIR TARGET...: a Release build of the targets in DIR (the script's $root
# the source), its log in the work dir, the end of the log shown when it fails.
build_release() {
  local dir="$1"
  shift
  log "building (Release) in $dir"
  cmake -S "$root" -B "$dir" -DCMAKE_BUILD_TYPE=Release >/dev/null
  nice cmake --build "$dir" -j"${JOBS:-2}" --target "$@" >"$work/build.log" 2>&1 || {
    tail -n 30 "$work/build.log" >&2
    die "build failed"
  }
}
