#!/usr/bin/env bash
# Runs a sharded experiment on a cluster: the spec, the volume, the shards
# (all told to start at now + MARGIN seconds), then the merge once they are done.
#   packaging/k8s/launch.sh [MARGIN_S]   (default 120: enough for image pulls and scheduling)
# Not run on a cluster as part of this repository's tests: check-manifests
# validates the files offline.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
margin="${1:-120}"
start_at="$(date -u -d "+${margin} seconds" +%Y-%m-%dT%H:%M:%SZ)"
kubectl apply -f "$here/configmap.yaml" -f "$here/pvc.yaml"
sed "s/__START_AT__/${start_at}/" "$here/shards-job.yaml" | kubectl apply -f -
echo "shards start at $start_at"
kubectl wait --for=condition=complete --timeout=24h job/knobscope-shards
kubectl apply -f "$here/merge-job.yaml"
kubectl wait --for=condition=complete --timeout=1h job/knobscope-merge
kubectl logs job/knobscope-merge
