#!/bin/sh
# Build time and binary size of two commits, side by side in one run: each is checked out
# into its own worktree and built in release mode from an empty target directory (the
# registry sources are already downloaded), one after the other. Prints wall and CPU
# seconds, the `ultra` binary's size, and the crate count of each.
#
#   bench/build_size.sh BASE [HEAD]      e.g. bench/build_size.sh 85b25fb HEAD
set -eu
base=${1:?usage: bench/build_size.sh BASE [HEAD]}
head=${2:-HEAD}
repo=$(git rev-parse --show-toplevel)
work=$(mktemp -d)
trap 'git -C "$repo" worktree remove --force "$work/a" 2>/dev/null; git -C "$repo" worktree remove --force "$work/b" 2>/dev/null; rm -rf "$work"' EXIT
printf 'commit\twall_s\tcpu_s\tbinary_bytes\tcrates\n'
for pair in "a $base" "b $head"; do
    set -- $pair
    git -C "$repo" worktree add -q --detach "$work/$1" "$2"
    start=$(date +%s.%N)
    ( cd "$work/$1" && CARGO_TARGET_DIR="$work/$1/target" /usr/bin/time -f '%U %S' -o "$work/$1.time" \
        cargo build --release --locked -p ultra -q )
    end=$(date +%s.%N)
    cpu=$(awk '{printf "%.0f", $1+$2}' "$work/$1.time")
    size=$(stat -c %s "$work/$1/target/release/ultra")
    crates=$(ls -d "$work/$1"/crates/*/ | wc -l)
    printf '%s\t%.0f\t%s\t%s\t%s\n' "$(git -C "$repo" rev-parse --short "$2")" "$(echo "$end - $start" | bc)" "$cpu" "$size" "$crates"
done
