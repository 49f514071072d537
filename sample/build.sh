#!/usr/bin/env bash
# Rebuilds the bundled sample repository (src/main/resources/org/packyard/sample) from specs/.
# Needs rpmbuild and createrepo_c. The result is committed: serve must work without these tools.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
out="$here/../src/main/resources/org/packyard/sample"
top="$(mktemp -d)"
trap 'rm -rf "$top"' EXIT
for spec in "$here"/specs/*.spec; do
  rpmbuild --quiet --define "_topdir $top" --define "_buildhost packyard.invalid" \
    --define "source_date_epoch_from_changelog 1" --define "use_source_date_epoch_as_buildtime 1" \
    --define "clamp_mtime_to_source_date_epoch 1" -bb "$spec"
done
rm -rf "$out" && mkdir -p "$out/Packages"
cp "$top"/RPMS/noarch/*.rpm "$out/Packages/"
createrepo_c --quiet --no-database --revision 1 "$out"
(cd "$out" && find . -type f ! -name files.txt | sed 's|^\./||' | sort > files.txt)
echo "sample repository rebuilt in $out"
