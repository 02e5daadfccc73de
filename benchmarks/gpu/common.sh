# Shell helpers shared by the GPU scripts in benchmarks/gpu/ (sourced, not run).

quote() {  # each argument, single-quoted where the shell would split or expand it
  local a out=""
  for a in "$@"; do
    case $a in
      *[!A-Za-z0-9_./=:,+-]* | "") a="'${a//\'/\'\\\'\'}'" ;;
    esac
    out="$out $a"
  done
  printf '%s' "${out# }"
}

# A lent GPU machine starts bare and one session's device time is short, so
# long runs are carried across sessions: save_state writes a work folder's
# checkpoints and command lines (not its logs or per-run records) to
# OUT/STEM.tar.part-aa, -ab, ... in 15 MiB pieces (what a call brings back);
# restore_state unpacks such pieces into a fresh work folder.
save_state() {  # WORKDIR OUT STEM
  tar -C "$1" -cf - --exclude='*.log' --exclude='rec-*' . |
    split -b 15m - "$2/$3.tar.part-" && ls -l "$2/$3".tar.part-*
}
restore_state() {  # FROM WORKDIR STEM VARIABLE: exits 2 with one line if FROM has no state
  rm -rf "$2" && mkdir -p "$2" &&
    cat "$1/$3".tar.part-* 2>/dev/null | tar -C "$2" -xf - 2>/dev/null || {
    echo "$4: no saved state in '$1' ($3.tar.part-*)" >&2
    exit 2
  }
}
