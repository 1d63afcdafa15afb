#!/bin/bash
# The realmlite tool on the damaged-file corpus (corpus/file): each input is
# turned into its damaged image by file_images (fuzz_file.c's mutations),
# then `realmlite check` and `realmlite dump` run on it. Fails unless, for
# every image: neither command crashes, hangs or exits other than 0/1; a
# failure is one stderr line naming the file; check agrees with the
# engine's checker (cs_check): exit 1 with cs_check's first problem as its
# first line when cs_check finds problems, one line and exit 1 when the file
# cannot be opened, exit 0 when cs_check finds it clean (the images are bare
# engine files: no object-layer schema to check).
# KINDS_DIR, if given, holds more damaged files to run the same way: one per
# damage kind of Tests/CStorageCTests/test_check.c (kept by it when
# CS_DAMAGE_KEEP_DIR is set), named by the kind.
# usage: cli_corpus.sh FILE_IMAGES REALMLITE CORPUS_DIR WORK_DIR [KINDS_DIR]
set -u
images=$1 realmlite=$2 corpus=$3 work=$4 kinds=${5:-}
rm -rf "$work" && mkdir -p "$work" || exit 2
"$images" "$work" "$corpus"/* >/dev/null || { echo "cli_corpus: file_images failed"; exit 1; }
if [ -n "$kinds" ]; then
  ls "$kinds"/*.db >/dev/null 2>&1 || { echo "cli_corpus: no damaged files in $kinds"; exit 1; }
  cp "$kinds"/*.db "$work"/ && "$images" --verdicts "$work"/*.db || { echo "cli_corpus: file_images --verdicts failed"; exit 1; }
fi
n=0 failed=0 opened=0 problems=0
fail() { echo "cli_corpus: $1: $2"; bad=1; }
for db in "$work"/*.db; do
  n=$((n + 1)) bad=0
  name=$(basename "$db" .db)
  verdict=$(head -1 "${db%.db}.verdict") first=$(sed -n 2p "${db%.db}.verdict")
  timeout -k 5 60 "$realmlite" check "$db" > "$work/out" 2> "$work/err"; rc=$?
  errs=$(wc -l < "$work/err")
  case "$verdict" in
    "cannot open")
      [ $rc = 1 ] && [ "$errs" = 1 ] && [ ! -s "$work/out" ] || fail "$name" "check: exit $rc, $errs stderr lines for a file cs_env_open refuses" ;;
    problems)
      problems=$((problems + 1)); opened=$((opened + 1))
      [ $rc = 1 ] && [ "$(head -1 "$work/out")" = "$db: $first" ] || fail "$name" "check: exit $rc, first line '$(head -1 "$work/out")' where cs_check says '$first'" ;;
    clean)
      opened=$((opened + 1))
      [ $rc = 0 ] || fail "$name" "check: exit $rc on a file cs_check finds clean: $(head -1 "$work/out") $(head -1 "$work/err")" ;;
    *) fail "$name" "no verdict" ;;
  esac
  timeout -k 5 60 "$realmlite" dump "$db" > /dev/null 2> "$work/err"; rc=$?
  errs=$(wc -l < "$work/err")
  if [ $rc = 1 ]; then
    [ "$errs" = 1 ] && grep -q "^realmlite: $db: " "$work/err" || fail "$name" "dump: exit 1 with $errs stderr lines: $(head -2 "$work/err")"
  elif [ $rc != 0 ]; then
    fail "$name" "dump: exit $rc (crash or hang): $(head -2 "$work/err")"
  fi
  rm -f "$db" "$db.lock"
  failed=$((failed + bad))
done
echo "cli_corpus: $n scenarios, $failed failed ($opened opened, $problems with problems found by cs_check)"
[ $failed = 0 ]
