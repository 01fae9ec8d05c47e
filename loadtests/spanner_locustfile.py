"""Spanner key designs under Locust:

    locust -f loadtests/spanner_locustfile.py --strategy timestamp_first
    locust -f loadtests/spanner_locustfile.py --strategy hash_shard --headless -u 8 -r 8 -t 30s --csv out
"""

import keybench.infra.runtime  # noqa: F401  (gevent and gRPC set-up, before any client exists)
from keybench.drive.scenario import scenario

SpannerUser = scenario("spanner")
