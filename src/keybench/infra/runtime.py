"""Process set-up that must happen before any gRPC client exists, in a process that runs on gevent.

Locust runs on gevent: gRPC must be made cooperative first, or streaming reads hang and
unary calls block the event loop. The environment gRPC and the Spanner client need comes
first (keybench.grpc_environment says why). Only the commands that run Locust import this
(`run`, `check --load`: keybench.cli.needs_gevent); `record`'s proxies relay on threads,
which cost an application less than greenlets do.
"""

from gevent import monkey

import keybench.grpc_environment  # noqa: F401  (before grpc is imported)

monkey.patch_all()

import grpc.experimental.gevent as grpc_gevent  # noqa: E402

_prepared = False


def prepare() -> None:
    global _prepared
    if _prepared:
        return
    grpc_gevent.init_gevent()
    _prepared = True


prepare()
