# What deploy/slurm/gpubench.sbatch and deploy/container/gpubench-pod share: gpubench run once
# per GPU, its files in a results directory, the records of runs gpubench could not finish.
# Sourced, not run. The caller sets:
#   me            the script's name, which starts each line it says
#   out           the results directory
#   node job task the record's fields (attempt too where it has one)
#   who           where a line about a file comes from ("task 3 on n1", "n1")
#   launcher      the command that runs gpubench, as an array (a wrapper such as timeout first)
#   log_records   1 where each record, a failed run's stderr and its exit status also go to stdout
#                 (the pod's log), else 0
#   console_fd    the descriptor gpubench's console table goes to
# and reads write_problem (the first file of the results not written) and stopped (a stop
# signal came: no further run starts).

# Exits 2 with one line where $2, the value of $1, is unsafe in a file name or a record line:
# 1-128 printable ASCII characters, none of them a space (a record line in the pod's log splits
# on spaces), '/' or '=' (a record's key=value), and not '.' or '..'; with $3 = number, 1-9
# digits without a leading 0 (bash's arithmetic reads 010 as 8, and 09 not at all). The line
# shows the value quoted, control characters escaped.
check_value() {
  local LC_ALL=C problem=""
  if [[ ${3:-} == number ]]; then
    [[ $2 =~ ^(0|[1-9][0-9]{0,8})$ ]] || problem="not a whole number of 1-9 digits without a leading 0"
  elif [[ -z $2 || $2 == . || $2 == .. ]] || ((${#2} > 128)); then
    problem="not a name of 1-128 characters other than '.' and '..'"
  elif [[ ! $2 =~ ^[!-~]+$ || $2 == *[/=]* ]]; then
    problem="holds a space, '/', '=', a control character or one outside ASCII"
  fi
  [[ -n $problem ]] || return 0
  [[ ${3:-} == number ]] || problem+=" (it names the result files and fills their records)"
  echo "$me: $1=$(printf '%q' "${2:0:200}"): $problem" >&2
  exit 2
}

# Writes the output of the command "${@:3}" to file $1 of the results: with $2 = replace, whole
# (written beside it, then renamed over it); with $2 = append, added to its end. Where that
# fails (ENOSPC, EFBIG, EROFS) nothing is left beside it, the first failure is said in one line
# and kept in write_problem, and the status is 1.
save() {
  local file=$1 mode=$2 error
  shift 2
  if [[ $mode == append ]]; then
    error=$({ "$@" >> "$file"; } 2>&1) && return 0
  else
    error=$({ "$@" > "$file.tmp" && mv -f "$file.tmp" "$file"; } 2>&1) && return 0
    rm -f "$file.tmp"
  fi
  error=${error%%$'\n'*}
  if [[ -z $write_problem ]]; then
    write_problem="cannot write $file (${error##*: })"
    echo "$me: $who: $write_problem: no further GPU starts" >&2
  fi
  return 1
}

# The record fields the caller knows, as gpubench's --status-field flags.
status_fields() {
  local key
  for key in gpu_uuid node job task device attempt; do
    [[ -z ${!key+set} ]] || printf '%s\n' "--status-field=$key=${!key}"
  done
}

# The record of status $1, exit $2, gpu_uuid $3, device $4, one key=value a line, as of now.
record_of() {
  printf 'status=%s\nexit=%s\ngpu_uuid=%s\nnode=%s\njob=%s\ntask=%s\ndevice=%s\ntime=%s' \
    "$1" "$2" "$3" "$node" "$job" "$task" "$4" "$(date -u +%Y-%m-%dT%H:%M:%SZ)"
  [[ -z ${attempt+set} ]] || printf '\nattempt=%s' "$attempt"
}

# Writes record $1 (a name in the results, without suffix): status $2, exit $3, gpu_uuid $4,
# device $5, replaced whole, so a reader never sees half of it. A record that cannot be replaced
# says failed, written in place where that still can be (the space of the record it replaces
# taken again); the status is then 1. With log_records, the record also goes to stdout on one
# line.
write_status() {
  local record saved=0
  record=$(record_of "${@:2}")
  if ! save "$out/$1.status" replace printf '%s\n' "$record"; then
    saved=1
    record=status=failed${record#"status=$2"}
    printf '%s\n' "$record" 2> /dev/null > "$out/$1.status"
  fi
  ((!log_records)) || echo "$me: ${record//$'\n'/ }"
  return "$saved"
}

# Whether record $1 says status $2 and exit $3: gpubench's own, which then stands.
record_says() {
  grep -qx "status=$2" "$out/$1.status" 2> /dev/null && grep -qx "exit=$3" "$out/$1.status"
}

# The record of a run never started, $1 to $3 as write_status's $1, $4, $5: interrupted, and
# with a line $4, an .err holding it.
mark_not_started() {
  rm -f "$out/$1.json" "$out/$1.err"
  [[ -z ${4:-} ]] || save "$out/$1.err" replace echo "$me: not started: $4"
  write_status "$1" interrupted none "$2" "$3"
}

# The status a gpubench exit status $1 means.
status_of() {
  case $1 in
    0) echo 'done' ;;
    129 | 130 | 143) echo interrupted ;; # gpubench stopped by SIGHUP/INT/TERM, JSON so marked
    137) echo killed ;;
    *) echo failed ;;
  esac
}

# Severity of status $1, for the worst of several.
rank_of() {
  case $1 in
    'done') echo 0 ;;
    interrupted) echo 1 ;;
    failed) echo 2 ;;
    *) echo 3 ;;
  esac
}

# The exit status record status $1, exit $2 stands for: its exit, or for a run that never
# returned 143 (interrupted: not started) or 137 (killed); 1 for a failed run that exited 0.
exit_of() {
  case $2 in
    none) [[ $1 == interrupted ]] && echo 143 || echo 137 ;;
    0) [[ $1 == 'done' ]] && echo 0 || echo 1 ;;
    *) echo "$2" ;;
  esac
}

# The .err of a run that exited 0 without a JSON: a line saying so, then its stderr, file $1.
no_result() {
  echo "$me: gpubench exited 0 and wrote no result"
  cat "$1"
}

# From what gpubench lists ($1) for the user's flags ("${@:3}"), the peer family seeing every
# GPU of a $2 (node, pod) at once: whether the per-GPU runs happen (device_runs) and the peer
# run's filter (peer_filter, empty: none), which selects peer benchmarks only. A positive
# filter that selects peer benchmarks and others is refused: one line, exit 2.
plan_peer_run() {
  local listing=$1 scope=$2 filter="" arg
  shift 2
  for arg in "$@"; do
    [[ $arg != --benchmark_filter=* ]] || filter=${arg#--benchmark_filter=}
  done
  device_runs=1 peer_filter=""
  grep -qv '^peer/' <<< "$listing" || device_runs=0
  grep -q '^peer/' <<< "$listing" || return 0
  # Names that do not start with peer/, as an extended regular expression.
  local not_peer='^([^p]|p([^e]|$)|pe([^e]|$)|pee([^r]|$)|peer([^/]|$))'
  if [[ -z $filter || $filter == all ]]; then
    peer_filter='^peer/'
  elif ((!device_runs)); then
    peer_filter=$filter
  elif [[ $filter == -* ]]; then
    peer_filter="-(${filter#-})|$not_peer"
  else
    echo "$me: --benchmark_filter=$(printf '%q' "${filter:0:200}"): selects peer benchmarks and others; the peer family runs once per $scope, the others once per GPU: give a filter that selects one of them, or one starting with '-'" >&2
    exit 2
  fi
}

# Runs gpubench ("${launcher[@]}") as record $1 (a name in the results, without suffix) on
# CUDA_VISIBLE_DEVICES $2 (empty: left as it is), gpu_uuid $3 for its record, gpubench's flags
# after; its stderr into $1.err, its JSON into $1.json, its record written by gpubench, running
# from its start. Sets run_exit to its exit status once it has ended.
launch() {
  local name=$1 visible=$2
  local gpu_uuid=$3 device=$2
  shift 3
  local -a env_of_run=(env) fields
  local record
  [[ -z $visible ]] || env_of_run+=(CUDA_VISIBLE_DEVICES="$visible")
  mapfile -t fields < <(status_fields)
  # The pod's log keeps what gpubench's record says as it starts: what stays if it never returns.
  ((!log_records)) || { record=$(record_of running none "$gpu_uuid" "$device") && echo "$me: ${record//$'\n'/ }"; }
  rm -f "$out/$name.json"
  "${env_of_run[@]}" "${launcher[@]}" --benchmark_out="$out/$name.json" \
    --benchmark_out_format=json --status-out="$out/$name.status" "${fields[@]}" "$@" \
    2> "$out/$name.err" >&"$console_fd" &
  pid=$!
  # A stop signal between the caller's check and the start found no gpubench to reach.
  ((!stopped)) || kill -TERM "$pid" 2> /dev/null
  # wait returns early when a trap runs; wait again for gpubench itself to finish.
  while wait "$pid"; run_exit=$?; kill -0 "$pid" 2> /dev/null; do :; done
  pid=
}

# The end of record $1's run (exit status run_exit; gpu_uuid $2, device $3): sets run_status,
# failed where gpubench exited 0 without a JSON or a file of the results could not be written.
# Its .err is removed where it is done, else ends with "exit status N"; its record is
# gpubench's where that says the same, else written here (gpubench crashed or was killed, wrote
# no result, or never read its flags).
finish_run() {
  local json=$out/$1.json err=$out/$1.err end=""
  [[ -s $json ]] || rm -f "$json"
  run_status=$(status_of "$run_exit")
  if [[ $run_status == 'done' && ! -s $json ]]; then
    # A flag that runs no benchmark (--help, --describe, --version, --benchmark_list_tests)
    # measured nothing.
    save "$err" replace no_result "$err"
    run_status=failed
  fi
  if [[ $run_status == 'done' ]]; then
    rm -f "$err"
  else
    # The exit status on a line of its own, where gpubench left its last line open (a crash).
    [[ -z $(tail -c 1 "$err" 2> /dev/null) ]] || end=$'\n'
    ((!log_records)) || { cat "$err" 2> /dev/null; printf '%s' "$end"; }
    save "$err" append printf '%sexit status %s\n' "$end" "$run_exit"
    ((!log_records)) || echo "$me: $node $2: exit status $run_exit"
  fi
  [[ -z $write_problem ]] || run_status=failed
  if record_says "$1" "$run_status" "$run_exit"; then
    ((!log_records)) || echo "$me: $(paste -s -d ' ' "$out/$1.status")"
  else
    write_status "$1" "$run_status" "$run_exit" "$2" "$3" || run_status=failed
  fi
}
