# check_output SCRIPT OUT [INPUT...]: whether OUT can be written, found before a run rather than
# minutes after it. Not where OUT is one of the INPUTs (by any path or link: writing there would
# destroy it), nor where it cannot be written (an existing file must be writable, a new one is
# created and removed again). Where not, one line on stderr says why, SCRIPT first. Sourced by
# ci_record.sh and ci_gate.sh.
check_output() {
  local script=$1 out=$2 input
  shift 2
  for input in "$@"; do
    if [[ $out -ef $input ]]; then
      echo "$script: ${out//[^[:print:]]/?}: is also an input (${input//[^[:print:]]/?}); writing there would destroy it" >&2
      return 1
    fi
  done
  if [[ -e $out ]]; then
    [[ ! -d $out && -w $out ]] && return 0
  elif { : > "$out" && rm -f -- "$out"; } 2> /dev/null; then
    return 0
  fi
  echo "$script: ${out//[^[:print:]]/?}: cannot write the output there" >&2
  return 1
}
