#!/bin/sh
# Regenerates tests/generator/golden/<case>/ from tests/generator/cases/<case>.hpp.
# usage: tests/generator/update_golden.sh <path to whizbang-gen>
# The arguments must match GeneratorArgs() in golden_test.cpp.
set -eu
gen=$1
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
for header in "$here"/cases/*.hpp; do
  name=$(basename "$header" .hpp)
  out="$here/golden/$name"
  mkdir -p "$out"
  "$gen" --target "$name" --out-dir "$out" --root "$here/cases" "$header" -- \
    -std=c++20 -I"$repo/attributes/include" -I"$repo/runtime/include" -I"$here/cases"
  echo "updated $out"
done
