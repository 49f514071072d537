# Parses a Prometheus exposition from stdin with the Prometheus project's own Python client parser
# (text format 0.0.4, or OpenMetrics with argument "openmetrics") and prints it as JSON:
# [{"name", "type", "samples": [{"name", "labels", "value"}]}]. A parse error exits non-zero.
import json
import sys

text = sys.stdin.read()
if len(sys.argv) > 1 and sys.argv[1] == "openmetrics":
    from prometheus_client.openmetrics.parser import text_string_to_metric_families
else:
    from prometheus_client.parser import text_string_to_metric_families
out = []
for f in text_string_to_metric_families(text):
    out.append({"name": f.name, "type": f.type,
                "samples": [{"name": s.name, "labels": s.labels, "value": s.value} for s in f.samples]})
json.dump(out, sys.stdout)
