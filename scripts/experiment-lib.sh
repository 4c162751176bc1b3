# Shared by the scripts/experiment-*.sh scripts (sourced, not run): one `hetps compare` per
# setting, reused when its summary.csv exists, with one progress line per run.
# The caller sets `hetps` (the binary) and `out` (the experiment's directory).

# Sets `out` to OUT_DIR, the script's first argument, or to DEFAULT. -h and --help print the
# script's header comment; any other option is refused: taken for OUT_DIR, it would start hours
# of runs in a directory named after it. `hetps compare` writes each comparison's report with
# gnuplot and fails without it: that is said before hours of runs rather than after the first.
out_dir_or_usage() {  # DEFAULT [FIRST_ARGUMENT]
  local script
  script=scripts/$(basename "$0")
  case ${2:-} in
    -h | --help)
      awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$script"
      exit 0
      ;;
    -*)
      echo "$script: unknown option $2 (see $script --help)" >&2
      exit 2
      ;;
  esac
  out=${2:-$1}
  if ! command -v gnuplot >/dev/null; then
    echo "$script: gnuplot is missing (hetps compare writes its report with it);" \
      "scripts/install-deps.sh installs it" >&2
    exit 1
  fi
}

# One line per run: its label when it starts, and tune's verdict lines (hetps runs under
# `stdbuf -oL` so that they come as they happen).
progress_lines() {
  awk -F': ' '/: (cached, )?final accuracy|^chosen x/ { print; fflush(); next }
    /^\[[0-9]+\/[0-9]+\]/ && $1 != last { print $1 ": running"; last = $1; fflush() }'
}

compare_once() {  # NAME PROTOCOLS [hetps compare options]...
  local name=$1 protocols=$2
  shift 2
  if [[ -f $out/$name/summary.csv ]]; then
    echo "== $name: done earlier, reused ($out/$name/summary.csv)"
    return
  fi
  echo "== compare $name: $protocols"
  nice -n 19 stdbuf -oL "$hetps" compare --force --protocols "$protocols" "$@" \
    --out "$out/$name" | progress_lines
}

# Waits for every background job given (two comparisons run at a time, one per core), so that
# both finish before a failure of either stops the script; returns the last failing status.
wait_all() {  # PID...
  local status=0 pid
  for pid in "$@"; do
    wait "$pid" || status=$?
  done
  return "$status"
}
