# writable PATH: whether PATH can be written, found before a run rather than minutes after it:
# an existing file must be writable, a new one is created and removed again. Sourced by
# ci_record.sh and ci_gate.sh.
writable() {
  if [[ -e $1 ]]; then
    [[ ! -d $1 && -w $1 ]]
  else
    { : > "$1" && rm -f -- "$1"; } 2> /dev/null
  fi
}
