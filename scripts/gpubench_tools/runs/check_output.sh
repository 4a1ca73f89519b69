# check_output SCRIPT OUT [INPUT...]: whether OUT can be written, found before a run rather than
# minutes after it, and found without creating or removing anything. Not where OUT is one of the
# INPUTs (by any path or link: writing there would destroy it), nor where it names a folder
# (a trailing /) or cannot be written (/dev/full among those).
# Where not, one line on stderr says why, SCRIPT first. Sourced by gpubench-tools record and gpubench-tools gate,
# as are temporary_folder and recording_settings.
check_output() {
  local script=$1 out=$2 input target
  shift 2
  for input in "$@"; do
    if [[ $out -ef $input ]]; then
      echo "$script: ${out//[^[:print:]]/?}: is also an input (${input//[^[:print:]]/?}); writing there would destroy it" >&2
      return 1
    fi
  done
  # A name ending in /, /. or /.. names a folder; realpath and gpubench-tools merge (pathlib) would
  # drop the slash and take it as the file before it.
  if [[ -n $out && $out =~ (^|/)(\.|\.\.)?$ ]]; then
    echo "$script: ${out//[^[:print:]]/?}: names a folder, not a file to write" >&2
    return 1
  fi
  if target=$(realpath -m -- "$out" 2> /dev/null) && replaceable "$target"; then
    if ! is_full_device "$target"; then
      return 0
    fi
    echo "$script: ${out//[^[:print:]]/?}: cannot write the output there" \
      "(/dev/full fails every write)" >&2
    return 1
  fi
  echo "$script: ${out//[^[:print:]]/?}: cannot write the output there" >&2
  return 1
}

# is_full_device TARGET: whether TARGET is a character device with /dev/full's device number,
# which fails every write with ENOSPC. It is known by that number rather than by a trial write,
# which would put a byte into any other device (a terminal, /dev/kmsg).
is_full_device() {
  [[ -c $1 && -c /dev/full ]] &&
    [[ $(stat -L -c %t:%T -- "$1" 2> /dev/null) == "$(stat -L -c %t:%T /dev/full)" ]]
}

# replaceable TARGET: whether gpubench-tools merge can write TARGET, a path with no link left in it.
# It writes a new file beside TARGET and renames it over TARGET, so TARGET's folder must be
# writable, as an existing TARGET must be; a FIFO or a device it writes to directly.
replaceable() {
  local target=$1 folder=${1%/*}/
  if [[ -e $target && ! -f $target ]]; then
    [[ ! -d $target && -w $target ]]
  else
    [[ (! -e $target || -w $target) && -d $folder && -w $folder ]]
  fi
}

# temporary_folder SCRIPT: makes a folder in TMPDIR (/tmp where unset) and prints its path. Where
# it cannot (TMPDIR missing, a file, not writable), one line on stderr says why, SCRIPT first,
# and the status is 1: the caller exits 2 before any run, as for an output it cannot write.
temporary_folder() {
  local made
  if made=$(mktemp -d 2>&1); then
    echo "$made"
    return 0
  fi
  echo "$1: cannot make a temporary folder in TMPDIR: ${made//[^[:print:]]/?}" >&2
  return 1
}

# recording_settings SCRIPT: gpubench-tools record's settings from the environment, each checked against
# its range and set as a decimal: runs, GPUBENCH_RUNS (2 to 1000, default 5), and run_timeout,
# GPUBENCH_RUN_TIMEOUT (1 to 86400 seconds, default 1800). gpubench-tools gate, which passes them on to
# gpubench-tools record, checks them so too, before its first run. Where one is out of its range, one line
# on stderr names it, SCRIPT first, and the status is 1.
recording_settings() {
  runs=${GPUBENCH_RUNS:-5}
  check_setting "$1" GPUBENCH_RUNS "$runs" 2 1000 "a whole number" || return 1
  runs=$((10#$runs))
  run_timeout=${GPUBENCH_RUN_TIMEOUT:-1800}
  check_setting "$1" GPUBENCH_RUN_TIMEOUT "$run_timeout" 1 86400 "a whole number of seconds" ||
    return 1
  run_timeout=$((10#$run_timeout))
}

# check_setting SCRIPT NAME VALUE MIN MAX NOUN: whether VALUE, NAME's, is a decimal from MIN to
# MAX (digits few enough for bash's arithmetic, which wraps past 2^63; leading zeros are read as
# decimal, not octal); one line on stderr where not, SCRIPT first.
check_setting() {
  local script=$1 name=$2 value=$3 min=$4 max=$5 noun=$6
  if [[ $value =~ ^[0-9]{1,6}$ ]] && ((10#$value >= min && 10#$value <= max)); then
    return 0
  fi
  echo "$script: $name must be $noun from $min to $max, not '${value//[^[:print:]]/?}'" >&2
  return 1
}
