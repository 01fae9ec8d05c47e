"""Bigtable row-key designs under Locust:

    locust -f loadtests/bigtable_locustfile.py --strategy field_promoted
    locust -f loadtests/bigtable_locustfile.py --strategy salted --headless -u 8 -r 8 -t 30s --csv out
"""

import keybench.infra.runtime  # noqa: F401  (gevent and gRPC set-up, before any client exists)
from keybench.drive.scenario import scenario

BigtableUser = scenario("bigtable")
