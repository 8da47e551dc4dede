#!/usr/bin/env bash
# Compares what two builds of the Demo print over the same library folders, byte for byte:
# stdout, stderr and the exit status of `--format json|csv|table` and `groups`, and (with
# --thumbnails) the bytes `Demo thumbnail` writes for every asset of the JSON listing.
#
#   Scripts/compare-output.sh [--formats "json csv table groups"] [--thumbnails] OLD NEW FOLDER...
#
# OLD and NEW are each a Demo binary or a git revision of this repository; a revision is
# built in release (`swift build -c release --product Demo`) in a temporary worktree under
# /tmp, which is removed afterwards. Outputs are kept in $COMPARE_DIR (default: a fresh
# /tmp folder) for a look at any difference. Exit status 0 when everything is identical,
# 1 when something differs, 64 on a usage error.
#
# Example (before and after a refactoring):
#   Scripts/compare-output.sh main HEAD ../shared/corpus ../shared/hostile
#   Scripts/compare-output.sh --formats json /work/baseline/Demo-main .build/release/Demo /tmp/lib
set -uo pipefail

formats="json csv table groups"
thumbnails=0
while [ $# -gt 0 ]; do
  case "$1" in
    --formats) formats="$2"; shift 2 ;;
    --thumbnails) thumbnails=1; shift ;;
    -h|--help) sed -n '2,17p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) break ;;
  esac
done
if [ $# -lt 3 ]; then
  echo "Usage: $0 [--formats \"json csv table groups\"] [--thumbnails] OLD NEW FOLDER..." >&2
  exit 64
fi
old="$1"; new="$2"; shift 2
repo="$(cd "$(dirname "$0")/.." && pwd)"
work="${COMPARE_DIR:-$(mktemp -d /tmp/compare-output.XXXXXX)}"
mkdir -p "$work"
worktrees=()
cleanup() {
  for tree in "${worktrees[@]}"; do git -C "$repo" worktree remove --force "$tree" >/dev/null 2>&1; done
}
trap cleanup EXIT

# Sets `demo` to the path of a Demo binary for a binary or a revision (building it). Not
# run in a subshell, so that the worktree it adds is removed on exit.
demo_for() {
  local spec="$1" label="$2"
  if [ -x "$spec" ] && [ -f "$spec" ]; then
    demo="$(cd "$(dirname "$spec")" && pwd)/$(basename "$spec")"
    return
  fi
  local revision tree
  revision="$(git -C "$repo" rev-parse --verify "$spec^{commit}" 2>/dev/null)" || {
    echo "'$spec' is neither a Demo binary nor a git revision." >&2
    exit 64
  }
  tree="$(mktemp -d "/tmp/compare-$label.XXXXXX")"
  rmdir "$tree"
  git -C "$repo" worktree add --detach "$tree" "$revision" >/dev/null 2>&1 || exit 1
  worktrees+=("$tree")
  echo "building $label ($revision) in $tree" >&2
  (cd "$tree" && swift build -c release --product Demo >"$work/build-$label.log" 2>&1) || {
    echo "the build of $label failed; see $work/build-$label.log" >&2
    exit 1
  }
  demo="$tree/.build/release/Demo"
}

demo_for "$old" old
old_demo="$demo"
demo_for "$new" new
new_demo="$demo"
echo "old: $old_demo"
echo "new: $new_demo"

# Runs one Demo invocation, keeping stdout, stderr and the exit status apart.
run() {
  local demo="$1" out="$2"; shift 2
  "$demo" "$@" >"$out.out" 2>"$out.err"
  echo $? >"$out.status"
}

differences=0
compare() {
  local name="$1"
  local part
  for part in out err status; do
    if ! cmp -s "$work/old/$name.$part" "$work/new/$name.$part"; then
      echo "DIFFERENT $name ($part):"
      diff "$work/old/$name.$part" "$work/new/$name.$part" | head -20
      differences=$((differences + 1))
      return
    fi
  done
  echo "identical $name ($(wc -c <"$work/new/$name.out") bytes)"
}

mkdir -p "$work/old" "$work/new"
for folder in "$@"; do
  key="$(echo "$folder" | sed 's|/*$||; s|[^A-Za-z0-9._-]|_|g')"
  for format in $formats; do
    name="$key.$format"
    for side in old new; do
      demo="$old_demo"; [ "$side" = new ] && demo="$new_demo"
      if [ "$format" = groups ]; then
        run "$demo" "$work/$side/$name" groups "$folder"
      else
        run "$demo" "$work/$side/$name" --format "$format" "$folder"
      fi
    done
    compare "$name"
  done
  if [ "$thumbnails" = 1 ]; then
    listing="$work/new/$key.urls"
    "$new_demo" --format json "$folder" 2>/dev/null \
      | grep -o '"url" : "assets-library://asset/[^"]*"\|"url": "assets-library://asset/[^"]*"' \
      | sed 's/.*"\(assets-library[^"]*\)"/\1/' | sort -u >"$listing"
    count=0; same=0
    while IFS= read -r url; do
      count=$((count + 1))
      for side in old new; do
        demo="$old_demo"; [ "$side" = new ] && demo="$new_demo"
        rm -f "$work/$side/thumbnail.jpg"
        "$demo" thumbnail "$url" --library "$folder" --output "$work/$side/thumbnail.jpg" \
          >/dev/null 2>"$work/$side/thumbnail.err"
        echo $? >"$work/$side/thumbnail.status"
        [ -f "$work/$side/thumbnail.jpg" ] || : >"$work/$side/thumbnail.jpg"
      done
      if cmp -s "$work/old/thumbnail.jpg" "$work/new/thumbnail.jpg" \
        && cmp -s "$work/old/thumbnail.err" "$work/new/thumbnail.err" \
        && cmp -s "$work/old/thumbnail.status" "$work/new/thumbnail.status"; then
        same=$((same + 1))
      else
        echo "DIFFERENT thumbnail of $url in $folder"
        differences=$((differences + 1))
      fi
    done <"$listing"
    echo "thumbnails of $key: $same of $count identical"
  fi
done

echo "outputs kept in $work"
if [ "$differences" -gt 0 ]; then
  echo "$differences difference(s)"
  exit 1
fi
echo "all identical"
